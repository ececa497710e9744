"""Whether the source parsed for a function is the code that it runs.

A function's source is read from its file (through linecache), which may have changed since
the function was compiled: edited and not reloaded, or edited and reloaded in a way that kept
its size and modification time (linecache then keeps the old text). Converting that text would
give another function's code. `check` compiles the parsed definition and compares it with the
running code.
"""

import __future__
import ast
import dis
import keyword
import types

from autograph import errors

# The compiler flags of every `__future__` feature.
FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag
_CO_NESTED = 0x10  # inspect.CO_NESTED: set on functions compiled inside another


_JUMPS = frozenset(dis.hasjrel + dis.hasjabs)


def _running_signature(code):
    """What of a code object its source decides: instructions, constants, names, lines."""
    consts = tuple(_running_signature(c) if hasattr(c, 'co_code') else (type(c), c)
                   for c in code.co_consts)
    return (code.co_name, code.co_firstlineno, code.co_code, consts, code.co_names,
            code.co_varnames, code.co_freevars, code.co_cellvars, code.co_argcount,
            code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags & ~_CO_NESTED,
            tuple(code.co_lines()))


def _instructions(code):
    """The instructions of `code` as (operation, argument value, line), offsets left out.

    Python compiles `m.f()` with a method load, or with an attribute load where `m` was
    imported at the top of the module (which a definition compiled alone cannot know; and
    the function may run with other globals than its module's): both read here as an
    attribute load, the PUSH_NULL that Python 3.13 adds to the attribute load is left out,
    and jumps read as the index of their target (the lengths of jumps differ, and with them
    the EXTENDED_ARG prefixes, which are left out).
    """
    found = []
    index = {}  # offset -> index in `found` (a left-out instruction's: the next one's)
    pending = []
    for i in dis.get_instructions(code):
        pending.append(i.offset)
        # (an EXTENDED_ARG's value is in the next instruction's argument)
        if i.opname not in ('EXTENDED_ARG', 'PUSH_NULL'):
            index.update((offset, len(found)) for offset in pending)
            pending = []
            found.append(i)
    out = []
    for i in found:
        name = 'LOAD_ATTR' if i.opname == 'LOAD_METHOD' else i.opname
        if i.opcode in _JUMPS:
            arg = index.get(i.argval)
        elif hasattr(i.argval, 'co_code'):
            arg = _instructions(i.argval)
        else:
            arg = (type(i.argval), i.argval)
        positions = getattr(i, 'positions', None)
        out.append((name, arg, positions.lineno if positions else i.starts_line))
    return out


def _flat(code):
    """The lines and names of a code object and of the code objects nested in it."""
    lines, names = set(), set()
    stack = [code]
    while stack:
        c = stack.pop()
        lines.update(line for _, _, line in c.co_lines() if line is not None)
        names.update(c.co_names + c.co_varnames + c.co_freevars + c.co_cellvars)
        stack.extend(k for k in c.co_consts if hasattr(k, 'co_code'))
    return lines, names


def _transformed_like(compiled, code):
    """Whether `code` may be `compiled` as an import hook rewrote it (pytest's asserts).

    Such code has names that are not identifiers (no source text can make them); it may add
    names and constants (and write some constants differently), with lines only among those
    of the source.
    """
    lines, names = _flat(code)
    if all(name.isidentifier() for name in names):
        return False
    source_lines, source_names = _flat(compiled)
    return lines <= source_lines and source_names <= names


def _scopes(qualname, class_only):
    """The enclosing classes (`class`) and functions (`def`) that `qualname` names."""
    parts = qualname.split('.')[:-1]
    scopes = []
    for k, part in enumerate(parts):
        if part == '<locals>':
            continue
        is_function = k + 1 < len(parts) and parts[k + 1] == '<locals>'
        if not (is_function and class_only):
            # A lambda or comprehension (`<lambda>`) holds the code as a def of any name would.
            scopes.append(('def' if is_function else 'class',
                           part if part.isidentifier() else '_'))
    return scopes


