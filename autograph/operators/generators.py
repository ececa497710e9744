"""`sum()`, `any()` and `all()` of a generator expression, run as the loop it stands for.

`sum(i * i for i in range(1, n + 1))` and `any(a > b for a, b in zip(xs, xs[1:]))` iterate
in the builtin, where a staged `range` or tensor cannot be iterated. The converter
(`converters/generators.py`) passes the parts of the generator expression here, and the loop
runs through `for_stmt`/`if_stmt`: as Python over Python values (the same elements, evaluated
once each, in Python's order; `any`/`all` stop at the first decisive element), staged over
staged ones. A call of anything but these builtins (a shadowed `sum`, `sum(..., start=[])` of
lists works too) gets the generator itself, as Python would.
"""

import builtins

from autograph.operators import control_flow
from autograph.operators import logical

_KINDS = {builtins.sum: 'sum', builtins.any: 'any', builtins.all: 'all'}


def reduce_generator(fn, iterable, element, condition, target, *args, **kwargs):
    """`fn(element(t) for t in iterable if condition(t), *args, **kwargs)`.

    Args:
        fn: the called function (the builtins `sum`, `any` and `all` become loops).
        iterable: the generator expression's iterable, evaluated already (as Python does).
        element: function of the loop target giving the element.
        condition: None, or function of the loop target giving its `if` clause.
        target: the source text of the loop target (a staged loop's name).
        *args: fn's other positional arguments (sum's start).
        **kwargs: fn's keyword arguments (sum's start).

    Returns:
        What fn returns.
    """
    kind = _KINDS.get(fn)
    start = args + tuple(kwargs.values())
    if kind is None or len(start) > (kind == 'sum') or set(kwargs) - {'start'}:
        keep = condition or (lambda _: True)
        return fn((element(t) for t in iterable if keep(t)), *args, **kwargs)
    state = [start[0] if start else 0] if kind == 'sum' else [kind == 'all']
    _loop(kind, state, (iterable, element, condition), target)
    return state[0]


def _loop(kind, state, parts, target):
    """The loop of `reduce_generator`, accumulating into state[0]."""
    iterable, element, condition = parts
    names = ('reduced_',)

    def get_state():
        return (state[0],)

    def set_state(values):
        state[0] = values[0]

    def accumulate(item):
        value = element(item)
        if kind == 'sum':
            state[0] = state[0] + value
            return

        def decided():
            state[0] = kind == 'any'

        # any: the first true element decides; all: the first false one
        control_flow.if_stmt(value if kind == 'any' else logical.not_(value), decided,
                             _nothing, get_state, set_state, names, 1)

    def body(item):
        if condition is None:
            accumulate(item)
        else:
            control_flow.if_stmt(condition(item), lambda: accumulate(item), _nothing,
                                 get_state, set_state, names, 1)

    extra_test = None if kind == 'sum' else (
        lambda: logical.not_(state[0]) if kind == 'any' else state[0])
    control_flow.for_stmt(iterable, extra_test, body, get_state, set_state, names,
                          {'iterate_names': target})


def _nothing():
    pass
