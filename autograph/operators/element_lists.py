"""Python lists whose elements are staged numbers (`[a, b, 7.0]`, or `counts` after a staged
loop assigned its elements): what Python's own `max`, `min`, `sorted`, `list.sort`,
`list.index` and `list.count` do by comparing the elements, staged with the backend's
`select`. Python's comparisons would ask a staged bool for its truth.

A list of Python numbers only, a `key=`, or rows (lists of lists) keep Python's own.
"""

from autograph.operators.backends import backend_for

# The most elements sorted by a network of selects (their number grows as its square).
_MAX_SORTED = 64


def staged_elements(xs):
    """The backend of the first staged element of the Python list or tuple `xs` when its
    elements are numbers (not rows), else None."""
    if type(xs) not in (list, tuple) or any(type(v) in (list, tuple, dict) for v in xs):
        return None
    return next((b for b in map(backend_for, xs) if b is not None), None)


def elements_of_a_row(value):
    """The elements of a staged row of a length known while staging (a row of a table),
    as a Python list, or None."""
    shape = getattr(value, 'shape', None)
    # a size known only when the computation runs is None, or a symbol (torch's SymInt)
    size = shape[0] if shape is not None and len(shape) == 1 else None
    if type(size) is not int or size > _MAX_SORTED:
        return None
    return [value[k] for k in range(size)]


def elements_of(args, kwargs):
    """`max(xs)` of a Python list or tuple that holds staged values as `max(*xs)`, which a
    backend stages (Python's `default=` matters only for no element); other calls as they
    are."""
    if len(args) == 1 and type(args[0]) in (list, tuple) and len(args[0]) > 1 and (
            'key' not in kwargs and staged_elements(args[0]) is not None):
        return tuple(args[0]), {}
    return args, kwargs


def sorted_call(args, kwargs):
    """`sorted(xs)` (`reverse=` too) of a Python list or tuple holding staged numbers, or of
    a staged row of a known length, as `staged_sorted`; None where Python's own runs."""
    if len(args) != 1 or not set(kwargs) <= {'reverse'}:
        return None
    xs = args[0]
    if type(xs) not in (list, tuple):
        xs = elements_of_a_row(xs) if backend_for(xs) is not None else None
    return None if xs is None else staged_sorted(xs, kwargs.get('reverse', False))


def staged_sorted(xs, reverse=False):
    """`sorted(xs)` of a Python list or tuple of numbers, some staged, as a Python list of
    staged values (an odd-even transposition network of selects); None where Python's own
    runs (no staged element, rows, a list longer than _MAX_SORTED)."""
    backend = staged_elements(xs)
    if backend is None or len(xs) > _MAX_SORTED:
        return None
    out = list(xs)
    for round_ in range(len(out)):
        for i in range(round_ % 2, len(out) - 1, 2):
            out[i], out[i + 1] = _ordered(backend, out[i], out[i + 1])
    return out[::-1] if reverse else out


def _ordered(backend, a, b):
    """(the smaller, the larger) of two numbers: `a` first where they are equal."""
    later = b < a
    if backend_for(later) is None:
        return (b, a) if later else (a, b)
    return backend.select(later, b, a), backend.select(later, a, b)


def searched(xs, name, native=None):
    """`xs.count` or `xs.index` of a Python list (or of the elements of a staged row whose
    own method is `native`): Python's own, but for one number where the value or an element
    is staged."""
    native = native or getattr(xs, name)

    def search(*args, **kwargs):
        if len(args) != 1 or kwargs or not _number(args[0]):
            return native(*args, **kwargs)
        backend = staged_elements(xs + [args[0]])
        if backend is None:
            return native(*args)
        return SEARCHES[name](backend, xs, args[0])
    return search


def _number(value):
    """Whether `value` is a Python number or a staged scalar."""
    if type(value) in (bool, int, float):
        return True
    shape = getattr(value, 'shape', None)
    try:
        return shape is not None and len(shape) == 0
    except TypeError:  # a rank known only when the computation runs
        return False


def _staged_count(backend, xs, value):
    total = 0
    for x in xs:
        hit = x == value
        total = total + (backend.select(hit, 1, 0) if backend_for(hit) else int(bool(hit)))
    return total


def _staged_index(backend, xs, value):
    """The position of the first element equal to `value`; Python's ValueError when the
    computation runs and none is."""
    position = len(xs)
    for k in reversed(range(len(xs))):
        hit = xs[k] == value
        if backend_for(hit) is not None:
            position = backend.select(hit, k, position)
        elif hit:
            position = k
    if type(position) is int and position == len(xs):
        raise ValueError('{!r} is not in list'.format(value))
    if type(position) is not int:
        backend.raise_unless(position < len(xs), [value], lambda v: ValueError(
            '{!r} is not in list'.format(v.item() if hasattr(v, 'item') else v)))
    return position


SEARCHES = {'count': _staged_count, 'index': _staged_index}
