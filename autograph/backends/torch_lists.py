"""The PyTorch backend's hooks for Python lists in staged code.

A list of numbers whose length torch knows only when the program runs (`[0] * n` with a
traced `n`, `[1] + [0] * n`) is a tensor of an unbacked size, which torch.export and
torch.compile allow: item assignment at a traced index, `len`, reads, staged loops and
branches carry it (`torch_carried.sized_as` keeps its size through them).

A list that a staged loop appends to cannot be one while the loop runs (torch.while_loop
carries tensors of one shape): it is a StagedList, a buffer whose capacity bounds the list
(from the loop's length and one iteration's appends, `list_frames.growth`) and a traced
length, and after the loop the tensor of its elements.
"""

import torch
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols

from autograph.backends import torch_ops
from autograph.backends import torch_values
from autograph.backends.torch_values import as_tensor
from autograph.backends.torch_values import is_index
from autograph.backends.torch_values import leaf_type
from autograph.backends.torch_values import number_like
from autograph.backends.torch_values import run_time_size
from autograph.backends.torch_values import stands_for_list
from autograph.backends.torch_values import stands_for_number
from autograph.errors import ListFullError
from autograph.errors import StagingError
from autograph.errors import UnboundedListError
from autograph.operators import list_frames
from autograph.operators import number_methods

_PYTHON_KINDS = (bool, int, float)
_EMPTY_ROWS = (
    'a table made by a comprehension over a staged range has empty rows ([[0] * m for _ in '
    'range(n)] with m == 0 when the program runs): torch needs its rows at least one long. '
    'Make each row one longer than it needs, or make the table from Python numbers.')


class StagedList:
    """A Python list that a staged loop appends to: a buffer of a fixed number of slots (its
    capacity: a size torch may know only when the program runs) and a traced length, the
    slots in use. Once the loop that made it is staged, it is the tensor of its elements
    (`elements`, `finished_list`)."""

    def __init__(self, buffer, length, name, checked):
        self.buffer = buffer  # [capacity, *element shape]
        self.length = number_like(length)  # int64, 0-d: the elements in use
        self.name = name  # the user's variable name, for messages
        self.checked = checked  # whether an append checks the capacity (a user's bound)

    def __repr__(self):
        return 'StagedList({!r}, buffer of {})'.format(self.name, self.buffer.shape[0])

    def with_buffer(self, buffer, length=None):
        return StagedList(buffer, self.length if length is None else length, self.name,
                          self.checked)

    def __getitem__(self, index):
        """An element (`l[i]`, `l[-1]`), read inside the loop: IndexError for an index out of
        range when the program runs."""
        if isinstance(index, slice):
            raise TypeError("Slicing the staged list '{}' inside the loop that appends to it is "
                            'not supported: read its elements one at a time.'.format(self.name))
        return torch_values.row(self.buffer, StagedList.position(index, self.length, 'list'))

    # Python's position of an index (the backend's `list_index`), installed by torch.py.
    position = None

    def elements(self):
        """The elements in use, as one tensor of a run-time length (standing for the list)."""
        size = run_time_size(self.length)
        torch._check(size <= self.buffer.shape[0])  # pylint: disable=protected-access
        return number_like(self.buffer.narrow(0, 0, size))


