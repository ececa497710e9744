"""Overloads of Python builtins: the builtin itself for Python values, backend hooks if staged."""

import builtins
import math
import numbers
import os
import sys
import threading
import types

from autograph.errors import StagingError
from autograph.errors import UnknownSizeError
from autograph.operators import element_lists
from autograph.operators import exceptions
from autograph.operators import filters
from autograph.operators import logical
from autograph.operators import staged_loops
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for
from autograph.operators.backends import first_backend
from autograph.pyct import inspect_utils

_PRINT_KWARGS = frozenset({'sep', 'end', 'file', 'flush'})


def _call(builtin, args, kwargs):
    """Calls `builtin`, through the backend's `call_builtin` when an argument is staged.

    Only the top-level arguments are inspected. Without a staged argument, or when the backend
    has no overload (no hook, or NotImplementedError), the builtin runs as in plain Python, so
    results and exceptions are the builtin's own. A `filter` of converted code given to
    list, sorted, sum, any, all, max or min runs as the loop it stands for (filters.py).
    """
    if args and type(args[0]) is filters.Filtered:
        reduced = filters.reduce(builtin, args, kwargs)
        if reduced is not None:
            return reduced[0]
        if builtin in (builtins.list, builtins.sorted):
            args = (filters.as_list(args[0]),) + args[1:]
    backend = first_backend(args)
    if backend is None and kwargs:
        backend = first_backend(kwargs.values())
    if backend is None and builtin in (_MIN, _MAX):
        args, kwargs = element_lists.elements_of(args, kwargs)
        backend = first_backend(args) if len(args) > 1 else None
    if backend is not None:
        try:
            return backend.call_builtin(builtin, args, kwargs)
        except NotImplementedError:
            pass
    if builtin is builtins.sorted:
        result = element_lists.sorted_call(args, kwargs)
        if result is not None:
            return result
    return builtin(*args, **kwargs)


def staged_method(f, args, kwargs):
    """`(result,)` of the backend's `call_method` for `f`, a builtin method bound to a staged
    value (`t.item()`), or None: `f` runs as it is.

    Args:
        f: a builtin function or method.
        args: its positional arguments.
        kwargs: its keyword arguments, or None.
    """
    owner = getattr(f, '__self__', None)
    if type(owner) in PYTHON_TYPES or isinstance(owner, types.ModuleType):
        return None
    backend = backend_for(owner)
    if backend is None:
        return None
    try:
        return (backend.call_method(owner, f.__name__, tuple(args), kwargs or {}),)
    except NotImplementedError:
        return None


def abs_(*args, **kwargs):
    """Overload of `abs`.

    Args:
        *args: positional arguments of `abs`.
        **kwargs: keyword arguments of `abs`.

    Returns:
        `abs(...)`, or the backend's overload for a staged argument.
    """
    return _call(builtins.abs, args, kwargs)


def float_(*args, **kwargs):
    """Overload of `float`; see `abs_` for the arguments and the result."""
    return _call(builtins.float, args, kwargs)


def int_(*args, **kwargs):
    """Overload of `int`; see `abs_` for the arguments and the result."""
    return _call(builtins.int, args, kwargs)


def len_(*args, **kwargs):
    """Overload of `len`; see `abs_` for the arguments and the result."""
    return _call(builtins.len, args, kwargs)


def range_(*args, **kwargs):
    """Overload of `range`: a staged bound gives the backend's staged range.

    Args:
        *args: positional arguments of `range`.
        **kwargs: keyword arguments of `range`.

    Returns:
        `range(...)`, or the backend's staged range, which `for_stmt` stages.
    """
    if any(arg is None for arg in args):
        raise UnknownSizeError(
            'range() got None where an integer was expected. A dimension of a static shape '
            'is None when it is unknown while tracing (x.shape[0] with an input_signature '
            'of shape [None], for instance): loop over a staged range of the run-time size '
            'instead, e.g. tf.range(tf.shape(x)[0]).')
    return _call(builtins.range, args, kwargs)


def enumerate_(*args, **kwargs):
    """Overload of `enumerate`: over a staged iterable it gives what a staged loop iterates.

    Args:
        *args: positional arguments of `enumerate` (iterable, start).
        **kwargs: keyword arguments of `enumerate` (iterable, start).

    Returns:
        `enumerate(...)` for Python values; for a staged iterable a StagedSequence whose
        element i is `(start + i, iterable[i])`.

    Raises:
        StagingError: if the backend cannot iterate over the staged iterable.
    """
    try:
        iterable, start = _enumerate_params(*args, **kwargs)
    except TypeError:  # bad arguments: let enumerate raise its own error
        return builtins.enumerate(*args, **kwargs)
    staged = staged_loops.staged_enumerate(iterable, start)
    if staged is not None:
        return staged
    return _call(builtins.enumerate, args, kwargs)


def _enumerate_params(iterable, start=0):
    return iterable, start


