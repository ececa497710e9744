"""Command-line interface: `autograph dump`, `autograph graph` and `autograph survey`."""

import argparse
import ast
import collections
import contextlib
import importlib.util
import json
import linecache
import os
import re
import signal
import subprocess
import sys
import sysconfig
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

_DESCRIPTION = """\
Standalone AutoGraph from the command line.

  autograph dump FILE.py|DIR|MODULE [--function NAME ...] [--output DIR]
      print the converted source of every function and method; nothing is executed
      (files are parsed, not imported)
  autograph graph FILE.py:FUNCTION --signature "float32[None,3], int32[]" [--dot]
      trace FUNCTION with runtime.function and print the graph (imports FILE.py)
  autograph survey [DIR] [--timeout SECONDS]
      dump every module under DIR (default: the standard library) in subprocesses and
      print totals, with the reasons for unconverted functions grouped
"""


class InputError(Exception):
    """The input (file, directory, module or FILE:FUNCTION) cannot be read or imported."""


class _Timeout(BaseException):
    """Raised by the alarm when converting one function takes too long.

    A BaseException so that no `except Exception` inside the converter swallows it.
    """


Entity = collections.namedtuple('Entity', 'qualname name line first_line')
Module = collections.namedtuple('Module', 'filename module_name out_path')


def main(argv=None):
    """Runs the command line.

    Args:
      argv: the arguments without the program name; None reads sys.argv.

    Returns:
      The exit status: 0 on success, 1 when the input cannot be read or imported, 2 on a
      usage error.
    """
    args = _make_parser().parse_args(argv)
    try:
        return args.handler(args)
    except InputError as e:
        print('autograph %s: error: %s' % (args.command, e), file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `autograph dump big.py | head`: the reader left, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _make_parser():
    parser = argparse.ArgumentParser(
        prog='autograph', description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='command', metavar='COMMAND', required=True)

    dump = sub.add_parser(
        'dump', help='print the converted source of the functions of a file or module',
        description='Prints the code AutoGraph generates for every function and method of a'
        ' Python file, of every .py file under a directory, or of an importable module (located'
        ' with importlib, never executed). Each function comes under a header naming its'
        ' file:line; functions that cannot be converted are listed with their reasons at the'
        ' end. Exit status: 0, or 1 when an input cannot be read.')
    dump.add_argument('targets', nargs='+', metavar='PATH_OR_MODULE',
                      help='a .py file, a directory, or a dotted module name such as json.decoder')
    dump.add_argument('--function', '-f', action='extend', nargs='+', default=[],
                      metavar='NAME', help='only these functions (name or Class.method)')
    dump.add_argument('--output', '-o', metavar='DIR',
                      help='write one .py file per input module under DIR instead of printing')
    dump.add_argument('--timeout', type=float, default=20.0, metavar='SECONDS',
                      help='give up converting one function after this long (default 20)')
    dump.add_argument('--json', action='store_true',
                      help='print one JSON summary line per module instead of source')
    dump.set_defaults(handler=_cmd_dump)

    graph = sub.add_parser(
        'graph', help='trace FILE:FUNCTION with runtime.function and print its graph',
        description='Imports FILE (running its module-level code), traces FUNCTION with'
        ' runtime.function(input_signature=...) and prints the graph.')
    graph.add_argument('target', metavar='FILE:FUNCTION',
                       help='a Python file and a function in it, e.g. model.py:step or'
                       ' model.py:Net.call')
    graph.add_argument('--signature', '-s', required=True, metavar='SPECS',
                       help='comma-separated tensor specs, DTYPE[DIM,...]: "float32[None,3],'
                       ' int32[]"; None or ? is an unknown dimension, [] a scalar')
    graph.add_argument('--dot', action='store_true', help='print Graphviz instead of text')
    graph.set_defaults(handler=_cmd_graph)

    survey = sub.add_parser(
        'survey', help='dump every module of a directory, report totals',
        description='Runs `autograph dump --json` over every .py file under DIR (default: the'
        ' standard library of this Python), in subprocesses with a per-module timeout, and'
        ' prints the totals with the reasons for unconverted functions grouped.')
    survey.add_argument('directory', nargs='?', default=None, metavar='DIR')
    survey.add_argument('--timeout', type=float, default=120.0, metavar='SECONDS',
                        help='per-module time limit (default 120)')
    survey.add_argument('--chunk', type=int, default=40, metavar='N',
                        help='modules per subprocess (default 40)')
    survey.add_argument('--examples', type=int, default=1, metavar='N',
                        help='example functions shown per reason group (default 1)')
    survey.add_argument('--records', metavar='FILE',
                        help='append each module\'s result to this JSON-lines file and skip'
                        ' modules already in it (resume; share it between shards)')
    survey.add_argument('--shard', default='0/1', metavar='K/N',
                        help='survey only modules K, K+N, K+2N, ... (run N shards in parallel'
                        ' with one --records file, then once more to print the report)')
    survey.set_defaults(handler=_cmd_survey)
    return parser


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
        return _modules_in_directory(target)
    if os.path.exists(target) or target.endswith('.py') or os.sep in target:
        if not os.path.isfile(target):
            raise InputError('expected a Python file, found no file %r; check the path' % target)
        base = os.path.splitext(os.path.basename(target))[0]
        return [Module(os.path.normpath(target), base, base + '.py')]
    return [_module_by_name(target)]


def _modules_in_directory(root):
    modules = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in sorted(filenames):
            if not name.endswith('.py'):
                continue
            path = os.path.normpath(os.path.join(dirpath, name))
            rel = os.path.relpath(path, root)
            dotted = os.path.splitext(rel)[0].replace(os.sep, '.')
            modules.append(Module(path, dotted, rel))
    if not modules:
        raise InputError('expected .py files under directory %r, found none' % root)
    return modules


def _module_by_name(name):
    try:
        spec = importlib.util.find_spec(name)
    except Exception as e:  # pylint: disable=broad-except  # a parent package failed to import
        raise InputError('could not import module %r (needed to locate it): %s: %s'
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
    out = os.path.join(out, '__init__.py') if spec.submodule_search_locations else out + '.py'
    return Module(origin, name, out)


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
            filename, sys.version_info[0], sys.version_info[1], type(e).__name__, e)) from None
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
      A tuple (source, reason): the generated source and None, or None and a one-line reason.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with _deadline(timeout):
                node, _ = conversion.convert_tree(fn)
                return ag_parser.unparse(node), None
    except _Timeout:
        return None, 'conversion took longer than %gs and was stopped' % timeout
    except errors.ConversionError as e:
        return None, _one_line(str(e))
    except RecursionError:
        return None, 'internal converter error: RecursionError (the code is nested too deeply)'
    except Exception as e:  # pylint: disable=broad-except  # reported, never a traceback
        return None, _one_line('internal converter error: %s: %s' % (type(e).__name__, e))