class ListHooks:
    """`Backend.new_list`, `list_append`, `list_pop`, `set_item`, `repeat_list`,
    `concat_lists`, `finished_list` and `stack` for torch values (a mixin of TorchBackend;
    `list_index` is Backend's)."""

    def new_list(self, items, element, name, maximum_iterations=None, maximum_size=None):
        """A list that a staged loop appends to: a StagedList whose capacity is the user's
        bound (`set_list_options(maximum_size=...)`, or `len(items)` plus the loop's
        `maximum_iterations` times the appends of one iteration), else, for a for loop,
        `len(items)` plus its number of iterations times the appends of one iteration (each
        traced path counted): no more than the list can hold.

        Raises:
            StagingError: when no bound is known (a while loop without maximum_iterations, or
                a staged loop nested in the loop appends), saying how to write the loop.
        """
        if isinstance(items, torch.Tensor):  # a list of a run-time length (`is_list_value`)
            return _grown_tensor(items, element, name, maximum_iterations, maximum_size)
        capacity = maximum_size
        if capacity is None:
            capacity = _capacity(len(items), *_bound(name, maximum_iterations))
        rows = [_row(v) for v in items]
        shapes = [(tuple(as_tensor(v).shape), leaf_type(v)) for v in rows]
        if element is not None:  # a value of a discarded pass: its shape and type only
            shapes.append(_shape_and_type(element))
        shape = shapes[0][0]
        if any(free_unbacked_symbols(size) for size in shape):
            raise StagingError(
                "The list '{}' is appended to in a staged loop or branch, and its elements "
                'are lists or tensors of a length known only when the program runs '
                '([0] * n): torch carries the list as one tensor of its rows, which must have '
                'one length. Make the table before the loop as a tensor (torch.zeros(rows, '
                'n)) and write its rows.'.format(name))
        dtype = torch_values.joint_dtype([kind for _, kind in shapes])
        buffer = torch.zeros((capacity,) + shape, dtype=dtype, device=torch_values.device_of(
            rows + [element]))
        return StagedList(_written(buffer, rows), torch_values.scalar(len(items), torch.int64), name,
                          checked=maximum_size is not None or maximum_iterations is not None)

    def is_list_value(self, value):
        """A tensor standing for a list of numbers (`[0] * n`, a list a staged loop built):
        a staged loop or if that appends to it makes it a StagedList."""
        return stands_for_list(value)

    def list_append(self, target, element):
        """Writes `element` at the list's length (functionally; the list is rebound). A list
        of a user's bound that is full raises ListFullError when the program runs. Outside
        staged control flow, a tensor standing for a list is concatenated with the element.

        Raises:
            StagingError: for a tensor standing for a list that a staged statement carries
                in a way autograph cannot follow (see `_refuse_growth`).
        """
        element = _row(element)
        if type(target) is not StagedList and self.is_list_value(target):
            _refuse_growth(target, 'append', element)
            return list_frames.rebound(target, _appended(target, element))
        _refuse_growth(target, 'append')
        if target.checked:
            capacity = target.buffer.shape[0]
            self.raise_unless(target.length < capacity, [],
                              lambda: ListFullError(target.name, capacity))
        wider = _wider_kind(target.buffer.dtype, element)
        if wider is not None:  # a float appended to ints: all floats now, as the runtime's
            target = target.with_buffer(target.buffer.to(wider))
        value = as_tensor(element, target.buffer.dtype)
        buffer = target.buffer.index_put((target.length.reshape(1),), value.unsqueeze(0))
        return target.with_buffer(buffer, target.length + 1)

    def list_pop(self, target, i):
        """Removes the element at `i` (the last where `i` is None), Python's IndexError for
        an empty list or an index out of range when the program runs.

        Raises:
            StagingError: for a tensor standing for a list (see `_refuse_growth`).
        """
        if type(target) is not StagedList and self.is_list_value(target):
            _refuse_growth(target, 'pop', list_frames.POPPED)
            rest, element = _popped(self, target, i)
            return list_frames.rebound(target, rest), element
        _refuse_growth(target, 'pop')
        self.raise_unless(target.length > 0, [], lambda: IndexError('pop from empty list'))
        length = torch.clamp(target.length - 1, min=0)
        if i is None:
            return target.with_buffer(target.buffer, length), torch_values.row(
                target.buffer, length)
        index = self.list_index(i, target.length, 'pop')
        return (target.with_buffer(_without(target.buffer, index), length),
                torch_values.row(target.buffer, index))

    def list_like(self, staged, items, name):
        """`items` (`return []`, a Python list of numbers) as the other branch's kind of list:
        a StagedList of the same capacity, or a tensor standing for a list; or `items`, a
        tensor standing for a list, at the wider dtype of `staged`'s (a float appended)."""
        del name
        if type(staged) is StagedList and _numbers(items):
            return staged.with_buffer(_written(torch.zeros_like(staged.buffer), items),
                                      torch_values.scalar(len(items), torch.int64))
        if not self.is_list_value(staged):
            raise NotImplementedError(type(staged))
        if self.is_list_value(items):
            return number_like(items.to(_widened(items.dtype, staged.dtype)))
        if not _numbers(items):
            raise NotImplementedError(type(items))
        if not items:
            return number_like(torch.zeros((0,) + tuple(staged.shape[1:]), dtype=staged.dtype,
                                           device=staged.device))
        return number_like(torch_values.table(items, staged.dtype))

    def finished_list(self, staged):
        """The loop that made the list is staged: the tensor of its elements."""
        return staged.elements() if type(staged) is StagedList else staged

    def set_item(self, target, key, value):
        """`target[key] = value` of a tensor at a traced int index (or at any int index of a
        tensor of a run-time length, `torch_values.run_time_length`), in place as torch's
        (and Python's list's) is: `index_put_` at Python's position of the key (a negative one
        counts from the end; one out of range raises IndexError when the program runs),
        where torch's own assignment would need the index's value while it traces.

        Raises:
            NotImplementedError: for other keys or targets (Python's assignment runs).
        """
        if type(target) is StagedList:
            position = self.list_index(key, target.length, 'list assignment')
            value = as_tensor(value, target.buffer.dtype)
            return target.with_buffer(target.buffer.index_put(
                (torch.as_tensor(position).reshape(1),), value.unsqueeze(0)))
        if not (isinstance(target, torch.Tensor) and target.dim() > 0):
            raise NotImplementedError(type(target))
        if type(key) is int and torch_values.run_time_length(target):
            # a list of a run-time length (`[0] * n`): Python's IndexError when it runs, not
            # the assertion on the size that torch's own assignment stages
            key = torch_values.scalar(key, torch.int64)
        if not is_index(key):
            raise NotImplementedError(type(key))
        position = self.list_index(key.reshape(()), target.shape[0], 'list assignment')
        dtype = _widened(target.dtype, leaf_type(value))
        if dtype != target.dtype and stands_for_number(target):
            # a float into a list of ints: the list (`[0] * n`) holds the float, as Python's
            # does; a tensor's own assignment casts the float to the tensor's dtype
            target = number_like(target.to(dtype))
        value = as_tensor(value, target.dtype)
        target.index_put_((position.reshape(1),), value.expand(target.shape[1:]).unsqueeze(0))
        return target

    def repeat_list(self, items, count, maximum_size=None, name=None):
        """`[0] * n` with a traced `n`: a tensor of the run-time length, empty for n below 1,
        as Python's repetition is (a bound from `set_list_options` is not needed)."""
        del maximum_size, name
        return repeated(items, count)

    def repeat_element(self, element, iterable):
        """`[element() for _ in range(n)]` with a traced `n`, the element a fresh value
        that does not depend on the loop (`[0] * m` of a traced `m` too): one tensor of its
        copies, of a length torch knows only when it runs (a table of rows: `t[i][j] = v`)."""
        if type(iterable) is not torch_values.StagedRange:
            raise NotImplementedError(type(iterable))
        element = element()
        if type(element) in _PYTHON_KINDS:
            return repeated([element], iterable.length())
        if type(element) is list and element and _rows_of_numbers(element):
            element = torch_values.stacked(element)  # their constant table
        elif not stands_for_list(element):
            raise NotImplementedError(type(element))
        count = iterable.length()
        element = self._nonempty_rows(element, count)
        rows = element.unsqueeze(0).expand((run_time_size(count),) + tuple(element.shape))
        return number_like(torch_ops.dense(rows) if torch_values.run_time_rows(rows) else (
            rows.clone()))

    def _nonempty_rows(self, element, count):
        """`element` (a row of a table of `count` rows), each size torch knows only when the
        program runs a new one that it knows is at least 1, raising `_EMPTY_ROWS` where it is
        not: torch lays out a table of rows of a run-time size `u0` with strides `Max(1, u0)`,
        with which torch.cond and while_loop cannot tell two tables' layouts alike (the check
        runs before the size's own assertion, which torch places where the size is made). A
        table of no rows (`identity(0)`) has rows one long: no one sees them."""
        for d, size in enumerate(element.shape):
            if not free_unbacked_symbols(size):
                continue
            length = torch.full((), size, dtype=torch.int64, device=element.device)
            self.raise_unless((length >= 1) | (count == 0), [],
                              lambda: StagingError(_EMPTY_ROWS))
            width = torch.where(count == 0, length.clamp(min=1), length).item()
            torch._check(width >= 1)  # pylint: disable=protected-access
            torch._check(width <= size + 1)  # pylint: disable=protected-access
            pad = list(element.shape)
            pad[d] = 1
            element = number_like(torch.cat([element, element.new_zeros(pad)], d).narrow(
                d, 0, width), stands_for_number(element))
        return element

    def concat_lists(self, left, right):
        """`[1] + [0] * n`: one tensor of the run-time length (`concatenated`)."""
        return concatenated(left, right)

    def slice_list(self, items, key, name):
        """`xs[a:b:c]` of a Python list of numbers with a traced bound (a Python int step): a
        tensor of the elements Python's slice gives, of a run-time length (a list too: `+`
        concatenates it)."""
        del name
        step = 1 if key.step is None else key.step
        if type(step) is not int or not items or not _numbers(items):
            raise NotImplementedError(type(step))
        if step == 0:
            raise ValueError('slice step cannot be zero')
        size = len(items)
        first = _slice_bound(key.start, size, step, 0 if step > 0 else size - 1)
        last = _slice_bound(key.stop, size, step, size if step > 0 else -1)
        span = last - first if step > 0 else first - last
        count = torch.div(span + abs(step) - 1, abs(step), rounding_mode='floor')
        length = run_time_size(torch.clamp(count, min=0))
        values = torch_values.table(items, torch_values.joint_dtype([type(x) for x in items]))
        positions = first + step * torch.arange(length, device=values.device)
        return number_like(values[positions])

    def stack(self, values):
        """Python numbers (a table), rows of numbers of one length, or tensors of one shape
        and numbers, stacked along a new first dimension (`torch_values.stacked`)."""
        return torch_values.stacked(values)


