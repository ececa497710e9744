"""The public API: convert, converted_call, to_code, do_not_convert and verbosity."""

import functools
import os
import sys
import threading
import types
import warnings

from autograph import errors
from autograph.impl import conversion
from autograph.impl import error_mapping
from autograph.impl import logs
from autograph.impl import traceback_filter
from autograph.impl.logs import get_verbosity  # noqa: F401 - part of this module's API
from autograph.impl.logs import set_verbosity
from autograph.impl.function_wrappers import ConversionOptions
from autograph.impl.function_wrappers import FunctionScope
from autograph.impl.function_wrappers import STANDARD_OPTIONS
from autograph.impl.function_wrappers import with_function_scope
from autograph import backends
from autograph import operators
from autograph.operators import nest
from autograph.operators import py_builtins
from autograph.operators import list_frames
from autograph.pyct import inspect_utils
from autograph.pyct import parser

_log_state = logs.state  # [verbosity, ...]: read on every converted call

# Module names (and their submodules) whose functions converted_call never converts. Users
# may add to it, directly or through do_not_convert_module. The modules that registered
# backends own (`Backend.owned_modules`) are never converted either.
DO_NOT_CONVERT_MODULES = {'autograph', 'numpy', 'gast', 'astunparse', 'pytest',
                          '_pytest', 'pluggy', 'hypothesis'}
_OWN_DO_NOT_CONVERT = frozenset(DO_NOT_CONVERT_MODULES)  # those the user did not add

_ENV_STRICT = 'AUTOGRAPH_STRICT'

# module name -> whether converted_call leaves its functions alone; invalidated on change
_module_decisions = {}
# (file, first line, name) of functions whose conversion failed and was reported already, so
# that each warns once. Not keyed on code objects: equal code from two files compares equal.
_warned = set()

# The names of `ag__` in generated code (autograph.impl.ag_namespace's `__all__`): the
# operators plus converted_call and the function-scope helpers.
AG_NAMES = (
    'ConversionOptions', 'FunctionScope', 'Symbol', 'Undefined', 'UndefinedReturnValue', 'and_',
    'assert_stmt', 'compare', 'converted_call', 'evaluated', 'for_stmt', 'fstring', 'get_item', 'get_slice',
    'if_exp',
    'if_stmt', 'in_', 'is_', 'is_not',
    'ld', 'ldu', 'list_append', 'list_comprehension', 'list_concat', 'list_method', 'list_plus', 'list_options', 'list_pop', 'method', 'not_', 'not_in', 'or_', 'raising',
    'reduce_generator', 'repeat', 'set_display', 'set_item', 'set_nested_item', 'while_stmt',
    'with_function_scope', 'write_through')
# ConversionOptions -> the `ag__` namespace object for those options (see _namespace_for)
_NAMESPACES = {}
_NAMESPACES_LOCK = threading.Lock()

# Nested converted calls of one function beyond which a call with a staged argument is an
# error: the recursion depends on a staged value, so staging it would never end. Plain
# Python recursion has no limit here beyond Python's own.
MAX_STAGED_RECURSION = 50


class _Depths(threading.local):
    """Per thread: code object of a converted function -> its current nesting depth."""

    def __init__(self):
        super().__init__()
        self.by_code = {}
        self.deepened_from = 0  # the recursion limit before _deepen_recursion_limit, or 0


_depths = _Depths()

_FunctionType = types.FunctionType
_MethodType = types.MethodType


def do_not_convert_module(name):
    """Adds a module (and its submodules) to the modules converted_call leaves alone.

    Args:
      name: a module name, e.g. 'mylib'.
    """
    DO_NOT_CONVERT_MODULES.add(name)
    _module_decisions.clear()


def _module_is_allowlisted(module_name):
    decision = _module_decisions.get(module_name)
    if decision is None:
        if module_name is None:
            decision = False
        else:
            top = module_name.partition('.')[0]
            # the backends loaded so far first: the entry points are scanned (discovery) only
            # for a module that nothing else decides on
            decision = (
                backends.owned_by_loaded(top)
                or any(p in DO_NOT_CONVERT_MODULES for p in _prefixes(module_name))
                or inspect_utils.is_stdlib_module(module_name)
                or top in backends.owned_modules())
        _module_decisions[module_name] = decision
    return decision


def _prefixes(module_name):
    """'a', 'a.b', 'a.b.c' for 'a.b.c': the module and the packages it is in."""
    parts = module_name.split('.')
    return ['.'.join(parts[:i]) for i in range(1, len(parts) + 1)]