def _one_line(text):
    return ' '.join(text.split())


# -- dump ---------------------------------------------------------------------------------------

def _cmd_dump(args):
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
                print(json.dumps({'file': module.filename, 'error': str(e)}), flush=True)
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
                              'failures': failed}), flush=True)
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
        source, reason = convert_entity(fn, timeout)
        where = '%s:%d' % (module.filename, entity.line)
        if reason is None:
            chunks.append('# --- %s  %s ---\n%s\n' % (where, entity.qualname, source))
        else:
            failed.append([where, entity.qualname, reason])
    return chunks, failed


def _failure_lines(failures):
    return ''.join('#   %s  %s: %s\n' % tuple(f) for f in failures)


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
    os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write('# Generated by `autograph dump` from %s.\n\n' % module.filename)
        f.write(''.join(chunks))
        if failed:
            f.write('# Not converted:\n' + _failure_lines(failed))
    print('wrote %s (%d converted, %d not converted)' % (
        path, len(chunks), len(failed)))


# -- graph --------------------------------------------------------------------------------------

_SPEC_RE = re.compile(r'\s*([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*(,|$)')


def parse_signature(text, dtypes):
    """Parses "float32[None,3], int32[]" into (dtype name, shape) pairs.

    Args:
      text: comma-separated specs DTYPE[DIM, ...]; a dimension is an int, `None` or `?`;
        `DTYPE[]` is a scalar and a bare `DTYPE` has an unknown shape.
      dtypes: the accepted dtype names.

    Returns:
      A list of (dtype name, shape) with shape a tuple of ints/None, or None.

    Raises:
      InputError: the text is not a list of specs, or names an unknown dtype.
    """
    specs = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _SPEC_RE.match(text, pos)
        if match is None or match.end() == pos:
            raise InputError('expected a signature like "float32[None,3], int32[]", found %r'
                             ' at column %d' % (text, pos + 1))
        name, dims, _ = match.groups()
        if name not in dtypes:
            raise InputError('expected a dtype among %s, found %r in --signature'
                             % (', '.join(sorted(dtypes)), name))
        specs.append((name, None if dims is None else _parse_dims(dims[1:-1], text)))
        pos = match.end()
    return specs


