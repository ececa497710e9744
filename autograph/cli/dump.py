"""`autograph dump`: the converted source of every function of a file, directory or module."""

import ast
import collections
import contextlib
import importlib.machinery
import importlib.util
import json
import linecache
import os
import signal
import sys
import threading
import tokenize
import types
import warnings

from autograph import errors
from autograph.impl import conversion
from autograph.pyct import parser as ag_parser

# Directories never entered when a directory is dumped or surveyed: caches and third-party
# packages installed inside the standard library directory.
_SKIP_DIRS = frozenset({'__pycache__', 'site-packages', 'dist-packages'})

# Statement fields that hold nested statement lists (if/for/while/with/try/match bodies).
_BLOCK_FIELDS = ('body', 'orelse', 'handlers', 'finalbody', 'cases')

_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)

# A code object to copy: each function found in a file becomes a function object with this
# empty body and the original name, file and first line, which is all the converter reads
# from a function before it parses the real source from the file.
_STUB_CODE = next(c for c in compile('def _stub():\n    pass\n', '<autograph-cli>', 'exec')
                  .co_consts if isinstance(c, types.CodeType))

class InputError(Exception):
    """The input (file, directory, module or FILE:FUNCTION) cannot be read or imported.

    Attributes:
      kind: 'syntax' when the file was read but is not valid Python for this interpreter,
        'read' otherwise (missing, unreadable, undecodable, not importable).
    """

    def __init__(self, message, kind='read'):
        super().__init__(message)
        self.kind = kind


class _Timeout(BaseException):
    """Raised by the alarm when converting one function takes too long.

    A BaseException so that no `except Exception` inside the converter swallows it.
    """


Entity = collections.namedtuple('Entity', 'qualname name line first_line')
Module = collections.namedtuple('Module', 'filename module_name out_path')
# Why one function was not converted: `where` is file:line, `group` the kind of reason shared
# by all failures of that kind (the unsupported construct, the exception type), for the survey.
Failure = collections.namedtuple('Failure', 'where qualname reason group')


# -- finding the modules and their functions ----------------------------------------------------

def resolve_target(target):
    """Turns a dump argument into the list of modules to dump.

    Args:
      target: a .py file, a directory, or a dotted module name.

    Returns:
      A list of Module tuples (filename, module name, relative output path).

    Raises:
      InputError: the file or directory does not exist, or the module cannot be found or has
        no Python source.
    """
    if os.path.isdir(target):
        return modules_in_directory(target)
    if os.path.exists(target) or target.endswith('.py') or os.sep in target:
        if not os.path.isfile(target):
            raise InputError('expected a Python file, found no file %r; check the path' % target)
        base = os.path.splitext(os.path.basename(target))[0]
        return [Module(os.path.normpath(target), base, base + '.py')]
    return _module_by_name(target)


def modules_in_directory(root, package=None, out_root=''):
    """Lists the .py files under `root`, as `python -m compileall` walks a directory.

    Args:
      root: the directory.
      package: the dotted name of the package `root` holds, or None for a plain directory.
      out_root: the output path prefix of its modules.
    """
    modules = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in sorted(filenames):
            if not name.endswith('.py'):
                continue
            path = os.path.normpath(os.path.join(dirpath, name))
            rel = os.path.relpath(path, root)
            dotted = os.path.splitext(rel)[0].replace(os.sep, '.')
            if package:
                dotted = package if dotted == '__init__' else package + '.' + dotted
                dotted = dotted[:-len('.__init__')] if dotted.endswith('.__init__') else dotted
            modules.append(Module(path, dotted, os.path.join(out_root, rel)))
    if not modules:
        raise InputError('expected .py files under directory %r, found none' % root)
    return modules


def find_spec(name):
    """Locates a module by its dotted name without importing it or its parent packages.

    `importlib.util.find_spec('pkg.sub')` imports `pkg` (runs `pkg/__init__.py`); here each
    package's folders come from its spec (importlib.machinery.PathFinder searches them), so
    no code of the target runs.

    Args:
      name: a dotted module name.

    Returns:
      A ModuleSpec, or None when it cannot be found.
    """
    parts = name.split('.')
    spec = importlib.util.find_spec(parts[0])  # a top-level name: nothing is imported
    for k in range(1, len(parts)):
        locations = spec.submodule_search_locations if spec is not None else None
        if not locations:
            return None
        spec = importlib.machinery.PathFinder.find_spec('.'.join(parts[:k + 1]),
                                                        list(locations))
    return spec


