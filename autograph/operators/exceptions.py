"""The `assert` statement: Python's own for Python values, the backend's assert when staged."""

from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for


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
        self.pieces = pieces

    def __str__(self):
        return ''.join(p if isinstance(p, str) else format_field(*p) for p in self.pieces)


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