def _parse_dims(dims, text):
    shape = []
    for dim in filter(None, (d.strip() for d in dims.split(','))):
        if dim in ('None', '?', '-1'):
            shape.append(None)
        elif dim.isdigit():
            shape.append(int(dim))
        else:
            raise InputError('expected dimensions that are integers, None or ?, found %r in'
                             ' --signature %r' % (dim, text))
    return tuple(shape)


def load_function(target):
    """Imports FILE and returns its FUNCTION, from a FILE:FUNCTION argument.

    Args:
      target: "path/to/file.py:name" or "path/to/file.py:Class.method".

    Returns:
      The function object.

    Raises:
      InputError: the file cannot be imported or has no such function.
    """
    filename, _, qualname = target.rpartition(':')
    if not filename or not qualname:
        raise InputError('expected FILE.py:FUNCTION, found %r' % target)
    if not os.path.isfile(filename):
        raise InputError('expected a Python file, found no file %r; check the path' % filename)
    name = '_autograph_cli_' + re.sub(r'\W', '_', os.path.splitext(os.path.basename(filename))[0])
    spec = importlib.util.spec_from_file_location(name, filename)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(filename)))
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # pylint: disable=broad-except  # the user's module failed
        raise InputError('could not import %s: %s: %s' % (filename, type(e).__name__, e)) from None
    obj = module
    for part in qualname.split('.'):
        if not hasattr(obj, part):
            names = sorted(k for k, v in vars(module).items()
                           if callable(v) and getattr(v, '__module__', None) == name)
            raise InputError('expected %s to define %s, found no %r; it defines: %s'
                             % (filename, qualname, part, ', '.join(names) or 'no functions'))
        obj = getattr(obj, part)
    return obj


def _cmd_graph(args):
    try:
        import runtime  # pylint: disable=import-outside-toplevel  # autograph never needs it
    except ImportError as e:
        raise InputError('`autograph graph` needs the runtime package: %s' % e) from None
    names = {n for n, v in vars(runtime).items() if isinstance(v, runtime.DType)}
    specs = [runtime.TensorSpec(shape, getattr(runtime, dtype))
             for dtype, shape in parse_signature(args.signature, names)]
    fn = load_function(args.target)
    fn = getattr(fn, 'python_function', fn)  # already a runtime.function: trace its Python
    try:
        concrete = runtime.function(fn, input_signature=specs).get_concrete_function()
    except Exception as e:  # pylint: disable=broad-except  # user code failed while tracing
        print('autograph graph: error: tracing %s with signature %s failed: %s: %s'
              % (args.target, args.signature, type(e).__name__, e), file=sys.stderr)
        return 1
    print(concrete.graph.to_dot() if args.dot else str(concrete.graph))
    return 0


# -- survey -------------------------------------------------------------------------------------

def _run_dump_json(files, timeout):
    """Runs `dump --json` on files in a subprocess; returns {file: record} (partial on failure)."""
    cmd = [sys.executable, '-m', 'autograph', 'dump', '--json', '--timeout',
           str(min(timeout, 20.0))] + files
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1')
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout * len(files),
                              env=env, stdin=subprocess.DEVNULL, check=False)
        out = proc.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or '')
    records = {}
    for line in out.splitlines():
        if line.startswith('{'):
            record = json.loads(line)
            records[record['file']] = record
    return records