backends.on_change(_module_decisions.clear)


def do_not_convert(func=None):
    """Marks a function so that AutoGraph never converts it (TensorFlow's signature).

    Args:
      func: a function; when None, returns the decorator.

    Returns:
      `func` itself, marked (or a marked wrapper when `func` does not accept attributes).
    """
    if func is None:
        return do_not_convert
    try:
        func.__ag_do_not_convert__ = True
        return func
    except (AttributeError, TypeError):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)
        wrapper.__ag_do_not_convert__ = True
        return wrapper


def _strict(strict):
    if strict is not None:
        return strict
    return os.environ.get(_ENV_STRICT, '0') not in ('', '0', 'false', 'False')


def _report_unconvertible(fn, error, strict):
    """Warns once per function (or raises when strict) that `fn` runs unconverted.

    A misused directive is always raised: unconverted, the function would silently run
    without it.
    """
    if isinstance(error, errors.DirectiveError):
        raise error.with_traceback(None)
    site = inspect_utils.getdefinition_site(fn)
    head = 'AutoGraph could not convert %s (defined at %s): %s.' % (fn.__qualname__, site, error)
    if _strict(strict):
        raise errors.ConversionError(
            head + ' Rewrite it without that construct, or decorate it with'
            ' @autograph.do_not_convert to run it as plain Python.') from None
    message = head + (' It runs unconverted, as plain Python. To silence this, decorate it'
                      ' with @autograph.do_not_convert; to make it an error, pass strict=True'
                      ' or set AUTOGRAPH_STRICT=1.')
    key = _location_key(fn.__code__)
    if key in _warned:
        return
    _warned.add(key)
    warnings.warn(message, stacklevel=_user_stacklevel())
    logs.warning('%s', message)


def _location_key(code):
    return code.co_filename, code.co_firstlineno, code.co_name


def _user_stacklevel():
    """Returns the warnings stacklevel of the innermost frame outside autograph and backends."""
    # Level 2 is the caller of warnings.warn's caller.
    _, hops = inspect_utils.first_user_frame(sys._getframe(2))
    return 2 + hops


def _namespace_for(options):
    """Returns the `ag__` namespace for converted code that runs with `options`.

    It is made here, from the modules `import autograph` loads, rather than by importing
    autograph.impl.ag_namespace (whose `for_options` this is): that import was a thirtieth
    of a small function's first call in a fresh process.

    Args:
      options: a ConversionOptions.

    Returns:
      A namespace object with the names of AG_NAMES; its FunctionScope is a subclass whose
      `options` are `options`.
    """
    ns = _NAMESPACES.get(options)
    if ns is not None:
        return ns
    with _NAMESPACES_LOCK:
        ns = _NAMESPACES.get(options)
        if ns is None:
            own = {'ConversionOptions': ConversionOptions, 'converted_call': converted_call,
                   'FunctionScope': FunctionScope, 'with_function_scope': with_function_scope}
            names = {name: own[name] if name in own else getattr(operators, name)
                     for name in AG_NAMES}
            if options != STANDARD_OPTIONS:
                scope_cls = type('FunctionScope', (FunctionScope,),
                                 {'__slots__': (), 'options': options})
                names['FunctionScope'] = scope_cls
                names['with_function_scope'] = functools.partial(
                    with_function_scope, scope_cls=scope_cls)
            ns = types.SimpleNamespace(**names)
            _NAMESPACES[options] = ns
    return ns


def _convert_function(fn, options, strict=None):
    """Returns the converted version of a Python function, or `fn` when it cannot convert."""
    converted = conversion.cached_instance(fn, options)
    if converted is not None:
        return converted
    try:
        factory = conversion.get_factory(fn)
    except errors.ConversionError as e:
        _report_unconvertible(fn, e, strict)
        return fn
    converted = conversion.instantiate(factory, fn, _namespace_for(options))
    conversion.remember_instance(fn, options, converted)
    return converted


