"""`TABLE[i]` and `d[k]` with a staged index into a Python list, tuple or dict of numbers.

Real code reads module-level tables at a computed index (`DIGIT_SQUARES[n % 10]`, a dict of
known values). Python's own `table[i]` would ask a staged `i` for a Python int. With a staged
index, the numbers become one staged table (the backend's `stack`) read at that index, and a
bad index raises what Python raises, when the computation runs: IndexError for a list or
tuple (negative indices count from the end, as in Python), KeyError for a dict. Any other
container or index is indexed by Python itself.
"""

import numbers

from autograph.errors import UnsupportedByBackendError
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for


def get_item(container, key):
    """Evaluates `container[key]` (generated for subscripts of names the function does not
    assign: globals and closure variables).

    Args:
        container: the subscripted value.
        key: the index.

    Returns:
        `container[key]` for Python values; a staged element for a staged `key` into a
        non-empty list, tuple or dict whose values (and dict keys) are Python numbers (or the
        backend's values, or rows of numbers of one length).
    """
    if type(key) in PYTHON_TYPES or type(container) not in (list, tuple, dict) or not container:
        return container[key]
    backend = backend_for(key)
    values = list(container.values()) if type(container) is dict else container
    if backend is None or not _stackable(backend, values) or (
            type(container) is dict and not all(_is_number(k) for k in container)):
        return container[key]
    try:
        table = backend.stack(list(values))
    except (UnsupportedByBackendError, TypeError, ValueError):
        return container[key]
    if type(container) is dict:
        return table[_dict_position(backend, list(container), key)]
    return table[backend.list_index(key, len(values), type(container).__name__)]


def _is_number(value):
    return type(value) is bool or isinstance(value, numbers.Number)


def _stackable(backend, values):
    """Whether `values` are numbers or values of `backend` (a list that a staged loop carries
    holds them), or rows of numbers of one length (a table: `grid[i][j]`)."""
    def cell(v):
        return _is_number(v) or backend_for(v) is backend

    if all(cell(v) for v in values):
        return True
    return all(type(v) in (list, tuple) and len(v) == len(values[0]) and all(
        cell(x) for x in v) for v in values)


def _dict_position(backend, keys, key):
    """The staged position of `key` among `keys`; raises KeyError(key) when run for a key
    that is not there."""
    position = 0 * key
    found = key == keys[0]
    for j, candidate in enumerate(keys[1:], 1):
        hit = key == candidate
        position = backend.select(hit, 0 * key + j, position)
        found = found | hit
    backend.raise_unless(found, [key], lambda k: KeyError(k.item() if hasattr(k, 'item')
                                                          else k))
    return position