def group_reason(reason):
    """Maps a reason for not converting to its group, dropping names, paths and numbers.

    Args:
      reason: a reason string from convert_entity.

    Returns:
      A short string shared by all reasons of the same kind.
    """
    match = re.match(r'(.*?) at \S+:\d+ is not supported$', reason)
    if match:
        return match.group(1) + ' is not supported'
    if reason.startswith('conversion took longer'):
        return 'conversion timed out'
    reason = re.sub(r"'[^']*'|\"[^\"]*\"", "'...'", reason)
    reason = re.sub(r'\b(class|def) \w+', r'\1 NAME', reason)
    reason = re.sub(r'<[\w.]+ object at 0x[0-9a-fA-F]+>', '<object>', reason)
    reason = re.sub(r'\S*[/\\]\S*', 'FILE', reason)
    return re.sub(r'\d+', 'N', reason)[:110]


def _cmd_survey(args):
    root = args.directory or sysconfig.get_paths()['stdlib']
    files = [m.filename for m in _modules_in_directory(root)]
    files.sort(key=_is_test)  # library modules first, then tests: partial runs say more
    k, _, n = args.shard.partition('/')
    if not (k.isdigit() and n.isdigit() and int(k) < int(n)):
        raise InputError('expected --shard K/N with 0 <= K < N, found %r' % args.shard)
    records = _load_records(args.records)
    todo = [f for f in files[int(k)::int(n)] if f not in records]
    for start in range(0, len(todo), args.chunk):
        chunk = todo[start:start + args.chunk]
        got = _run_dump_json(chunk, args.timeout)
        for f in chunk:  # a chunk that timed out or crashed: redo its rest one module at a time
            if f not in got:
                got.update(_run_dump_json([f], args.timeout))
        records.update(got)
        if args.records:
            with open(args.records, 'a', encoding='utf-8') as out:
                out.writelines(json.dumps(got[f]) + '\n' for f in chunk if f in got)
        print('surveyed %d/%d modules' % (min(start + args.chunk, len(todo)), len(todo)),
              file=sys.stderr, flush=True)
    print(_survey_report(root, files, records, args.examples), end='')
    return 0


def _is_test(filename):
    parts = filename.split(os.sep)
    return bool({'test', 'tests', 'idle_test'} & set(parts)) or parts[-1].startswith('test_')


def _load_records(path):
    records = {}
    if path and os.path.exists(path):
        with open(path, encoding='utf-8') as f:
            for line in f:
                try:  # shards append to one file: a torn line is redone, not fatal
                    record = json.loads(line)
                    records[record['file']] = record
                except (ValueError, KeyError, TypeError):
                    continue
    return records


def _survey_report(root, files, records, n_examples):
    lost = [f for f in files if f not in records]
    unreadable = [r for r in records.values() if 'error' in r]
    read = [r for r in records.values() if 'error' not in r]
    n_functions = sum(r['functions'] for r in read)
    failures = [f for r in read for f in r['failures']]
    groups = collections.defaultdict(list)
    for where, qualname, reason in failures:
        groups[group_reason(reason)].append('%s (%s)' % (qualname, os.path.relpath(where, root)))
    lines = ['Survey of %s (Python %d.%d)' % (root, *sys.version_info[:2]), '',
             '| | count |', '|---|---:|',
             '| modules (.py files) | %d |' % len(files),
             '| modules parsed | %d |' % len(read),
             '| modules not valid Python %d.%d (test data) | %d |'
             % (sys.version_info[0], sys.version_info[1], len(unreadable)),
             '| modules that crashed or timed out | %d |' % len(lost),
             '| functions and methods | %d |' % n_functions,
             '| converted | %d |' % (n_functions - len(failures)),
             '| not converted | %d |' % len(failures), '',
             '| reason not converted | functions | example |', '|---|---:|---|']
    for reason, where in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        example = '; '.join(where[:n_examples])
        lines.append('| %s | %d | %s |' % (reason.replace('|', '\\|'), len(where), example))
    for record in unreadable:
        lines.append('unreadable: %s' % record['error'])
    for f in lost:
        lines.append('crashed or timed out: %s' % f)
    return '\n'.join(lines) + '\n'
