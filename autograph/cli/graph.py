"""`autograph graph`: trace FILE:FUNCTION with the runtime and print its graph."""

import importlib
import importlib.util
import inspect
import os
import re
import sys

from autograph.cli.dump import InputError

# The tensor runtime the command traces with. Named as data: autograph itself never imports
# it, and only this command needs it.
_RUNTIME_MODULE = 'runtime'

_SPEC_RE = re.compile(r'\s*([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*(,|$)')

_SIGNATURE_HELP = ('write each spec as DTYPE[DIM,...], e.g. "float32[None,3], int32[]": [] is a'
                   ' scalar, None or ? an unknown dimension')


def parse_signature(text, dtypes):
    """Parses "float32[None,3], int32[]" into (dtype name, shape) pairs.

    Args:
      text: comma-separated specs DTYPE[DIM, ...]; a dimension is an int, `None` or `?`;
        `DTYPE[]` is a scalar.
      dtypes: the accepted dtype names.

    Returns:
      A list of (dtype name, shape) with shape a tuple of ints and None.

    Raises:
      InputError: the text is not a list of specs, names an unknown dtype, leaves out the
        brackets or gives a dimension that is not a non-negative int, None or ?.
    """
    specs = []
    pos = 0
    text = text.strip()
    if not text:
        raise InputError('expected at least one spec in --signature, found none; '
                         + _SIGNATURE_HELP)
    while pos < len(text):
        match = _SPEC_RE.match(text, pos)
        if match is None or match.end() == pos:
            raise InputError('expected a signature like "float32[None,3], int32[]", found %r'
                             ' at column %d' % (text, pos + 1))
        name, dims, _ = match.groups()
        if name not in dtypes:
            raise InputError('expected a dtype among %s, found %r in --signature'
                             % (', '.join(sorted(dtypes)), name))
        if dims is None:
            raise InputError('expected a shape in brackets after %r in --signature, found none;'
                             ' write %s[] for a scalar or %s[None] for a vector of any length'
                             % (name, name, name))
        specs.append((name, _parse_dims(dims[1:-1], text)))
        pos = match.end()
    return specs


def _parse_dims(dims, text):
    shape = []
    for dim in (d.strip() for d in dims.split(',')) if dims.strip() else ():
        if dim in ('None', '?'):
            shape.append(None)
        elif dim.isdigit():
            shape.append(int(dim))
        else:
            hint = ' (an unknown dimension is None or ?, not -1)' if dim == '-1' else ''
            raise InputError('expected dimensions that are integers >= 0, None or ?, found %r'
                             ' in --signature %r%s' % (dim, text, hint))
    return tuple(shape)


def load_function(target):
    """Imports FILE and returns its FUNCTION, from a FILE:FUNCTION argument.

    A method (FILE:Class.method) is bound to a fresh instance when the class can be built
    without arguments.

    Args:
      target: "path/to/file.py:name" or "path/to/file.py:Class.method".

    Returns:
      The function (or bound method) object.

    Raises:
      InputError: the file cannot be imported, has no such function, or the class of the
        method needs constructor arguments.
    """
    filename, _, qualname = target.rpartition(':')
    if not filename or not qualname:
        raise InputError('expected FILE.py:FUNCTION, found %r' % target)
    if not os.path.isfile(filename):
        raise InputError('expected a Python file, found no file %r; check the path' % filename)
    name = '_autograph_cli_' + re.sub(r'\W', '_', os.path.splitext(os.path.basename(filename))[0])
    spec = importlib.util.spec_from_file_location(name, filename)
    if spec is None:
        raise InputError('expected a Python file (.py), found %r' % filename)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(filename)))
    try:
        spec.loader.exec_module(module)
    except BaseException as e:  # pylint: disable=broad-except  # the user's module failed
        if isinstance(e, KeyboardInterrupt):
            raise
        raise InputError('could not import %s: %s: %s' % (filename, type(e).__name__, e)) from None
    obj = module
    parts = qualname.split('.')
    for i, part in enumerate(parts):
        if not hasattr(obj, part):
            names = sorted(k for k, v in vars(module).items()
                           if callable(v) and getattr(v, '__module__', None) == name)
            raise InputError('expected %s to define %s, found no %r; it defines: %s'
                             % (filename, qualname, part, ', '.join(names) or 'no functions'))
        owner, obj = obj, getattr(obj, part)
        if inspect.isclass(owner) and i == len(parts) - 1 and inspect.isfunction(obj):
            obj = _bind_method(owner, obj, filename, qualname)
    if not callable(obj):
        raise InputError('expected %s in %s to be a function, found a value of type %s'
                         % (qualname, filename, type(obj).__name__))
    return obj


def _bind_method(cls, method, filename, qualname):
    """Binds `method` to a fresh `cls()`, or says how to make the method traceable."""
    try:
        instance = cls()
    except Exception as e:  # pylint: disable=broad-except  # the user's constructor
        raise InputError(
            'expected %s in %s to be callable on a fresh %s(), but %s() failed: %s: %s; add a'
            ' module-level function that builds the instance and calls the method, e.g.'
            ' `def traced(x): return %s(...).%s(x)`, and pass FILE:traced'
            % (qualname, filename, cls.__name__, cls.__name__, type(e).__name__, e,
               cls.__name__, method.__name__)) from None
    return getattr(instance, method.__name__)


def cmd_graph(args):
    """Runs `autograph graph` (see the parser in autograph/cli/__init__.py)."""
    try:
        runtime = importlib.import_module(_RUNTIME_MODULE)
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
        raise InputError('tracing %s with signature %s failed: %s: %s'
                         % (args.target, args.signature, type(e).__name__, e)) from None
    print(concrete.graph.to_dot() if args.dot else str(concrete.graph))
    return 0
