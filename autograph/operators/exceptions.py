"""`assert` and `raise`: Python's own for Python values, a run-time check when staged."""

import sys

from autograph import errors
from autograph.errors import StagingError
from autograph.errors import UnsupportedByBackendError
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for

# The key, in an exception's __dict__, of the (file, line) of the converted `raise` statement
# that raised it (see `raising`).
_RAISED_AT = '_ag_raised_at'


def _no_message():
    return None


class StagedMessage:
    """An f-string assert message holding staged values, formatted when the assert fails.

    `pieces` are the f-string's parts in order: strings, and (value, conversion, format spec)
    triples for its fields (conversion as in `ast.FormattedValue`: -1, or ord of 's', 'r', 'a').
    A backend that knows this class formats the staged values at run time; `str()` gives the
    text as it reads while tracing (symbolic values shown as such).
    """

    __slots__ = ("pieces",)

    def __init__(self, pieces):
        self.pieces = tuple(pieces)

    def __str__(self):
        return ''.join(p if isinstance(p, str) else format_field(*p) for p in self.pieces)

    def __add__(self, other):
        """`message + text`: still formatted at run time (`'n is ' + str(n)` in a raise)."""
        if isinstance(other, StagedMessage):
            return StagedMessage(self.pieces + other.pieces)
        if isinstance(other, str):
            return StagedMessage(self.pieces + (other,))
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, str):
            return StagedMessage((other,) + self.pieces)
        return NotImplemented

    def _text_unknown(self, *args, **kwargs):
        del args, kwargs
        raise StagingError(
            'The text of a staged value ({!r}) is known only when the staged computation '
            'runs: str() of it can only be printed, or be part of an exception message. To '
            'compute with its digits, use arithmetic (n % 10, n // 10).'.format(str(self)))

    __iter__ = __getitem__ = __len__ = __contains__ = __eq__ = __lt__ = _text_unknown
    __hash__ = object.__hash__


def str_of(value):
    """`str(value)`: Python's for Python values; a StagedMessage for a staged one.

    Args:
        value: any object.

    Returns:
        A string, or a StagedMessage formatted when the staged computation runs (it can be
        printed, joined with `+` and be an exception's message; anything else raises
        StagingError).
    """
    if type(value) in PYTHON_TYPES or backend_for(value) is None:
        return str(value)
    return StagedMessage(((value, ord('s'), ''),))


def refuse_staged_text(leaves, fn):
    """Raises StagingError when one of `leaves` (the flattened outputs of the user's function
    `fn`, which a backend stages as a whole) is a StagedMessage: a text whose staged values
    are known only when the computation runs cannot be one of its outputs."""
    for leaf in leaves:
        if isinstance(leaf, StagedMessage):
            code = getattr(fn, '__code__', None)
            where = '' if code is None else ' ({}:{})'.format(code.co_filename,
                                                             code.co_firstlineno)
            raise StagingError(
                "'{}'{} returns the text {!r}, made with str() of a staged value: "
                'that text is known only when the staged computation runs, and the '
                'outputs of a staged computation are tensors and Python values. Return the '
                'value itself and make the text from the result outside, or print it inside '
                '(print is staged).'.format(getattr(fn, '__qualname__', fn), where, ''.join(
                    p if isinstance(p, str) else '{...}' for p in leaf.pieces)))


def format_field(value, conversion, spec):
    """One f-string field, as Python formats it."""
    if conversion == ord('r'):
        value = repr(value)
    elif conversion == ord('s'):
        value = str(value)
    elif conversion == ord('a'):
        value = ascii(value)
    return format(value, spec)


def fstring(*pieces):
    """`f'...'` in an assert message: the same string for Python values.

    Args:
        *pieces: strings, and (value, conversion, format spec) triples for the fields.

    Returns:
        The formatted string when no field is staged (exactly what the f-string gives), else
        a StagedMessage the backend formats at run time.
    """
    if all(isinstance(p, str) or type(p[0]) in PYTHON_TYPES or backend_for(p[0]) is None
           for p in pieces):
        return ''.join(p if isinstance(p, str) else format_field(*p) for p in pieces)
    return StagedMessage(pieces)


def assert_stmt(expression1, expression2):
    """Runs `assert expression1, expression2()`.

    For Python values this is the plain statement, so `python -O` removes it as it removes the
    original one.

    Args:
        expression1: the asserted value.
        expression2: None when the statement has no message, else a function of no arguments
            that returns the message; it is called only when the assertion fails.

    Returns:
        None for Python values; for a staged `expression1`, whatever the backend's
        `assert_(expression1, message_fn)` returns (message_fn returns None when there is no
        message).

    Raises:
        AssertionError: when a Python `expression1` is false.
        TypeError: if `expression2` is neither None nor callable.
        StagingError: if the backend of a staged `expression1` has no `assert_` hook.
    """
    if expression2 is not None and not callable(expression2):
        raise TypeError(
            'assert_stmt expected a function of no arguments returning the message, found {!r}; '
            'wrap the message in a lambda.'.format(expression2))
    backend = None if type(expression1) in PYTHON_TYPES else backend_for(expression1)
    if backend is None:
        if expression2 is None:
            assert expression1
        else:
            assert expression1, expression2()
        return None
    return backend.assert_(expression1, expression2 or _no_message)


