"""Lazy `and`, `or` and `not`: Python semantics for Python values, backend `cond` when staged."""

from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for


def and_(a, b):
    """Evaluates `a and b` lazily.

    Args:
        a: function of no arguments returning the left operand.
        b: function of no arguments returning the right operand; called only when needed.

    Returns:
        For a Python left operand, exactly what `a and b` returns (one of the operands). For a
        staged one, the backend's `cond(a, b, lambda a: a, (a,))` result.
    """
    a_val = a()
    if type(a_val) in PYTHON_TYPES:
        return a_val and b()
    backend = backend_for(a_val)
    if backend is None:
        return a_val and b()
    return backend.cond(a_val, lambda a: (b(),), lambda a: (a,), (a_val,))[0]


def evaluated(value):
    """The left operand of `and_`/`or_` when the converter evaluated it in place.

    An operand that assigns a variable (`(m := f()) and m.x`) is evaluated where Python
    evaluates it, in the function: inside a lambda the assignment would bind a variable of the
    lambda.

    Args:
        value: the operand's value.

    Returns:
        A function of no arguments returning `value`.
    """
    return lambda: value


def or_(a, b):
    """Evaluates `a or b` lazily.

    Args:
        a: function of no arguments returning the left operand.
        b: function of no arguments returning the right operand; called only when needed.

    Returns:
        For a Python left operand, exactly what `a or b` returns (one of the operands). For a
        staged one, the backend's `cond(a, lambda a: a, b, (a,))` result.
    """
    a_val = a()
    if type(a_val) in PYTHON_TYPES:
        return a_val or b()
    backend = backend_for(a_val)
    if backend is None:
        return a_val or b()
    return backend.cond(a_val, lambda a: (a,), lambda a: (b(),), (a_val,))[0]


def not_(a):
    """Evaluates `not a`.

    Args:
        a: the operand.

    Returns:
        `not a` for a Python value, the backend's `logical_not(a)` for a staged one.

    Raises:
        StagingError: if the backend of a staged `a` has no `logical_not` hook.
    """
    if type(a) in PYTHON_TYPES:
        return not a
    backend = backend_for(a)
    if backend is None:
        return not a
    return backend.logical_not(a)