def _imported_names(f):
    """The global names `f`'s code reads whose values are modules (see _wrapped)."""
    names, stack = set(), [f.__code__]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if hasattr(k, 'co_code'))
    namespace = getattr(f, '__globals__', None) or {}
    # (only identifiers: an import hook's own names, such as pytest's `@py_builtins`, are not)
    return sorted(n for n in names if type(namespace.get(n)) is types.ModuleType
                  and n.isidentifier() and not keyword.iskeyword(n))


def _wrapped(node, f, scopes):
    """A module holding `node` inside `scopes`, its free variables assigned around it.

    Python compiles `m.f()` with an attribute load where `m` is imported at the top of the
    module, and a method load otherwise: the module imports the global names that hold
    modules, so that the code compiles as it did in its own module (where they were most
    likely imported).
    """
    code = f.__code__
    if isinstance(node, ast.Lambda):
        node = ast.Expr(value=node, lineno=node.lineno, col_offset=node.col_offset,
                        end_lineno=node.end_lineno, end_col_offset=node.end_col_offset)
    freevars = [n for n in code.co_freevars
                if n != '__class__' or not any(kind == 'class' for kind, _ in scopes)]
    if freevars and not any(kind == 'def' for kind, _ in scopes):
        scopes = [('def', '_')] + scopes
    lines = ['import ' + name for name in _imported_names(f)]
    assign_at = None  # (line index, depth) where the free variables are assigned
    for depth, (kind, name) in enumerate(scopes):
        lines.append('    ' * depth + ('def %s():' if kind == 'def' else 'class %s:') % name)
        if kind == 'def':
            assign_at = (len(lines), depth + 1)
    if freevars:
        lines.insert(assign_at[0], '    ' * assign_at[1] + ' = '.join(freevars) + ' = None')
    lines.append('    ' * len(scopes) + 'pass')
    module = ast.parse('\n'.join(lines))
    holder = module
    while holder.body and isinstance(holder.body[-1], (ast.FunctionDef, ast.ClassDef)):
        holder = holder.body[-1]
    holder.body[-1] = node
    return module


def _compiled_code(module, code):
    """The code object named and placed like `code` in the compiled `module`, or None."""
    try:
        compiled = compile(module, code.co_filename, 'exec', code.co_flags & FUTURE_FLAGS,
                           dont_inherit=True)
    except (SyntaxError, ValueError, TypeError):  # (RecursionError: the caller's to handle)
        return None
    stack = [compiled]
    while stack:
        c = stack.pop(0)
        if c.co_name == code.co_name and c.co_firstlineno == code.co_firstlineno:
            return c
        stack.extend(k for k in c.co_consts if hasattr(k, 'co_code'))
    return None


def check(node, f):
    """Raises unless the parsed definition `node` compiles to the code that `f` runs.

    The source of a function is read from its file, which may have changed since the
    function was compiled (edited and not reloaded, or edited in a way that kept its size and
    time): the converted code would then be another function's. The definition is compiled
    in scopes like `f`'s (its enclosing classes, for private names, and a function holding
    its free variables) and compared with `f.__code__`: the same instructions, constants,
    names and lines (method and attribute loads read alike), or, for code that an import
    hook rewrote (pytest's assertions), no lines but the source's and at least its names.

    Args:
      node: the ast (not gast) FunctionDef, AsyncFunctionDef or Lambda parsed for `f`.
      f: the Python function.

    Raises:
      ConversionError: the source is not the code that runs.
    """
    code = f.__code__
    expected = _running_signature(code)
    for class_only in (False, True):
        module = _wrapped(node, f, _scopes(getattr(f, '__qualname__', ''), class_only))
        compiled = _compiled_code(module, code)
        if compiled is not None and (_running_signature(compiled) == expected
                                     or _instructions(compiled) == _instructions(code)
                                     or _transformed_like(compiled, code)):
            return
    raise errors.ConversionError(
        'its source in %s at line %d is not the code that runs: the file changed after %s was'
        ' compiled (reload the module, or restart Python, to convert the new code)'
        % (code.co_filename, code.co_firstlineno, f.__qualname__))
