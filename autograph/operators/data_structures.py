"""List operations that converted code calls: `append`, `pop`, item assignment and `[x] * n`,
on Python or staged lists.

A Python list that a staged loop carries as a loop variable becomes a staged list (the
backend's `new_list`) when the loop appends to it or pops from it; see
`list_frames.stage_list_if_loop_variable`.
"""

import builtins
import operator

from autograph.errors import StagingError
from autograph.errors import UnsupportedByBackendError
from autograph.operators import constant_tables
from autograph.operators import element_lists
from autograph.operators import list_frames
from autograph.operators import list_directives
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for


def list_append(target, element):
    """Appends `element` to `target`, as `target.append(element)`.

    Args:
        target: a Python list (or any object with `append`), or a staged list.
        element: the value to append.

    Returns:
        The list to rebind `target` to: `target` itself for Python objects (appended in place),
        the backend's new staged list for a staged one.

    Raises:
        StagingError: if the backend of a staged `target` has no `list_append` hook, or
            `target` is a Python list that a staged loop carries and its backend has no
            `new_list` hook.
    """
    backend = None if type(target) in PYTHON_TYPES else backend_for(target)
    if backend is None:
        list_frames.stage_list_if_loop_variable(target, element)
        target.append(element)
        return target
    return backend.list_append(target, element)


def list_pop(target, i=None):
    """Pops an element from `target`, as `target.pop()` or `target.pop(i)`.

    Args:
        target: a Python list (or any object with `pop`), or a staged list.
        i: the index to pop, or None for the last element.

    Returns:
        A tuple (list to rebind `target` to, popped element).

    Raises:
        StagingError: if the backend of a staged `target` has no `list_pop` hook, or
            `target` is a Python list that a staged loop carries and its backend has no
            `new_list` hook (or it is empty on entry to the loop).
    """
    backend = None if type(target) in PYTHON_TYPES else backend_for(target)
    if backend is None:
        list_frames.stage_list_if_loop_variable(target, list_frames.POPPED)
        if i is None:
            return target, target.pop()
        return target, target.pop(i)
    return backend.list_pop(target, i)


# The methods of Python's list besides append and pop that change it in place: the converter
# rewrites a statement `xs.<name>(...)` of a local name as `xs = ag__.list_method(...)`, so
# that staged control flow sees `xs` assigned (an if gives each branch its own copy).
IN_PLACE = {'extend': 1, 'insert': 2, 'remove': 1, 'reverse': 0, 'sort': 0, 'clear': 0}


def list_method(target, name, args, symbol, kwargs=None):
    """`target.<name>(*args)` as a statement, for a method of IN_PLACE (or `del
    target[key]`: `name` '__delitem__').

    `extend` of a Python list, tuple or range is its appends one by one (`list_append`: a
    Python list that a staged statement carries becomes a staged list; a staged list grows).
    `sort()` of a staged list is the backend's `sorted` of it (`facs.sort()` after a staged
    loop appended divisors). The others run as Python's own, in place, except on a Python
    list that a staged loop carries (its body is traced once: the list would change once, not
    once per iteration) and on a staged list, where they raise a StagingError saying what
    stages instead.

    Args:
        target: the value whose method is called (a list, or anything with the method).
        name: the method's name.
        args: its positional arguments (a tuple).
        symbol: the variable's name, for messages.
        kwargs: its keyword arguments (`sort(key=..., reverse=...)`), or None.

    Returns:
        The value to rebind the variable to: `target` itself, but where `extend` made or
        grew a staged list.
    """
    if name == 'extend' and type(args[0]) in (list, tuple, range) and (
            type(target) is list or _staged_list(target)):
        for value in list(args[0]):
            target = list_append(target, value)
        return target
    what = ('del {}[...]' if name == '__delitem__' else '{}.%s()' % name).format(symbol)
    if type(target) is list and list_frames.carried_by_a_loop(target):
        raise StagingError(
            "{what} changes the Python list '{symbol}' in place inside a staged loop: "
            'staged code traces the loop body once, so the list would change once, not in '
            'every iteration. Only append() and pop() (and extend() of a Python list, tuple '
            'or range) change a list in a staged loop: write the change with them, or change '
            'the list after the loop.'.format(what=what, symbol=symbol))
    if _staged_list(target):
        if name == 'sort' and not args:
            ordered = _sorted_staged_list(target, kwargs or {})
            if ordered is not None:
                return ordered
        raise StagingError(
            "{what} of '{symbol}', a staged list (one that staged control flow grew, or of a "
            'length known only when the computation runs), is not staged: only append(), '
            'pop() and extend() of a Python list, tuple or range are. Build the list in the '
            'order you need, or use sorted() for a sorted copy.'.format(
                what=what, symbol=symbol))
    if name == 'sort' and not args and set(kwargs or ()) <= {'reverse'}:
        ordered = element_lists.staged_sorted(target, (kwargs or {}).get('reverse', False))
        if ordered is not None:  # staged numbers: Python's sort would ask for a bool
            target[:] = ordered
            return target
    getattr(target, name)(*args, **(kwargs or {}))
    return target