def _written(buffer, items):
    """`buffer` with `items` written in its first slots (functionally), at its dtype."""
    for k, item in enumerate(items):
        buffer = buffer.index_put((torch_values.scalar(k, torch.int64).reshape(1),),
                                  as_tensor(item, buffer.dtype).unsqueeze(0))
    return buffer


def _refuse_growth(target, method, element=None):
    """Raises for an append to (or pop from) a tensor that stands for a list, where staged
    control flow carries it: a statement that carries it as one of its variables makes it a
    StagedList first (`list_frames.stage_list_if_loop_variable`: a signal, or a scout's
    record); one that reaches it another way cannot change its length. Outside staged control
    flow, or in a scout that recorded it (`element` given), returns."""
    if type(target) is StagedList:
        return
    if not stands_for_number(target):  # a tensor of the user's, as Python has it
        raise AttributeError("'{}' object has no attribute '{}'".format(
            type(target).__name__, method))
    if element is not None and (list_frames.stage_list_if_loop_variable(target, element)
                                or not list_frames.frame_stack()):
        return
    raise StagingError(
            'A list of a length known only when the program runs ([0] * n, or a list that a '
            'staged loop or if built) is one tensor under torch, and {}() would change its '
            'length inside a staged loop or branch that does not carry it as one of its '
            'variables (a list inside another list, tuple or dict): append to a list held in '
            'a variable of its own.'.format(method))