def zip_(*args, **kwargs):
    """Overload of `zip`: over staged iterables it gives what a staged loop iterates.

    Args:
        *args: the iterables.
        **kwargs: keyword arguments of `zip` (`strict`), for Python values only.

    Returns:
        `zip(...)` for Python values; when an argument is staged, a StagedSequence whose
        element i is the tuple of the arguments' elements i, as long as the shortest argument.

    Raises:
        StagingError: for `strict=` with staged arguments, for a Python iterable zipped with
            staged ones, or if the backend cannot iterate over an argument.
    """
    if kwargs:
        if staged_loops.staged_zip(args) is not None:
            raise StagingError(
                'zip({}) of staged values is not supported: the lengths of staged values '
                'are known only when the staged computation runs. Drop the keyword '
                'arguments.'.format(', '.join('{}=...'.format(k) for k in kwargs)))
        return builtins.zip(*args, **kwargs)
    staged = staged_loops.staged_zip(args)
    if staged is not None:
        return staged
    return builtins.zip(*args)


# The builtins as Python made them: a library may replace `builtins.min` and `max` for a while
# (see replaced_builtin), and the backends' overloads are keyed on these.
_MIN, _MAX = builtins.min, builtins.max


def min_(*args, **kwargs):
    """Overload of `min`; see `abs_` for the arguments and the result."""
    return _call(_MIN, args, kwargs)


def max_(*args, **kwargs):
    """Overload of `max`; see `abs_` for the arguments and the result."""
    return _call(_MAX, args, kwargs)


def sum_(*args, **kwargs):
    """Overload of `sum`; see `abs_` for the arguments and the result."""
    return _call(builtins.sum, args, kwargs)


def any_(*args, **kwargs):
    """Overload of `any`; see `abs_` for the arguments and the result, and `_truth_fold` for
    a Python list or tuple holding staged values."""
    folded = _truth_fold(builtins.any, args, kwargs)
    return _call(builtins.any, args, kwargs) if folded is None else folded[0]


def all_(*args, **kwargs):
    """Overload of `all`; see `abs_` for the arguments and the result, and `_truth_fold` for
    a Python list or tuple holding staged values (`all((n, a, r))`)."""
    folded = _truth_fold(builtins.all, args, kwargs)
    return _call(builtins.all, args, kwargs) if folded is None else folded[0]


def _truth_fold(builtin, args, kwargs):
    """`(result,)` of `all(items)` or `any(items)` for a Python list or tuple holding staged
    values, or None (the builtin runs, or the backend's overload for a staged argument).

    The builtin would ask each staged item for a Python bool. All items are evaluated
    already, so the result does not depend on their order: a Python item with the deciding
    truth value (false for `all`, true for `any`) gives Python's bool; otherwise the staged
    `and` (`or`) of the staged items' truth values (`not not x`, a staged bool).
    """
    if kwargs or len(args) != 1 or type(args[0]) not in (list, tuple):
        return None
    staged = [x for x in args[0] if type(x) not in PYTHON_TYPES and backend_for(x) is not None]
    if not staged:
        return None
    deciding = builtin is builtins.any
    if any(bool(x) is deciding for x in args[0] if all(x is not s for s in staged)):
        return (deciding,)
    backend = backend_for(staged[0])
    combine = backend.logical_or if deciding else backend.logical_and
    result = logical.not_(logical.not_(staged[0]))
    for item in staged[1:]:
        result = combine(result, logical.not_(logical.not_(item)))
    return (result,)


def print_(*objects, **kwargs):
    """Overload of `print`.

    With no staged object this is `builtins.print(*objects, **kwargs)` itself (same output,
    `sep`, `end`, `file`, `flush` and errors). With a staged object the backend's `print_` hook
    prints at every execution of the staged computation, like `tf.print`.

    Args:
        *objects: the objects to print.
        **kwargs: `sep`, `end`, `file`, `flush`, as for `print`.

    Returns:
        None, or what the backend's `print_` returns.

    Raises:
        StagingError: for staged objects when the backend has no `print_` hook, or when `file`
            is given (staged printing writes to standard output only).
    """
    backend = first_backend(objects)
    if backend is None or not _PRINT_KWARGS.issuperset(kwargs):
        return builtins.print(*objects, **kwargs)
    if kwargs.get('file') is not None:
        raise StagingError(
            'print(..., file={!r}) of a staged value is not supported: staged printing writes '
            'to standard output at every run. Drop the file argument.'.format(kwargs['file']))
    sep = kwargs.get('sep')
    end = kwargs.get('end')
    return backend.print_(*objects, sep=' ' if sep is None else sep, end='\n' if end is None else end)


