"""Conditional expressions (`x if cond else y`): Python or the backend's `cond`."""

from autograph.operators import nest
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for
from autograph.operators.control_flow import check_branch_values
from autograph.operators.control_flow import check_same_types


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
    type_of = backend.type_of
    names = (expr_repr,)
    values = {}  # branch name -> value, filled as the backend stages each branch

    def make_branch(fn, name, other):
        def branch():  # an expression assigns no state: the cond has no operands
            value = (fn(),)
            check_branch_values(names, value, name)
            if other in values:
                pair = {name: value, other: values[other]}
                check_same_types(names, pair['if'], pair['else'], type_of,
                                 backend.compatible_types)
            values[name] = value
            return tuple(nest.flatten(value))
        return branch

    flat = backend.cond(cond, make_branch(if_true, 'if', 'else'),
                        make_branch(if_false, 'else', 'if'), ())
    first = values['if'] if 'if' in values else values['else']
    return nest.pack(nest.structure(first), flat)[0]