def _count(xs, value):
    """`xs.count(value)` of a tensor standing for a list of numbers: how many elements equal
    `value`, a traced int."""
    if not (stands_for_list(xs) and xs.ndim == 1) or (
            type(value) not in _PYTHON_KINDS and not (
                isinstance(value, torch.Tensor) and value.numel() == 1)):
        raise NotImplementedError(number_methods.count)
    return number_like((xs == as_tensor(value).reshape(())).sum())


# Python's list methods of a tensor standing for a list (`Backend.call_builtin`), keyed as
# `number_methods.METHODS` keys them.
METHODS = {number_methods.count: _count}


def _slice_bound(bound, size, step, default):
    """Python's start or stop of a slice of `size` elements (`slice.indices`), an int64
    tensor."""
    if bound is None:
        return torch_values.scalar(default, torch.int64)
    bound = as_tensor(bound, torch.int64).reshape(())
    low, high = (0, size) if step > 0 else (-1, size - 1)
    return torch.where(bound < 0, torch.clamp(bound + size, min=low),
                       torch.clamp(bound, max=high))


def _shape_and_type(value):
    """(shape, type) of `value` as a row of a list (`_row`), found with no operation: a value
    of a discarded pass, which the trace must not read."""
    if type(value) in (tuple, list) and value:
        return (len(value),), torch_values.joint_dtype([leaf_type(v) for v in value])
    if isinstance(value, torch.Tensor):
        return tuple(value.shape), value.dtype
    return (), leaf_type(value)


# Python's kinds of number, narrowest first: a buffer holds one kind
_KINDS = (torch.bool, torch.int64, torch.float64)


def _wider_kind(dtype, element):
    """The dtype a buffer of `dtype` takes to hold `element` of a wider kind of number (a
    float appended to ints: the buffer's cast would truncate it, a wrong value), or None."""
    if isinstance(element, torch.Tensor):
        kind, wide = torch_values.dtype_kind(element.dtype), element.dtype
    elif type(element) in (bool, int, float):
        kind = (bool, int, float).index(type(element))
        wide = torch.get_default_dtype() if kind == 2 else _KINDS[kind]
    else:
        return None
    return wide if kind > torch_values.dtype_kind(dtype) else None