# The overload that converted code calls for each builtin.
BUILTIN_FUNCTIONS_MAP = {
    builtins.abs: abs_,
    builtins.all: all_,
    builtins.any: any_,
    builtins.enumerate: enumerate_,
    builtins.filter: filters.filter_,
    builtins.float: float_,
    builtins.int: int_,
    builtins.len: len_,
    builtins.max: max_,
    builtins.min: min_,
    builtins.print: print_,
    builtins.range: range_,
    builtins.sum: sum_,
    builtins.zip: zip_,
}


def str_(*args, **kwargs):
    """Overload of `str`: of one staged value, its text formatted at run time.

    Args:
        *args: positional arguments of `str`.
        **kwargs: keyword arguments of `str`.

    Returns:
        `str(...)`, or for one staged argument a StagedMessage (see
        `exceptions.str_of`): printed and raised with the run-time value.
    """
    if len(args) == 1 and not kwargs:
        return exceptions.str_of(args[0])
    return builtins.str(*args, **kwargs)


BUILTIN_FUNCTIONS_MAP[builtins.str] = str_


def replaced_builtin(f):
    """The overload of the builtin that `f` stands in for while a library has replaced the
    builtin with it (`builtins.max = f`), or None. torch's non-strict export does so for
    `max` and `min` while it traces, with a version that handles two arguments or one
    iterable; converted code calls the overload instead on staged arguments, which stages
    them all, as it does without the replacement (on Python values the replacement runs)."""
    for original, overload in BUILTIN_FUNCTIONS_MAP.items():
        if f is getattr(builtins, original.__name__, None) and f is not original:
            return overload
    return None


class _Guards(threading.local):
    """Per thread: the last `isinstance` of a staged value against number types that was
    False, as (text, file, line), until a function scope reports it (`staged_guard_note`)."""
    last = None


GUARDS = _Guards()
_NUMBER_TYPES = (int, float, complex, bool, numbers.Number, numbers.Integral, numbers.Real)


def isinstance_(obj, classinfo):
    """`isinstance`, exactly; a False for a staged value tested against number types is
    remembered, so that an error the guard then raises can say why (see staged_guard_note).
    """
    result = builtins.isinstance(obj, classinfo)
    if not result and type(obj) not in PYTHON_TYPES and backend_for(obj) is not None:
        kinds = classinfo if type(classinfo) is tuple else (classinfo,)
        if any(k in _NUMBER_TYPES for k in kinds):
            frame, _ = inspect_utils.first_user_frame(sys._getframe(1))
            where = (None, None) if frame is None else (frame.f_code.co_filename,
                                                         frame.f_lineno)
            names = ', '.join(getattr(k, '__name__', repr(k)) for k in kinds)
            GUARDS.last = (names,) + where
    return result


def staged_guard_note():
    """The note for an error raised while a function traced after `isinstance` of a staged
    value against number types was False (then forgotten), or None."""
    last, GUARDS.last = GUARDS.last, None
    if last is None:
        return None
    names, filename, line = last
    where = '' if filename is None else ' at {}:{}'.format(os.path.basename(filename), line)
    return ('Note: isinstance(..., {}){} was False because the value is staged: while '
            'tracing, a tensor stands for the number (as in TensorFlow and JAX). To let such '
            'a guard stage, accept tensors too, e.g. `isinstance(n, {}) or hasattr(n, '
            "'dtype')`.".format(names, where, names.split(', ')[0]))


BUILTIN_FUNCTIONS_MAP[builtins.isinstance] = isinstance_


# Python's numeric builtins, `sorted` and `list` (of a staged list) and `math` functions
# that a backend may compute on staged values (its `call_builtin`): the builtin itself for
# Python values.
NUMERIC_FUNCTIONS = (
    builtins.bool, builtins.round, builtins.divmod, builtins.pow, builtins.sorted, builtins.list,
    math.sqrt, math.isqrt, math.factorial, math.exp, math.log, math.log2, math.log10, math.log1p, math.expm1,
    math.pow, math.floor, math.ceil, math.trunc, math.fabs, math.gcd, math.radians,
    math.degrees, math.sin, math.cos, math.tan, math.asin, math.acos, math.atan, math.atan2,
    math.hypot, math.sinh, math.cosh, math.tanh,
)


def _numeric_overload(builtin):
    def overload(*args, **kwargs):
        return _call(builtin, args, kwargs)
    overload.__name__ = overload.__qualname__ = builtin.__name__ + '_'
    overload.__doc__ = 'Overload of `{}`; see `abs_` for the arguments and the result.'.format(
        builtin.__name__)
    return overload


BUILTIN_FUNCTIONS_MAP.update((f, _numeric_overload(f)) for f in NUMERIC_FUNCTIONS)


def overload_of(f):
    """Returns the overload of builtin `f`, or `f` itself when there is none.

    Args:
        f: any callable.

    Returns:
        The entry of BUILTIN_FUNCTIONS_MAP for `f`, else `f`.
    """
    try:
        return BUILTIN_FUNCTIONS_MAP.get(f, f)
    except TypeError:  # unhashable callable object
        return f