def raising(exception):
    """The operand of a converted `raise` statement: `raise ag__.raising(X) from Y`.

    Returns what `raise X` raises (a class is instantiated with no arguments, as `raise`
    does), marked as raised by the user's own `raise` statement. A staged `if` (or loop)
    whose branch raises a marked exception while it is traced stages the raise instead: the
    exception is raised when the branch runs (`raise_when_run`). Anything that is not an
    exception is returned unchanged, so the `raise` statement gives Python's own TypeError.

    Args:
        exception: the operand of `raise`.

    Returns:
        The exception instance to raise.
    """
    if isinstance(exception, type) and issubclass(exception, BaseException):
        exception = exception()
    if isinstance(exception, BaseException):
        caller = sys._getframe(1)  # the converted user code that raises
        try:
            exception.__dict__[_RAISED_AT] = (caller.f_code.co_filename, caller.f_lineno)
        except AttributeError:  # an exception class with __slots__ and no __dict__
            pass
    return exception


def is_staged_raise(error):
    """Tells whether an exception was raised by a converted `raise` statement (`raising`)."""
    return _RAISED_AT in getattr(error, '__dict__', ())


def _staged_leaves(error):
    """The staged values among an exception's arguments and their f-string fields, in order,
    then those of its cause (`raise X from Y`)."""
    values = []
    for arg in error.args:
        if isinstance(arg, StagedMessage):
            values.extend(p[0] for p in arg.pieces
                          if not isinstance(p, str) and _is_staged(p[0]))
        elif _is_staged(arg):
            values.append(arg)
    if isinstance(error.__cause__, BaseException) and error.__cause__ is not error:
        values.extend(_staged_leaves(error.__cause__))
    return values


def _is_staged(value):
    return type(value) not in PYTHON_TYPES and backend_for(value) is not None


def _python_value(value):
    """A run-time value as Python shows it: a 0-d array as a Python scalar (a float32 as the
    shortest decimal that gives it back, so that `f'{x}'` and `repr` read as Python's)."""
    if getattr(value, 'ndim', None) == 0 and hasattr(value, '__getitem__'):
        value = value[()]
    dtype = getattr(value, 'dtype', None)
    if dtype is None or getattr(value, 'ndim', None) != 0:
        return value
    if dtype.kind == 'f' and dtype.itemsize < 8:
        return float(str(value))
    return value.item()


def rebuild(error, values):
    """The exception to raise at run time: `error` with its staged values filled in.

    Args:
        error: an exception raised while staging, whose arguments (and its cause's) may hold
            staged values and StagedMessages (`_staged_leaves`).
        values: the run-time values of those staged values, in the same order.

    Returns:
        A new exception of the same class whose arguments hold the run-time values (f-string
        messages formatted with them), with the same attributes and cause (rebuilt too).
    """
    return _filled(error, iter([_python_value(v) for v in values]))


def _filled(error, values):
    args = []
    for arg in error.args:
        if isinstance(arg, StagedMessage):
            args.append(''.join(
                p if isinstance(p, str) else format_field(
                    next(values) if _is_staged(p[0]) else p[0], p[1], p[2])
                for p in arg.pieces))
        elif _is_staged(arg):
            args.append(next(values))
        else:
            args.append(arg)
    cls = type(error)
    fresh = cls.__new__(cls, *args)
    fresh.args = tuple(args)
    fresh.__dict__.update((k, v) for k, v in error.__dict__.items() if k != _RAISED_AT)
    cause = error.__cause__
    if isinstance(cause, BaseException) and cause is not error:
        cause = _filled(cause, values)
    fresh.__cause__ = cause
    fresh.__suppress_context__ = error.__suppress_context__
    return fresh


def raise_when_run(backend, ok, error, where):
    """Stages a raise: `error` is raised when the staged code runs with `ok` false.

    Args:
        backend: the backend staging the code.
        ok: a staged bool, false exactly when the code that raises runs.
        error: an exception for which `is_staged_raise` holds.
        where: the code that raises, for messages ('the if branch of a staged if statement').

    Raises:
        `error` itself (at trace time, as before staging was possible), with a note, when the
        backend has no `raise_unless` hook.
    """
    values = _staged_leaves(error)
    try:
        backend.raise_unless(ok, values, lambda *run: rebuild(error, run))
    except UnsupportedByBackendError:
        filename, line = error.__dict__[_RAISED_AT]
        errors.add_note(error, '(raised while staging {} (File "{}", line {}): the backend '
                        '{!r} cannot raise it only when that code runs)'.format(
                            where, filename, line, backend.name))
        raise error
