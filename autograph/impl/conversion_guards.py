"""What keeps a conversion from failing in ways the user cannot act on.

- Deep expressions: the analyses and converters walk the tree recursively, so an expression
  nested a few hundred levels deep (`x + x + ... + x`, which Python compiles up to
  thousands of terms) exceeds the interpreter's recursion limit. Such a conversion is run
  again on a thread with a large stack and a raised limit (call_deep).
- Calls that read the caller's frame: `eval`, `exec`, `locals()` and `vars()` inside an
  `if`, `while` or `for` body see the locals of the generated function that the body
  becomes, not the user function's; conversion warns (frame_call_notes).
"""

import sys
import threading
import warnings

import gast

from autograph import errors
from autograph.pyct import gast_util

# The stack of the thread of a deep conversion: address space, mostly never touched.
_DEEP_STACK_BYTES = 512 << 20
# The recursion limit during a deep conversion.
_DEEP_RECURSION_LIMIT = 60000
_deep_lock = threading.Lock()
# .deep: whether this thread runs a deep conversion (call_deep)
_thread = threading.local()

FRAME_CALLS = gast_util.FRAME_CALLS
# Statements whose bodies the control-flow converter turns into generated functions.
_CONVERTED_BLOCKS = (gast.If, gast.While, gast.For)
# Nodes with their own scope: calls inside them read their own frame, as in plain Python.
_OWN_SCOPE = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef,
              gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
# warnings already given, by (file, line, function)
_warned = set()


def call_deep(func, *args):
    """Calls `func(*args)` on a thread with a large stack and a raised recursion limit.

    The limit is the interpreter's (every thread's) while the call runs; one deep call runs
    at a time.

    Args:
      func: a callable.
      *args: its arguments.

    Returns:
      What it returns.

    Raises:
      What it raises; RuntimeError or MemoryError when the thread cannot start.
    """
    outcome = []

    def run():
        _thread.deep = True
        try:
            outcome.append((True, func(*args)))
        except BaseException as e:  # pylint: disable=broad-except - re-raised by the caller
            outcome.append((False, e))

    with _deep_lock:
        old_limit = sys.getrecursionlimit()
        old_size = threading.stack_size()
        try:
            threading.stack_size(_DEEP_STACK_BYTES)
            thread = threading.Thread(target=run, name='autograph deep conversion')
            sys.setrecursionlimit(max(old_limit, _DEEP_RECURSION_LIMIT))
            thread.start()
            thread.join()
        finally:
            sys.setrecursionlimit(old_limit)
            threading.stack_size(old_size)
    ok, value = outcome[0]
    if ok:
        return value
    raise value.with_traceback(value.__traceback__)


def guarded(func, *args):
    """Calls `func(*args)`, a conversion; on RecursionError, again through call_deep.

    Args:
      func: a callable that converts.
      *args: its arguments.

    Returns:
      What it returns.

    Raises:
      ConversionError: the conversion exceeds the recursion limit even on a large stack, or
        runs out of memory.
    """
    try:
        return func(*args)
    except RecursionError:
        if getattr(_thread, 'deep', False):
            raise
    try:
        return call_deep(func, *args)
    except (RecursionError, MemoryError) as e:
        raise errors.ConversionError(
            'its code is nested too deeply to convert (%s: an expression or block deeper than'
            ' the %d levels that conversion can follow); split it into several statements'
            % (type(e).__name__, _DEEP_RECURSION_LIMIT // 10)) from None


def _calls_in_blocks(node):
    """(builtin name, line) of each frame call inside a converted block of `node`'s body."""
    found = []
    stack = [(child, False) for child in gast.iter_child_nodes(node)]
    while stack:
        n, inside = stack.pop()
        if isinstance(n, _OWN_SCOPE):
            continue
        name = gast_util.frame_call(n) if inside else None
        if name is not None:
            found.append((name, getattr(n, 'lineno', 0)))
        inner = inside or isinstance(n, _CONVERTED_BLOCKS)
        stack.extend((child, inner) for child in gast.iter_child_nodes(n))
    return sorted(found, key=lambda f: (f[1], f[0]))


def frame_call_notes(node, qualname, filename):
    """The warnings to give for frame calls inside converted blocks of a function.

    Args:
      node: the function's gast tree, before conversion.
      qualname: its qualified name.
      filename: its file.

    Returns:
      A list of messages (str), empty when there is nothing to say.
    """
    if isinstance(node, gast.Lambda):
        return []  # a lambda has no statements, so no converted blocks
    return [
        '%s (%s:%d) calls %s() inside an if, while or for body that AutoGraph converts into'
        ' a generated function: there it reads or changes that function\'s local variables,'
        ' not those of %s, so it may fail or differ from plain Python. Pass the variables'
        ' explicitly (for example eval(text, globals(), {"x": x})), or decorate %s with'
        ' @autograph.do_not_convert.' % (qualname, filename, line, name, qualname, qualname)
        for name, line in _calls_in_blocks(node)]


def warn(notes, code):
    """Gives each note as a Python warning at a function's line, once per process.

    Args:
      notes: messages (str).
      code: the function's code object.
    """
    where = (code.co_filename, code.co_firstlineno, code.co_name)
    if not notes or where in _warned:
        return
    _warned.add(where)
    for note in notes:
        warnings.warn_explicit(note, UserWarning, code.co_filename, code.co_firstlineno)
