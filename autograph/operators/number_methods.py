"""Methods of Python's numbers and lists called on staged values (`x.is_integer()`,
`xs.count(v)`).

Converted code reads the method of a call through `ag__.method(x, 'is_integer')` when its
name is one of `METHODS` (the call-trees converter decides by name, at conversion time). For
a value that has the attribute (every Python value, a numpy scalar) that is `getattr` itself;
for a staged value, which has no such method (a tensor, a tracer), it is a function that
stages the method through the backend's `call_builtin`, keyed by the function of `METHODS`
standing for the method (as `math.sqrt` keys `math.sqrt(x)`). Anything else raises Python's
own AttributeError.
"""

from autograph.operators import element_lists
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for


def is_integer(x):
    """`x.is_integer()`: Python's own (`float.is_integer`; `int.is_integer` from Python 3.12).

    The key of a backend's `call_builtin` for `x.is_integer()` of a staged number; a backend
    gives `x - floor(x) == 0` for floats (False for inf and nan, as Python's) and
    `int_is_integer()` for ints and bools.
    """
    return x.is_integer()


def int_is_integer():
    """What `n.is_integer()` of an int gives in this Python: True from Python 3.12; before,
    the AttributeError that Python raises (an int has no `is_integer` method there).

    Returns:
        True.

    Raises:
        AttributeError: before Python 3.12.
    """
    if not hasattr(int, 'is_integer'):
        raise AttributeError("'int' object has no attribute 'is_integer'")
    return True


def count(xs, value):
    """`xs.count(value)`: Python's own (`list.count`). The key of a backend's `call_builtin`
    for it on a staged value that stands for a list (torch's list of a run-time length)."""
    return xs.count(value)


def index(xs, value):
    """`xs.index(value)`: Python's own (`list.index`). The key of a backend's `call_builtin`
    for it on a staged value that stands for a list."""
    return xs.index(value)


# method name -> the function standing for it in backends' `call_builtin` tables
METHODS = {'is_integer': is_integer, 'count': count, 'index': index}


def method(obj, name):
    """`obj.<name>` for a call of it in converted code (`name` is a key of METHODS).

    Args:
        obj: any value.
        name: the method's name.

    Returns:
        `getattr(obj, name)` when `obj` has the method; for a staged value that has not
        (or has an attribute of that name that is no method: the runtime's tensors have an
        `index`, their position among their op's outputs; or stands for a list, whose
        `index` is list.index, not torch's Tensor.index), `xs.index` and `xs.count` of its
        elements where it is a row of a known length, else a function staging the method
        (the backend's `call_builtin`).

    Raises:
        AttributeError: Python's own, for a value that is not staged and lacks the attribute.
    """
    if type(obj) is list and name in element_lists.SEARCHES:
        return element_lists.searched(obj, name)
    backend = None if type(obj) in PYTHON_TYPES else backend_for(obj)
    found = getattr(obj, name, None)
    if backend is None or name not in METHODS:
        return getattr(obj, name)  # Python's own AttributeError where it has none
    elements = element_lists.elements_of_a_row(obj) if name in element_lists.SEARCHES else None
    if callable(found):
        if elements is None:
            return found
        # a row's `index(v)` of one number is list.index (torch's Tensor.index takes dims)
        return element_lists.searched(elements, name, found)
    if elements is not None:
        return element_lists.searched(elements, name)
    return _StagedMethod(backend, obj, name)


class _StagedMethod:
    """A method of Python's numbers bound to a staged number, staged when called."""

    __slots__ = ('backend', 'obj', 'name')

    def __init__(self, backend, obj, name):
        self.backend = backend  # the backend that claims obj
        self.obj = obj  # the staged number the method is bound to
        self.name = name  # a key of METHODS

    def __repr__(self):
        return '<staged method {} of {!r}>'.format(self.name, self.obj)

    def __call__(self, *args, **kwargs):
        try:
            return self.backend.call_builtin(METHODS[self.name], (self.obj,) + args, kwargs)
        except NotImplementedError:
            pass
        raise AttributeError(
            "{!r} object has no attribute {!r}: backend {!r} does not stage `x.{}()` of a "
            'staged value (its call_builtin has no overload for it). Compute it with the '
            "library's own operations.".format(type(self.obj).__name__, self.name,
                                               self.backend.name, self.name))

