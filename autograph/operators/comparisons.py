"""Chained comparisons and membership tests: Python semantics, staged when a value is staged.

`lo <= x < hi` is `(lo <= x) and (x < hi)` with `x` evaluated once; with a staged `x` the `and`
is the lazy `and_` (a backend `cond`), so the chain does not ask a staged value for a Python
bool. `x in (1, 2)` with a staged `x` and a Python list, tuple or set of numbers is the staged
`x == 1 or x == 2`; so is `0 in (n, r)`, a Python number in a tuple holding staged values
(`0 == n or 0 == r`). Python values run exactly as in the original expression.
"""

import numbers
import operator

from autograph.errors import StagingError
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for
from autograph.operators.logical import and_
from autograph.operators.logical import not_
from autograph.operators.logical import or_

# Containers whose elements (a dict's keys) a staged membership test compares one by one.
_CONTAINERS = frozenset({list, tuple, set, frozenset, dict})


def in_(value, container):
    """Evaluates `value in container`.

    Args:
        value: the left operand.
        container: the right operand.

    Returns:
        For Python values, exactly `value in container`. For a non-empty Python list,
        tuple, set or dict whose elements (keys) are numbers or staged values of one backend,
        with a `value` that is such a number or staged value, and a staged value among them:
        the staged `value == e1 or value == e2 or ...`. (Python's own test would hash the
        staged value, and a dict or set would find no key; for a Python `value` it would ask
        the staged `value == e` for a Python bool.)
    """
    if type(container) in _CONTAINERS and container and _stages_membership(value, container):
        return _any_equal(value, container)
    return value in container


def identical(value, constant):
    """`value is constant` for the constant True or False: Python's own identity test.

    The key of a backend's `call_builtin` for it on a staged value: a staged bool stands for
    Python's bool, so the backend gives the staged `value == constant`; a staged int or float
    stands for a number that is never the bool singleton, and the backend gives Python's
    False.
    """
    return value is constant


def is_(left, right):
    """Evaluates `left is right`, generated where an operand is the constant True or False
    (`if sieve[i] is True:`).

    Args:
        left: the left operand.
        right: the right operand.

    Returns:
        For Python values, exactly `left is right`. For a staged operand beside the bool
        constant, the backend's `identical` (a staged bool for a staged bool), where Python's
        own test would give False for the tensor standing for `True`.

    Raises:
        StagingError: for a staged operand whose backend does not stage `identical`.
    """
    staged, constant = (left, right) if type(right) is bool else (right, left)
    if type(constant) is not bool or type(staged) in PYTHON_TYPES:
        return left is right
    backend = backend_for(staged)
    if backend is None:
        return left is right
    try:
        return backend.call_builtin(identical, (staged, constant), {})
    except NotImplementedError:
        pass
    raise StagingError(
        '`x is {0}` of a staged value: backend {1!r} does not stage it (its call_builtin has '
        'no overload for comparisons.identical), and Python would compare the tensor itself '
        'with {0}, always False. Write `x == {0}` for a bool.'.format(constant, backend.name))


def is_not(left, right):
    """Evaluates `left is not right`: `not is_(left, right)` (see is_)."""
    return not_(is_(left, right))


def set_display(*items):
    """`{a, b, ...}` as the right operand of `in`/`not in`, built as Python builds it.

    A display holding a staged value that cannot be hashed (a JAX tracer) is the tuple of its
    items instead: `in_` tests a tuple as it tests a set (`x in {0, n}` is `x == 0 or x ==
    n`), where building the set would raise "unhashable type".
    """
    try:
        return set(items)
    except TypeError:
        if any(type(i) not in PYTHON_TYPES and backend_for(i) is not None for i in items):
            return tuple(items)
        raise


def not_in(value, container):
    """Evaluates `value not in container`; staged as `not in_(value, container)` (see in_)."""
    if type(container) in _CONTAINERS and container and _stages_membership(value, container):
        return not_(_any_equal(value, container))
    return value not in container


def _stages_membership(value, container):
    """Whether `value in container` is staged: see `in_`. A staged `value` is the common case;
    a Python number `value` is looked at only when the container holds a staged value."""
    if type(value) in PYTHON_TYPES:
        if not isinstance(value, numbers.Number) or not any(
                type(item) not in PYTHON_TYPES for item in container):
            return False
        backend = None
    else:
        backend = backend_for(value)
        if backend is None:
            return False
    for item in container:
        if type(item) is bool or isinstance(item, numbers.Number):
            continue
        found = None if type(item) in PYTHON_TYPES else backend_for(item)
        if found is None or found is not (backend or found):
            return False
        backend = found
    return backend is not None


def _any_equal(value, elements):
    """`value == e1 or value == e2 or ...`, the `or` staged by `or_`."""
    elements = list(elements)
    result = value == elements[0]
    for element in elements[1:]:
        result = or_(lambda r=result: r, lambda e=element: value == e)
    return result


_OPERATORS = {
    '==': operator.eq, '!=': operator.ne, '<': operator.lt, '<=': operator.le,
    '>': operator.gt, '>=': operator.ge, 'is': is_, 'is not': is_not,
    'in': in_, 'not in': not_in,
}


def compare(left, op, right, *rest):
    """Evaluates a chained comparison `left op right op2 operand3 ...` lazily.

    Generated for `a < b < c` as `compare(a, '<', b, '<', lambda: c)`: the first two operands
    are values, every later operand is a function of no arguments, called only when the
    comparisons before it hold (as Python does). The links are joined by `and_`, so a staged
    comparison result makes the rest of the chain a staged `cond` branch.

    Args:
        left: the first operand.
        op: the first operator, as written ('<', '<=', '==', '!=', '>', '>=', 'is',
            'is not', 'in', 'not in').
        right: the second operand.
        *rest: pairs (operator, function returning the next operand).

    Returns:
        What the chained comparison gives in Python for Python values (the first false
        link's result, or the last one's); a staged boolean when a link is staged.
    """
    result = _OPERATORS[op](left, right)
    if not rest:
        return result
    return and_(lambda: result, lambda: compare(right, rest[0], rest[1](), *rest[2:]))