def _module_by_name(name):
    try:
        spec = find_spec(name)
    except Exception as e:  # pylint: disable=broad-except  # a malformed name, unreadable path
        raise InputError('could not locate module %r: %s: %s'
                         % (name, type(e).__name__, e)) from None
    if spec is None:
        raise InputError('expected an importable module or an existing path, found neither'
                         ' for %r; check the spelling or pass the path of a .py file' % name)
    origin = spec.origin
    if origin == 'frozen':
        origin = getattr(spec.loader_state, 'filename', None)
    if not origin or not origin.endswith('.py') or not os.path.isfile(origin):
        raise InputError('expected Python source for module %r, found %s; only modules'
                         ' written in Python can be converted' % (name, origin or 'none'))
    out = name.replace('.', os.sep)
    if spec.submodule_search_locations and os.path.basename(origin) == '__init__.py':
        # A package: its submodules too, as `python -m compileall` walks a package.
        return modules_in_directory(os.path.dirname(origin), name, out)
    return [Module(origin, name, out + '.py')]


def read_module(filename):
    """Reads and parses a Python file without executing it.

    Args:
      filename: path of the file.

    Returns:
      The list of Entity tuples for its functions and methods, in source order.

    Raises:
      InputError: the file cannot be read, decoded or parsed by this Python.
    """
    try:
        with tokenize.open(filename) as f:
            source = f.read()
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError) as e:
        raise InputError('could not read %s: %s: %s' % (filename, type(e).__name__, e)) from None
    try:
        tree = ast.parse(source, filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        raise InputError('%s is not valid Python %d.%d: %s: %s' % (
            filename, sys.version_info[0], sys.version_info[1], type(e).__name__, e),
            kind='syntax') from None
    entities = []
    _collect(tree.body, '', entities)
    return entities


def _collect(statements, prefix, out):
    """Appends the functions and methods defined by `statements` (not nested in functions)."""
    for node in statements:
        if isinstance(node, _FUNCTION_NODES):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out.append(Entity(prefix + node.name, node.name, node.lineno, first))
        elif isinstance(node, ast.ClassDef):
            _collect(node.body, prefix + node.name + '.', out)
        else:
            for field in _BLOCK_FIELDS:
                _collect(getattr(node, field, None) or (), prefix, out)


def stub_function(entity, filename, module_name):
    """Makes a function object that the converter can convert, without running any code.

    The converter reads only the name, file and first line of a function's code object and
    then parses the source from the file; the stub's body is never called.

    Args:
      entity: an Entity from read_module.
      filename: the file it was found in.
      module_name: the name of its module (used for __module__ only).

    Returns:
      A Python function.
    """
    fields = {'co_name': entity.name, 'co_filename': filename,
              'co_firstlineno': entity.first_line}
    if sys.version_info >= (3, 11):
        fields['co_qualname'] = entity.qualname
    fn = types.FunctionType(_STUB_CODE.replace(**fields), {'__name__': module_name})
    fn.__name__ = entity.name
    fn.__qualname__ = entity.qualname
    fn.__module__ = module_name
    return fn


@contextlib.contextmanager
def _deadline(seconds):
    """Raises _Timeout in the block after `seconds` (main thread on POSIX; else no limit)."""
    usable = (seconds and hasattr(signal, 'setitimer')
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def on_alarm(signum, frame):
        del signum, frame
        raise _Timeout()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def convert_entity(fn, timeout=None):
    """Converts one function and unparses it, turning every failure into a reason.

    Args:
      fn: a function (usually from stub_function).
      timeout: seconds after which conversion is abandoned; None or 0 for no limit.

    Returns:
      A tuple (source, reason, group): the generated source, None, None; or None, a one-line
      reason, and the kind of reason shared by all failures of that kind (the unsupported
      construct, read from UnsupportedSyntaxError.construct, or the exception's type).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with _deadline(timeout):
                return conversion.converted_source(fn, check_code=False), None, None
    except _Timeout:
        return (None, 'conversion took longer than %gs and was stopped' % timeout,
                'conversion timed out')
    except errors.UnsupportedSyntaxError as e:
        return None, _one_line(str(e)), '%s is not supported' % e.construct
    except errors.ConversionError as e:
        return None, _one_line(str(e)), type(e).__name__
    except RecursionError:
        return (None, 'internal converter error: RecursionError (the code is nested too deeply)',
                'internal converter error: RecursionError')
    except Exception as e:  # pylint: disable=broad-except  # reported, never a traceback
        return (None, _one_line('internal converter error: %s: %s' % (type(e).__name__, e)),
                'internal converter error: %s' % type(e).__name__)


def _one_line(text):
    return ' '.join(text.split())


# -- dump ---------------------------------------------------------------------------------------

def cmd_dump(args):
    """Runs `autograph dump` (see the parser in autograph/cli/__init__.py)."""
    if args.output and os.path.exists(args.output) and not os.path.isdir(args.output):
        raise InputError('expected --output to name a directory (it is created if missing),'
                         ' found the file %r; pick a directory path' % args.output)
    modules = []
    for target in args.targets:
        modules.extend(resolve_target(target))
    wanted = set(args.function)
    found = set()
    totals = collections.Counter()
    failures = []
    unreadable = []
    for module in modules:
        try:
            entities = read_module(module.filename)
        except InputError as e:
            unreadable.append(str(e))
            if args.json:
                print(json.dumps({'file': module.filename, 'error': str(e), 'kind': e.kind}),
                      flush=True)
            continue
        if wanted:
            entities = [e for e in entities if e.qualname in wanted or e.name in wanted]
            found.update(n for e in entities for n in (e.qualname, e.name))
        chunks, failed = _dump_module(module, entities, args.timeout)
        linecache.clearcache()  # one module at a time: keep memory flat over big directories
        totals['functions'] += len(entities)
        totals['converted'] += len(entities) - len(failed)
        failures.extend(failed)
        if args.json:
            print(json.dumps({'file': module.filename, 'functions': len(entities),
                              'failures': [f._asdict() for f in failed]}), flush=True)
        elif args.output:
            _write_module(args.output, module, chunks, failed)
        else:
            sys.stdout.write(''.join(chunks))
    missing = sorted(wanted - found)
    if missing:
        raise InputError('expected functions named %s, found none with %s; names are function'
                         ' names or Class.method' % (', '.join(missing),
                                                     'that name' if len(missing) == 1
                                                     else 'those names'))
    if not args.json:
        print(_footer(failures, totals, len(modules)), end='')
    for message in unreadable:
        print('autograph dump: error: %s' % message, file=sys.stderr)
    return 1 if unreadable else 0


def _dump_module(module, entities, timeout):
    chunks = []
    failed = []
    for entity in entities:
        fn = stub_function(entity, module.filename, module.module_name)
        source, reason, group = convert_entity(fn, timeout)
        where = '%s:%d' % (module.filename, entity.line)
        if reason is None:
            chunks.append('# --- %s  %s ---\n%s\n' % (where, entity.qualname, source))
        else:
            failed.append(Failure(where, entity.qualname, reason, group))
    return chunks, failed


def _failure_lines(failures):
    return ''.join('#   %s  %s: %s\n' % (f.where, f.qualname, f.reason) for f in failures)


def _footer(failures, totals, n_modules):
    text = ''
    if failures:
        text += '# %d function%s could not be converted (they would run unconverted):\n' % (
            len(failures), '' if len(failures) == 1 else 's')
        text += _failure_lines(failures)
    text += '# %d module%s, %d function%s: %d converted, %d not converted\n' % (
        n_modules, '' if n_modules == 1 else 's', totals['functions'],
        '' if totals['functions'] == 1 else 's', totals['converted'], len(failures))
    return text


def _write_module(out_dir, module, chunks, failed):
    path = os.path.join(out_dir, module.out_path)
    try:
        os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
        with open(path, 'w', encoding='utf-8') as f:
            f.write('# Generated by `autograph dump` from %s.\n\n' % module.filename)
            f.write(''.join(chunks))
            if failed:
                f.write('# Not converted:\n' + _failure_lines(failed))
    except OSError as e:
        raise InputError('could not write %s under --output %r: %s; pick a writable directory'
                         % (path, out_dir, e.strerror or e)) from None
    print('wrote %s (%d converted, %d not converted)' % (
        path, len(chunks), len(failed)))