def sorted_list(xs, reverse=False):
    """`xs.sort()` as a value: the list of `xs`'s elements in order (Python's `sorted`).

    The key of a backend's `call_builtin` for the sort of a staged list, whose result stays
    that backend's kind of list (the runtime's `sorted` gives a tensor, which a branch
    returning a Python list beside it could not join); a backend without it gives its
    `sorted`.
    """
    return builtins.sorted(xs, reverse=reverse)


def _sorted_staged_list(target, kwargs):
    """`target.sort()` (or `sort(reverse=...)`) of a staged list: the backend's sorted list
    (`sorted_list`, else its `sorted`), which the variable is rebound to, holding the elements
    in the order Python's sort leaves them; None where the backend stages neither (`key=`)."""
    backend = backend_for(target)
    for key in (sorted_list, builtins.sorted):
        try:
            return backend.call_builtin(key, (target,), kwargs)
        except NotImplementedError:
            pass
    return None


def _staged_list(value):
    """Whether `value` is a staged value that stands for a list (a backend's staged list, or
    one of `Backend.is_list_value`)."""
    backend = None if type(value) in PYTHON_TYPES else backend_for(value)
    return backend is not None and (backend.is_list_value(value) or not hasattr(value, 'shape'))


def set_item(target, key, value, augmented=None):
    """`target[key] = value` (or `target[key] += value`), as a functional update where
    `target` is staged.

    Args:
        target: a Python container, or a staged value (a tensor standing for a list of
            numbers, as `[0] * n` with a staged `n` gives, or a staged list).
        key: the index.
        value: the value stored.
        augmented: None, or the `operator` function of an augmented assignment (`'iadd'`
            for `+=`): the stored value is then `operator.iadd(target[key], value)`, as
            Python computes it.

    Returns:
        The object to rebind `target` to: `target` itself for Python objects (changed in
        place), the backend's updated value for a staged one (its `set_item`).
    """
    if augmented is not None:  # the read: at a staged index of a Python list, a table read
        value = getattr(operator, augmented)(constant_tables.get_item(target, key), value)
    _stage_if_assigned_at_staged_index(target, key)
    result = _by_backend((target,), lambda b: b.set_item(target, key, value))
    if result is not _PYTHONS:
        return result
    if _at_staged_index(target, key) and not list_frames.carried(target):
        _assign_at_staged_index(target, key, value)
        return target
    target[key] = value
    return target


def _assign_at_staged_index(target, key, value):
    """`target[key] = value` of a Python list at a staged index, outside staged control
    flow (no staged statement carries the list): each element becomes the staged choice
    between `value` and itself, in place (an alias of the list sees it, as in Python). An
    index out of range raises IndexError when the computation runs. Elements that are rows
    of numbers are stacked first; where the backend cannot choose between the values
    (strings), Python's assignment runs and raises its TypeError."""
    backend = backend_for(key)
    if backend is None:
        target[key] = value
        return
    try:
        position = backend.list_index(key, len(target), 'list assignment')
        chosen = [backend.select(position == k, value, _stacked(backend, old))
                  for k, old in enumerate(target)]
    except (TypeError, ValueError, UnsupportedByBackendError):
        target[key] = value  # Python's own error for a staged index
        return
    target[:] = chosen


def _stacked(backend, value):
    """A row of numbers (a list or tuple) as the backend's value; other values as they are."""
    if type(value) in (list, tuple) and value:
        return backend.stack(list(value))
    return value