def _short_repr(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + '...'


@traceback_filter.boundary
def convert(fn=None, *, recursive=True, strict=None):
    """Converts a function so that its control flow can be staged.

    Usable as `@convert`, `@convert(recursive=False)` or `convert(fn)`. The conversion is
    cached per code object; each call binds it to `fn`'s own globals, closure and defaults.

    Args:
      fn: a function, method, functools.partial or callable object; None to get a
        decorator.
      recursive: whether functions called by `fn` are converted too.
      strict: raise ConversionError instead of warning when `fn` cannot be converted;
        None reads AUTOGRAPH_STRICT.

    Returns:
      The converted callable (the original when it cannot be converted).

    Raises:
      ConversionError: `fn` cannot be converted and strict mode is on.
      TypeError: `fn` is not callable (e.g. the result of calling a function).
    """
    if fn is None:
        return functools.partial(convert, recursive=recursive, strict=strict)
    if not callable(fn):
        raise TypeError(
            'autograph.convert expected a callable (a function, method or callable object), '
            'found %s: %s. convert takes a function: pass the function itself, not the '
            'result of calling it.' % (type(fn).__name__, _short_repr(fn)))
    options = ConversionOptions(recursive=recursive, user_requested=True)
    if type(fn) is _FunctionType:
        if getattr(fn, '__ag_converted__', False) or getattr(fn, '__ag_do_not_convert__', False):
            return fn
        return _convert_function(fn, options, strict)
    if isinstance(fn, _MethodType):
        return _MethodType(convert(fn.__func__, recursive=recursive, strict=strict),
                           fn.__self__)
    if isinstance(fn, functools.partial):
        return functools.partial(convert(fn.func, recursive=recursive, strict=strict),
                                 *fn.args, **fn.keywords)
    if isinstance(fn, type) or inspect_utils.is_builtin(fn):
        return fn
    wrapped = _python_function_of(fn)
    if wrapped is not None:
        return convert(wrapped, recursive=recursive, strict=strict)
    call = getattr(type(fn), '__call__', None)
    if type(call) is _FunctionType:
        converted_call_method = convert(call, recursive=recursive, strict=strict)
        return functools.partial(converted_call_method, fn)
    _refuse_transformed(fn)
    return fn


def _refuse_transformed(fn):
    """Raises for a user function that a backend's transformation already wraps.

    `@autograph.convert` above `@jax.jit` gets the jitted function: a tensor library's object
    (its type is in a module a backend owns) wrapping the user's function (`__wrapped__`).
    The library traces the original function, so converting the wrapper would change
    nothing; the user sees the library's error for Python control flow instead. The fix is
    the other order.
    """
    wrapped = getattr(fn, '__wrapped__', None)
    owner = (getattr(type(fn), '__module__', None) or '').split('.')[0]
    if type(wrapped) is not _FunctionType or not (
            backends.owned_by_loaded(owner) or owner in backends.owned_modules()):
        return
    raise errors.ConversionError(
        "autograph.convert got '{}' already wrapped by {}.{} (a transformation such as "
        'jax.jit): the transformation traces the original function, so converting the '
        'wrapper changes nothing. Put convert inside the transformation: '
        'jax.jit(autograph.convert({})), or as decorators @jax.jit above @autograph.convert '
        '(for JAX, autograph.backends.jax.jit({}) does both).'.format(
            wrapped.__qualname__, type(fn).__module__, type(fn).__qualname__,
            wrapped.__name__, wrapped.__name__))


def _python_function_of(obj):
    """The Python function that a wrapper object stands for, or None.

    A callable object that wraps a Python function (such as the runtime's tf.function)
    names it in its `__ag_python_function__` attribute; convert and to_code then convert that
    function rather than the wrapper's own `__call__`.
    """
    return getattr(type(obj), '__ag_python_function__', None) and obj.__ag_python_function__


def _call_unconverted(f, args, kwargs):
    if kwargs:
        return f(*args, **kwargs)
    return f(*args)


def _call_left_alone(func, args, kwargs):
    """Calls a function that autograph leaves unconverted (`func`). An error it raises on
    staged arguments says that it ran unconverted and why: a staged `if` inside it fails as
    Python control flow, which the user's function (converted) would have staged."""
    try:
        return _call_unconverted(func, args, kwargs)
    except Exception as error:
        reason = _left_alone_reason(func.__module__)
        if reason and _has_staged(args, kwargs):
            errors.add_note(error, (
                'autograph ran {name} (defined at {site}) unconverted, on staged arguments: '
                '{reason}. Python control flow on a staged value inside it (an if, while or '
                'for) cannot be staged there; to stage it, copy the function into your own '
                'code, which autograph converts.').format(
                    name=func.__module__ + '.' + func.__qualname__,
                    site=inspect_utils.getdefinition_site(func),
                    reason=reason))
        raise


def _left_alone_reason(module_name):
    """Why functions of a module are left unconverted, in the user's words, or None where
    a note would not help (the tensor libraries, numpy, autograph itself)."""
    if inspect_utils.is_stdlib_module(module_name):
        return ('it belongs to the standard library (module {}), which autograph leaves as '
                'plain Python, as TensorFlow does'.format(module_name))
    for prefix in _prefixes(module_name):
        if prefix in DO_NOT_CONVERT_MODULES and prefix not in _OWN_DO_NOT_CONVERT:
            return ('its module {} is one that autograph was told to leave alone '
                    '(autograph.impl.api.do_not_convert_module)'.format(prefix))
    return None


def to_graph(entity, recursive=True, experimental_optional_features=None):
    """TensorFlow's `tf.autograph.to_graph`: the converted function (as `convert`).

    Args:
      entity: the Python function (or method) to convert.
      recursive: whether functions it calls are converted too.
      experimental_optional_features: TensorFlow's optional conversion features; here every
        feature is always on, so only None or an empty collection is accepted.

    Returns:
      The converted callable.

    Raises:
      ValueError: for optional features that this converter does not have.
    """
    if experimental_optional_features:
        raise ValueError('expected experimental_optional_features=None, found %r; this'
                         ' converter has no optional features (all are always on)'
                         % (experimental_optional_features,))
    return convert(entity, recursive=recursive)


def converted_call(f, args, kwargs, caller_fn_scope=None, options=None):
    """Calls `f`, converting it first when it is user code.

    Builtins run through their operator overloads (so that e.g. `len` works on staged
    values); functions from numpy, autograph, the standard library, the modules that
    backends own and the do-not-convert modules run as they are; classes run their constructors unconverted.

    Args:
      f: the callable.
      args: tuple of positional arguments.
      kwargs: dict of keyword arguments, or None.
      caller_fn_scope: the FunctionScope of the calling converted function, or None.
      options: ConversionOptions; by default those of the caller.

    Returns:
      What `f` returns.
    """
    if options is None:
        options = caller_fn_scope.callopts if caller_fn_scope is not None else STANDARD_OPTIONS
    if _log_state[0] >= logs.CALLS:
        logs.log(logs.CALLS, 'Converted call: %s\n    args: %s\n    kwargs: %s\n', f, args,
                 kwargs)
    return _converted_call(f, args, kwargs, options)


def _converted_call(f, args, kwargs, options):
    ftype = type(f)
    if ftype is _FunctionType:
        return _call_function(f, f, args, kwargs, options)
    if ftype is _MethodType:
        func = f.__func__
        if type(func) is _FunctionType:
            return _call_function(func, f, (f.__self__,) + tuple(args), kwargs, options)
        return _call_unconverted(f, args, kwargs)
    if isinstance(f, functools.partial):
        overload = py_builtins.replaced_builtin(f)
        if overload is not None and _has_staged(args, kwargs):
            return _call_unconverted(overload, args, kwargs)
        inner, p_args, p_kwargs = inspect_utils.unwrap_partial(f)
        merged = {**p_kwargs, **(kwargs or {})}
        return _converted_call(inner, p_args + tuple(args), merged or None, options)
    if inspect_utils.is_builtin(f) or isinstance(f, type):
        list_frames.check_python_iterator_step(f)
        staged = py_builtins.staged_method(f, args, kwargs)
        if staged is not None:
            return staged[0]
        try:
            overload = py_builtins.BUILTIN_FUNCTIONS_MAP.get(f)
        except TypeError:
            overload = None
        return _call_unconverted(overload or f, args, kwargs)
    call = getattr(ftype, '__call__', None)
    if type(call) is _FunctionType and not _module_is_allowlisted(ftype.__module__):
        return _call_function(call, f, (f,) + tuple(args), kwargs, options)
    return _call_unconverted(f, args, kwargs)


# A converted call costs about FRAMES_PER_LEVEL Python frames where the plain call costs one
# (converted_call, the converted function, and the operators of a staged or Python `if`
# around the recursive call). A function nested _DEEP calls deep in itself gets Python's
# recursion limit times FRAMES_PER_LEVEL until that call returns, so that converted recursion
# goes about as deep as plain recursion does (and a staged one reaches MAX_STAGED_RECURSION).
FRAMES_PER_LEVEL = 6
_DEEP = 20
# A call with staged arguments deepens at _DEEP_STAGED, by STAGED_FACTOR more.
_DEEP_STAGED = 5
STAGED_FACTOR = 3


def _deepen_recursion_limit(staged):
    """Raises Python's recursion limit for deep converted recursion (see FRAMES_PER_LEVEL).

    Args:
        staged: whether the call has staged arguments: staging a branch per level costs a
            backend's tracing frames too (JAX's checks and cond, several times a plain
            call's), so the limit is raised further, for the StagingError to come first.

    Returns:
        The limit to restore, or 0 when it was deepened already (by an outer call).
    """
    limit = sys.getrecursionlimit()
    if _depths.deepened_from:
        return 0
    _depths.deepened_from = limit
    sys.setrecursionlimit(limit * FRAMES_PER_LEVEL * (STAGED_FACTOR if staged else 1))
    return limit


def _staged_recursion_error(func):
    site = inspect_utils.getdefinition_site(func)
    return errors.StagingError(
        '{name} (defined at {site}) called itself more than {bound} calls deep with a staged '
        'argument: its recursion depends on a staged value, and staging both branches of a '
        'staged condition stages the recursive call again, without end. Use a loop (a while '
        'loop, or a for loop over a staged range) instead of the recursion, or make the '
        'recursion depth a Python value.'.format(
            name=func.__qualname__, site=site, bound=MAX_STAGED_RECURSION))


def _has_staged(args, kwargs):
    for value in nest.flatten((args, kwargs or {})):
        if backends.backend_for(value) is not None:
            return True
    return False


def _call_function(func, original, args, kwargs, options):
    """Calls Python function `func` converted (or `original` when it must not convert)."""
    del original
    if not options.recursive and not options.user_requested:
        return _call_unconverted(func, args, kwargs)
    converted = conversion.cached_instance(func, options)
    code = func.__code__
    if converted is None:  # else it was converted before, so it passed the checks below
        if (getattr(func, '__ag_converted__', False)
                or getattr(func, '__ag_do_not_convert__', False)
                or (not options.user_requested and _module_is_allowlisted(func.__module__))):
            return _call_left_alone(func, args, kwargs)
        factory = conversion.cached_factory(code)
        if factory is not None:  # the common case: a closure (not in the instance cache)
            converted = conversion.instantiate(factory, func, _namespace_for(options))
        elif _location_key(code) in _warned or error_mapping.is_generated(code):
            # Functions defined inside converted code were converted along with it.
            return _call_unconverted(func, args, kwargs)
        else:
            converted = _convert_function(func, options)
    # Count the nesting of this function (inline: a helper frame per call would lower the
    # depth that plain Python recursion reaches).
    depths = _depths.by_code
    depth = depths.get(code, 0) + 1
    if depth > MAX_STAGED_RECURSION and _has_staged(args, kwargs):
        raise _staged_recursion_error(func)
    depths[code] = depth
    if depth == _DEEP_STAGED and _has_staged(args, kwargs):
        deepened = _deepen_recursion_limit(True)  # earlier: a staged level costs more frames
    else:
        deepened = depth == _DEEP and _deepen_recursion_limit(False)
    try:
        return converted(*args, **kwargs) if kwargs else converted(*args)
    finally:
        if deepened:
            sys.setrecursionlimit(deepened)
            _depths.deepened_from = 0
        if depth == 1:
            del depths[code]
        else:
            depths[code] = depth - 1


def to_code(fn, recursive=False):
    """Returns the source code that AutoGraph generates for a function.

    The code refers to the operators through `ag__`; it runs on its own with
    `ag__ = autograph.impl.ag_namespace`.

    Args:
      fn: a function, method, or callable object.
      recursive: unused (kept for TensorFlow compatibility): only `fn` itself is shown.

    Returns:
      The source, as a string.

    Raises:
      ConversionError: `fn` cannot be converted.
    """
    del recursive
    if isinstance(fn, _MethodType):
        fn = fn.__func__
    if isinstance(fn, functools.partial):
        fn = inspect_utils.unwrap_partial(fn)[0]
    wrapped = _python_function_of(fn) if type(fn) is not _FunctionType else None
    if wrapped is not None:
        return to_code(wrapped)
    if type(fn) is not _FunctionType:
        call = getattr(type(fn), '__call__', None)
        if type(call) is not _FunctionType:
            raise errors.ConversionError(
                'to_code expected a Python function, found %r; pass a def or lambda' % (fn,))
        fn = call
    return conversion.converted_source(fn)


__all__ = ['convert', 'to_graph', 'converted_call', 'to_code', 'do_not_convert', 'set_verbosity',
           'do_not_convert_module', 'DO_NOT_CONVERT_MODULES']
