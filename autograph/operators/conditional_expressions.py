"""Conditional expressions (`x if cond else y`): Python or the backend's `cond`."""

from autograph.operators import staged_if
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for


def if_exp(cond, if_true, if_false, expr_repr):
    """Evaluates `if_true() if cond else if_false()`.

    Args:
        cond: the condition value.
        if_true: function of no arguments returning the value when `cond` holds.
        if_false: function of no arguments returning the value otherwise.
        expr_repr: source text of the expression, used in error messages.

    Returns:
        The chosen value; for a staged `cond`, the backend's `cond` of both values.

    Raises:
        UndefinedVariableError, StagingError, BranchVariableError: for a staged `cond` whose two
            values are missing, None, or differ in dtype or structure.
    """
    backend = None if type(cond) in PYTHON_TYPES else backend_for(cond)
    if backend is None:
        return if_true() if cond else if_false()
    return staged_if.staged_if_exp(backend, cond, (if_true, if_false), expr_repr)
