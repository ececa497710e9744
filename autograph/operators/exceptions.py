"""The `assert` statement: Python's own for Python values, the backend's assert when staged."""

from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for


def _no_message():
    return None


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