def _row(value):
    """A tuple or list of numbers (`(start, end)`) as the row of a tensor of rows; other
    values as they are."""
    if type(value) not in (tuple, list) or not value:
        return value
    try:
        return torch_values.stacked(list(value))
    except TypeError:  # not numbers: as_tensor says what a staged list holds
        return value


def _appended(target, element):
    """`target + [element]` of a tensor standing for a list, outside staged control flow: one
    tensor of a run-time length (one symbol of its own, see `run_time_size`)."""
    dtype = _widened(target.dtype, leaf_type(element))
    joined = torch.cat([target.to(dtype), as_tensor(element, dtype).unsqueeze(0)])
    length = torch_values.length(target)
    if type(length) is int:
        return number_like(joined)
    size = run_time_size(length + 1)
    return number_like(torch_ops.sized(joined, [size] + list(target.shape[1:])))


def _popped(backend, target, i):
    """(the list without its element at `i`, the last where `i` is None; that element) of a
    tensor standing for a list, outside staged control flow: Python's IndexError for an
    empty list or an index out of range when the program runs."""
    length = torch_values.length(target)
    backend.raise_unless(length > 0, [], lambda: IndexError('pop from empty list'))
    last = torch.clamp(as_tensor(length, torch.int64) - 1, min=0)
    if i is None:
        return number_like(target.narrow(0, 0, run_time_size(last))), torch_values.row(
            target, last)
    index = backend.list_index(i, length, 'pop')
    kept = torch.arange(run_time_size(last), device=target.device)
    rest = target[kept + (kept >= index).to(torch.int64)]  # the elements after it move up
    return number_like(rest), torch_values.row(target, index)


def _without(buffer, index):
    """`buffer` with its row at the traced `index` removed and the rows after it moved up
    one (the last row repeated: a buffer's rows past the list's length are unused)."""
    rows = torch.arange(buffer.shape[0], device=buffer.device)
    last = as_tensor(torch_values.length(buffer), torch.int64) - 1
    return buffer[torch.minimum(rows + (rows >= index).to(torch.int64), last)]


def _bound(name, maximum_iterations):
    """(appends, iterations) that bound a list a staged statement grows (`list_frames.growth`,
    or the loop's `maximum_iterations`).

    Raises:
        StagingError: when no bound is known, saying how to write the loop.
    """
    growth = list_frames.growth()
    iterations, appends = (growth.iterations, growth.appends) if growth else (None, None)
    if appends == 0:  # a list the statement only pops from: no room to grow
        return 0, 0
    bound = maximum_iterations if maximum_iterations is not None else iterations
    if bound is None or appends is None:
        raise UnboundedListError(_unbounded_message(name))
    return appends, bound


def _grown_tensor(items, element, name, maximum_iterations, maximum_size):
    """`new_list` of a tensor standing for a list: a StagedList whose buffer holds the
    tensor's elements followed by as many free slots as the statement may append."""
    length = as_tensor(torch_values.length(items), torch.int64)
    if maximum_size is not None:
        extra = run_time_size(torch.clamp(maximum_size - length, min=0))
    else:
        extra = _capacity(0, *_bound(name, maximum_iterations))
    dtype = items.dtype if element is None else _widened(items.dtype, leaf_type(element))
    rest = tuple(items.shape[1:])
    free = torch.zeros((extra,) + rest, dtype=dtype, device=items.device)
    # the capacity: one size of its own, not `u0 + extra` (see `run_time_size`)
    capacity = run_time_size(length + extra)
    buffer = torch_ops.sized(torch.cat([items.to(dtype), free]), [capacity, *rest])
    return StagedList(buffer, length, name,
                      checked=maximum_size is not None or maximum_iterations is not None)


def flattened(values):
    """`values` with each StagedList as its buffer and length, and the function that rebuilds
    values of that layout from such flat ones (None where no value is a StagedList)."""
    if not any(type(v) is StagedList for v in values):
        return tuple(values), None
    layout = [v if type(v) is StagedList else None for v in values]
    flat = []
    for value in values:
        flat.extend((value.buffer, value.length) if type(value) is StagedList else (value,))

    def rebuild(flat_values):
        rest = iter(flat_values)
        return tuple(next(rest) if v is None else v.with_buffer(next(rest), next(rest))
                     for v in layout)
    return tuple(flat), rebuild