def write_through(base, path, alias, keys, value, augmented=None, iterated=False):
    """`alias[k]... = value` (or augmented) where `alias = base[p]...` was read before, with
    nothing between that could make it another object (converters/aliases.py): returns
    (base, alias) after the write.

    Along `path`, a Python list, tuple or dict gives its very element, and a staged value
    stands for a Python list: there the write goes through `base` (`set_nested_item`), and
    `alias` is read from it again, so that staged code carries the change in `base`, as
    Python's shared list does (a row of a table read at a staged index is a staged value,
    not the row). Elsewhere (a numpy array read with an index array, a pandas frame:
    indexing that may give a copy) the write goes through `alias`, as written.

    `iterated`: `alias` is the target of `for alias in base` and `path` its iteration's
    index (converters/aliases._RowAlias): only a list, a tuple or a staged value gives its
    elements so (a dict gives its keys).
    """
    if not _gives_its_elements(base, path) or iterated and (
            type(base) not in (list, tuple) and (type(base) in PYTHON_TYPES
                                                 or backend_for(base) is None)):
        if len(keys) == 1:
            return base, set_item(alias, keys[0], value, augmented)
        return base, set_nested_item(alias, keys, value, augmented)
    base = set_nested_item(base, tuple(path) + tuple(keys), value, augmented)
    return base, _read(base, path)


def _gives_its_elements(container, path):
    """Whether reading `container[p0][p1]...` gives the element itself, or a staged value
    that stands for it (see `write_through`)."""
    for key in path:
        if type(container) not in (list, tuple, dict):
            return type(container) not in PYTHON_TYPES and backend_for(container) is not None
        if type(key) not in PYTHON_TYPES:
            return True  # a staged index into a Python container: staged as a table
        try:
            container = container[key]
        except (LookupError, TypeError):
            return True  # set_nested_item raises Python's error
    return True


def set_nested_item(target, keys, value, augmented=None):
    """`target[k0][k1]... = value` (or augmented): the innermost container is updated as
    `set_item` updates it, and each outer one is given the updated inner one where that
    update was functional (a staged row of a table) or changed a copy (torch's row of a
    table read at a traced index); Python containers change in place and are read and
    written as Python reads and writes them.

    Args:
        target: the outermost container.
        keys: the indices, outermost first (at least two).
        value: the value stored.
        augmented: as for `set_item`.

    Returns:
        The object to rebind `target` to.
    """
    staged_key = _staged_key_into_a_python_list(target, keys)
    if staged_key is not None:
        # a staged statement carrying the table carries it staged, whatever depth the key
        _stage_if_assigned_at_staged_index(target, staged_key)
        if staged_key is keys[0] and _assigned_in_rows(target, keys, value, augmented):
            return target
    inner = constant_tables.get_item(target, keys[0])
    if len(keys) == 2:
        updated = set_item(inner, keys[1], value, augmented)
    else:
        updated = set_nested_item(inner, keys[1:], value, augmented)
    if updated is inner and backend_for(target) is None and type(keys[0]) in PYTHON_TYPES:
        return target  # a Python container's own element: changed in place
    # a staged table's row: a functional update, or one changed in place that may be a copy
    # (torch gathers a row of a table of a run-time length, or at a traced index, where
    # torch's own indexing gives a view), written back as torch's view would be
    return set_item(target, keys[0], updated)


def _assigned_in_rows(target, keys, value, augmented):
    """`target[k0][k1]... = value` of a Python table (rows of one length) at a staged row
    index `k0`, outside staged control flow: each row's element becomes the staged choice
    between `value` and itself, written into the row as `set_item` writes (in place), so
    that the rows stay Python lists (`for row in t: row[j] = v` afterwards changes `t`, as
    in Python; stacked into tensors, a write through such a row was lost). Returns whether
    it did so."""
    backend = backend_for(keys[0])
    if list_frames.carried(target) or not target or not all(
            type(row) is list and len(row) == len(target[0]) for row in target):
        return False
    try:  # every row has the element (a Python key); a staged one is checked when run
        olds = [_read(row, keys[1:]) for row in target]
    except (LookupError, TypeError):
        return False
    if any(type(old) in (list, tuple, dict) for old in olds):
        return False
    if augmented is not None:  # the read: the table's element at the staged index
        value = getattr(operator, augmented)(_read(target, keys), value)
    position = backend.list_index(keys[0], len(target), 'list assignment')
    for k, (row, old) in enumerate(zip(target, olds)):
        chosen = backend.select(position == k, value, old)
        if len(keys) == 2:
            set_item(row, keys[1], chosen)
        else:
            set_nested_item(row, keys[1:], chosen)
    return True


def _read(container, keys):
    for key in keys:
        container = constant_tables.get_item(container, key)
    return container


