"""`filter(function, iterable)` in converted code, staged when the function gives a staged bool.

Python's `filter` is lazy: the function runs as the result is consumed. Converted code's
`filter` gives a `Filtered`, a `filter` object that iterates exactly as Python's does, and
remembers its function and its iterator. The consumers that take every element, or stop as
Python's do, then run it as the loop it stands for, as a comprehension or generator
expression runs (`operators/generators.py`): `list()` and `sorted()` of it as
`[v for v in iterable if function(v)]` (a staged list when the function gives a staged bool),
`sum`, `any`, `all`, `max` and `min` of it as the generator expression. For Python values
that loop calls the function on the same elements, in the same order, as Python's filter.

Iterating it any other way (a `for` loop, `next`) is Python's own iteration; a staged bool
from the function there raises a StagingError that says how to write it.

A staged iterable that Python cannot iterate (a runtime graph tensor) is filtered at once,
by a staged loop: the result is then the backend's staged list.
"""

import builtins
import sys

from autograph.errors import StagingError
from autograph.operators import generators
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for
from autograph.pyct import inspect_utils

# the loop target's text, shown in the staged loop's names (`[... for item in ...]`)
_TARGET = 'item'
# As Python made them (a library may replace builtins.max and min for a while).
_REDUCTIONS = (builtins.sum, builtins.any, builtins.all, builtins.max, builtins.min)


class Filtered(builtins.filter):
    """`filter(function, iterable)` of converted code: Python's filter object, which also
    keeps its function (None: the elements' truth) and its iterator, shared with the filter,
    so that a consumer may run the rest of it as a loop. Its type is named `filter`, as
    Python's messages about it name it."""

    def __new__(cls, function, iterable):
        items = iter(iterable)
        self = super().__new__(cls, None if function is None else _checked(function), items)
        self.function = function
        self.items = items
        # the most elements it gives (a staged list's bound), where Python knows it
        self.size = len(iterable) if type(iterable) in (list, tuple, range) else None
        return self

    def __repr__(self):
        return '<filter object at {:#x}>'.format(id(self))

    def condition(self):
        """The function giving an element's truth, for the loop (`generators`)."""
        return _element if self.function is None else self.function


Filtered.__name__ = Filtered.__qualname__ = 'filter'


def filter_(function, iterable):
    """Overload of `filter` (see the module docstring).

    Args:
        function: a callable, or None.
        iterable: the filtered iterable.

    Returns:
        A `Filtered` (a `filter` object); for a staged iterable that Python cannot iterate,
        the backend's staged list of the kept elements.
    """
    if type(iterable) not in PYTHON_TYPES and backend_for(iterable) is not None:
        try:
            iterable = list(iterable)  # a JAX or torch array of a static length
        except TypeError:  # its length is known when it runs: a staged loop
            condition = _element if function is None else function
            return generators.list_comprehension(iterable, _element, condition, _TARGET)
    return Filtered(function, iterable)


def reduce(fn, args, kwargs):
    """`fn(*args, **kwargs)` for `fn` sum, any, all, max or min and a `Filtered` `args[0]`:
    the generator expression's loop (`generators.reduce_generator`); None for another `fn`.

    Args:
        fn: the called builtin.
        args: its positional arguments, a Filtered first.
        kwargs: its keyword arguments.

    Returns:
        A 1-tuple holding what `fn` gives, or None.
    """
    if fn not in _REDUCTIONS:
        return None
    filtered = args[0]
    return (generators.reduce_generator(fn, filtered.items, _element, filtered.condition(),
                                        _TARGET, *args[1:], **kwargs),)


def as_list(filtered):
    """The rest of a `Filtered` as a list, by the comprehension's loop: a Python list, or the
    backend's staged list once the function gives a staged bool."""
    return generators.list_comprehension(filtered.items, _element, filtered.condition(),
                                         _TARGET, filtered.size)


def _element(item):
    return item


def _checked(function):
    """`function`, raising a StagingError where it gives a staged value to Python's filter."""

    def keep(item):
        result = function(item)
        if type(result) not in PYTHON_TYPES and backend_for(result) is not None:
            raise _staged_predicate_error(function)
        return result

    return keep


def _staged_predicate_error(function):
    frame, _ = inspect_utils.first_user_frame(sys._getframe(2))
    where = '' if frame is None else ' in {} at {}:{}'.format(
        frame.f_code.co_name, frame.f_code.co_filename, frame.f_lineno)
    name = getattr(function, '__name__', None) or repr(function)
    return StagingError(
        'filter({}, ...){} gave a staged value for an element while Python iterated the filter '
        '(a for loop or next() over it): whether the element is kept is known only when the '
        'staged computation runs. Make the filter a list first, `list(filter(...))` (or '
        'sorted(), sum(), any(), all(), max() or min() of it, which stage), or write a list '
        'comprehension `[v for v in xs if pred(v)]`.'.format(name, where))