def flat_function(fn, rebuild_args, rebuilds):
    """`fn` of flat arguments (rebuilt by `rebuild_args`, if any) giving flat outputs; the
    rebuild of its outputs is put in `rebuilds` (for the caller of torch.cond)."""
    def flat(*args):
        flat_outs, rebuild = flattened(tuple(fn(*(rebuild_args(args) if rebuild_args else
                                                  args))))
        rebuilds[:] = [rebuild]
        return flat_outs
    return flat


def _unbounded_message(name):
    short = name if name.isidentifier() else 'xs'
    return (
        "The list '{name}' is appended to (or popped from) in a loop that torch stages as "
        'torch.while_loop, whose loop variables are tensors of fixed shape, and no bound of '
        'its length is known (a while loop, or a staged loop nested in the loop appends). '
        'Write it as a for loop over a range or a tensor (its length bounds the list), bound '
        'the loop with autograph.experimental.set_loop_options(maximum_iterations=N) as the '
        "first statement of its body, or make the list before the loop at its final length "
        '({short} = [0] * n, which torch allows for a traced n) and write element i with '
        '{short}[i] = value.'.format(name=name, short=short))


def _capacity(count, appends, bound):
    """`count + appends * max(bound, 0)`: a Python int, or a run-time size of a traced bound."""
    if type(bound) is int:
        return count + appends * max(bound, 0)
    if not isinstance(bound, torch.Tensor):  # a size of a tensor torch traces (a SymInt)
        bound = torch_values.scalar(bound, torch.int64)
    return run_time_size(count + appends * bound.reshape(()).clamp(min=0))


def _rows_of_numbers(items):
    """Whether `items` are numbers, or rows of numbers of one length (a table)."""
    if _numbers(items):
        return True
    return all(type(v) in (list, tuple) and v and len(v) == len(items[0]) and _numbers(v)
               for v in items)


def _scalars(items):
    """Whether `items` is a list of Python numbers and 0-d tensors (`[i] * n`)."""
    return type(items) is list and all(type(x) in _PYTHON_KINDS or isinstance(
        x, torch.Tensor) and x.dim() == 0 for x in items)


def _numbers(items):
    return type(items) is list and all(type(x) in _PYTHON_KINDS for x in items)


def repeated(items, count):
    """`items * count` of a Python list of numbers (or 0-d tensors: `[i] * n`) and a traced
    int `count`: their `table` (or stack), repeated max(count, 0) times, of a length torch
    knows only when it runs.

    Raises:
        NotImplementedError: for another count or items (Python's `*` runs).
    """
    if not (is_index(count) or isinstance(count, torch.Tensor) and count.numel() == 1 and not (
            torch_values.is_float(count.dtype))) or not items or not _scalars(items):
        raise NotImplementedError(type(count))
    length = run_time_size(count.reshape(()).clamp(min=0) * len(items))
    values = torch_values.table(items, torch_values.joint_dtype(
        [type(x) for x in items])) if _numbers(items) else torch.stack(
            [as_tensor(x) for x in items])  # the numbers' constant table, or the scalars
    positions = torch.arange(length, device=values.device) % len(items)
    return number_like(values[positions])


def concatenated(left, right):
    """`left + right` of two lists of numbers, at least one a tensor standing for one
    (`[1] + [0] * n`): one rank-1 tensor of their joint dtype, of a length torch knows only
    when it runs.

    Raises:
        NotImplementedError: for other values (Python's `+` runs).
    """
    parts = [v for v in (left, right) if not (type(v) is list and not v)]
    if not all(_numbers(v) or stands_for_list(v) and v.ndim == 1 for v in parts):
        raise NotImplementedError(type(left), type(right))
    dtype = torch_values.joint_dtype([t for v in parts for t in (
        [type(x) for x in v] if type(v) is list else [v.dtype])])
    joined = torch.cat([torch_values.table(v, dtype) if type(v) is list else v.to(dtype)
                        for v in parts])
    if not torch_values.run_time_length(joined):
        return number_like(joined)
    length = run_time_size(torch_values.length(joined))
    return number_like(torch_ops.sized(joined, [length]))


def _widened(dtype, other):
    """`dtype`, or the type `other` (a dtype or a Python number type) when it is of a wider
    kind (a float meeting ints), at torch's dtype for it."""
    kind = torch_values.dtype_kind(other) if isinstance(other, torch.dtype) else (
        _PYTHON_KINDS.index(other))
    if kind <= torch_values.dtype_kind(dtype):
        return dtype
    return other if isinstance(other, torch.dtype) else torch_values.python_dtype(other)