def _staged_key_into_a_python_list(target, keys):
    """The first staged key of `target[k0][k1]...` that indexes a Python list reached
    from `target` through Python keys (a table's row, or `target` itself), else None. A
    staged row (a tensor, a TensorArray) is updated functionally: its table need not be
    staged."""
    container = target
    for key in keys:
        if type(key) not in PYTHON_TYPES:
            return key if type(container) is list else None
        try:
            container = container[key] if type(container) in (list, tuple, dict) else None
        except (IndexError, KeyError, TypeError):
            return None  # raised again where Python raises it
    return None


def _stage_if_assigned_at_staged_index(target, key):
    """A staged index into a Python list (or table) that a staged statement carries: the
    statement restarts with the list as a staged value (`list_frames.with_staged_list`)."""
    if _at_staged_index(target, key):
        list_frames.stage_list_if_loop_variable(target, list_frames.ITEM_ASSIGNED)


def _at_staged_index(target, key):
    """Whether `target[key]` indexes a non-empty Python list at a staged index."""
    return type(target) is list and bool(target) and type(key) not in PYTHON_TYPES


def repeat(left, right):
    """`left * right` where one operand is a list display (`[0] * (n + 1)`): Python's
    repetition; a list of numbers repeated a staged number of times is the backend's
    (`repeat_list`: on the runtime, a tensor of that run-time length).
    """
    items, count = (left, right) if type(left) is list else (right, left)
    if type(items) is list:
        options = list_directives.current()
        bound = {} if options is None or options.maximum_size is None else {
            'maximum_size': options.maximum_size, 'name': options.name}
        result = _by_backend((count,), lambda b: b.repeat_list(items, count, **bound))
        if result is not _PYTHONS:
            return result
    return left * right


def get_slice(target, lower, upper, step, name):
    """`target[lower:upper:step]` where a bound is not a constant: Python's slice; a Python
    list sliced at a staged bound is the backend's staged list of the elements
    (`slice_list`: on the runtime, a list of a run-time length), whose `+` concatenates.

    Args:
        target: the sliced value.
        lower: the slice's start, or None.
        upper: the slice's stop, or None.
        step: the slice's step, or None.
        name: the source text of `target` (a variable name), for messages.

    Returns:
        `target[lower:upper:step]`, or the backend's staged list.
    """
    key = slice(lower, upper, step)
    if type(target) is list:
        result = _by_backend((lower, upper, step), lambda b: b.slice_list(target, key, name))
        if result is not _PYTHONS:
            return result
    return target[key]


def list_concat(left, right):
    """`left + right` of two expressions that are lists by their syntax (`[1] + [0] * n`):
    Python's concatenation; where one is a staged list (a repeated display with a staged
    count), the backend's (`concat_lists`: on the runtime, one tensor), never a tensor's
    elementwise `+`.
    """
    result = _by_backend((left, right), lambda b: b.concat_lists(left, right))
    if result is not _PYTHONS:
        return result
    return left + right


def list_plus(left, right, in_place=False):
    """`left + right` (`left += right` where `in_place`) with one operand a list display
    (`path = path + [node]`, `out += [a, b]`).

    Python's own for Python lists, but a list that a staged loop or if carries grows there
    as with `append` (it becomes a staged list; `+` gives a new list, `+=` extends it in
    place). A staged list is the backend's concatenation, but inside a staged statement,
    where it gets the display's elements appended (a loop carries a list of one kind). Any
    other operand is Python's `+` (a numpy array or a tensor adds elementwise).
    """
    if type(left) is list and type(right) is list:
        if in_place:
            for value in right:
                left = list_append(left, value)
            return left
        for value in right:
            list_frames.stage_list_if_loop_variable(left, value)
        return left + right
    if type(right) is list and _staged_list(left) and list_frames.frame_stack():
        for value in right:
            left = list_append(left, value)
        return left
    if _staged_list(left) or _staged_list(right):
        return list_concat(left, right)
    return operator.iadd(left, right) if in_place else left + right


# What `_by_backend` gives when Python's own operation is to run.
_PYTHONS = object()


def _by_backend(values, hook):
    """`hook(backend)` for the backend of the first staged value among `values` (a call of
    one of its hooks), or _PYTHONS when none is staged or the hook raises NotImplementedError
    (Python's own operation runs)."""
    for value in values:
        backend = None if type(value) in PYTHON_TYPES else backend_for(value)
        if backend is not None:
            try:
                return hook(backend)
            except NotImplementedError:
                return _PYTHONS
    return _PYTHONS
