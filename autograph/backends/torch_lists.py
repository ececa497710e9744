"""The PyTorch backend's hooks for Python lists in staged code.

A list of numbers whose length torch knows only when the program runs (`[0] * n` with a
traced `n`, `[1] + [0] * n`) is a tensor of an unbacked size, which torch.export and
torch.compile allow: item assignment at a traced index, `len`, reads, staged loops and
branches carry it (torch.py's `_sized_as` keeps its size through them). A list that grows in
a staged loop cannot be one: torch.while_loop carries tensors of one shape.
"""

import torch

from autograph.backends import torch_ops
from autograph.backends import torch_values
from autograph.backends.torch_values import as_tensor
from autograph.backends.torch_values import is_index
from autograph.backends.torch_values import leaf_type
from autograph.backends.torch_values import number_like
from autograph.backends.torch_values import stands_for_number
from autograph.errors import StagingError

_PYTHON_KINDS = (bool, int, float)


class ListHooks:
    """`Backend.new_list`, `set_item`, `repeat_list`, `concat_lists` and `stack` for torch
    values (a mixin of TorchBackend; `list_index` is Backend's)."""

    def new_list(self, items, element, name, maximum_iterations=None, maximum_size=None):
        """Refuses a list that grows in a staged loop, saying how to write the loop.

        Raises:
            StagingError: always; torch.while_loop carries tensors of fixed shapes.
        """
        del items, element, maximum_iterations, maximum_size
        short = name if name.isidentifier() else 'xs'
        raise StagingError(
            "The list '{name}' is appended to (or popped from) in a loop that torch stages "
            'as torch.while_loop, whose loop variables are tensors of fixed shape, so a list '
            'cannot change its size inside a staged loop. Make the list before the loop at '
            'its final length ({short} = [0] * n, which torch allows for a traced n) and '
            'write element i with {short}[i] = value, or make the loop a Python loop of a '
            'known number of steps (its bound a Python int).'.format(name=name, short=short))

    def set_item(self, target, key, value):
        """`target[key] = value` of a tensor at a traced int index (or at any int index of a
        tensor of a run-time length, `torch_values.run_time_length`), in place as torch's
        (and Python's list's) is: `index_put_` at Python's position of the key (a negative one
        counts from the end; one out of range raises IndexError when the program runs),
        where torch's own assignment would need the index's value while it traces.

        Raises:
            NotImplementedError: for other keys or targets (Python's assignment runs).
        """
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
        value = as_tensor(value, target.dtype).to(target.dtype)
        target.index_put_((position.reshape(1),), value.expand(target.shape[1:]).unsqueeze(0))
        return target

    def repeat_list(self, items, count, maximum_size=None, name=None):
        """`[0] * n` with a traced `n`: a tensor of the run-time length, empty for n below 1,
        as Python's repetition is (a bound from `set_list_options` is not needed)."""
        del maximum_size, name
        return repeated(items, count)

    def concat_lists(self, left, right):
        """`[1] + [0] * n`: one tensor of the run-time length (`concatenated`)."""
        return concatenated(left, right)

    def stack(self, values):
        """Python numbers (a table), rows of numbers of one length, or tensors of one shape
        and numbers, stacked along a new first dimension (`torch_values.stacked`)."""
        return torch_values.stacked(values)


def _numbers(items):
    return type(items) is list and all(type(x) in _PYTHON_KINDS for x in items)


def repeated(items, count):
    """`items * count` of a Python list of numbers and a traced int `count`: their `table`,
    repeated max(count, 0) times, of a length torch knows only when it runs.

    Raises:
        NotImplementedError: for another count or items (Python's `*` runs).
    """
    if not (is_index(count) or isinstance(count, torch.Tensor) and count.numel() == 1 and not (
            torch_values.is_float(count.dtype))) or not items or not _numbers(items):
        raise NotImplementedError(type(count))
    length = _run_time_size(count.reshape(()).clamp(min=0) * len(items))
    values = torch_values.table(items, torch_values.joint_dtype([type(x) for x in items]))
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
    if not all(_numbers(v) or isinstance(v, torch.Tensor) and v.dim() == 1 and (
            stands_for_number(v)) for v in parts):
        raise NotImplementedError(type(left), type(right))
    dtype = torch_values.joint_dtype([t for v in parts for t in (
        [type(x) for x in v] if type(v) is list else [v.dtype])])
    joined = torch.cat([torch_values.table(v, dtype) if type(v) is list else v.to(dtype)
                        for v in parts])
    if not torch_values.run_time_length(joined):
        return number_like(joined)
    length = _run_time_size(torch_values.scalar(0, torch.int64) + joined.shape[0])
    return number_like(torch_ops.sized(joined, [length]))


def _run_time_size(length):
    """A size of one symbol of its own that stands for the traced int `length` (>= 0).

    Not an expression of other sizes (`1 + u0`, `2 * u0`): torch 2.13's inductor cannot
    compile a loop that carries a tensor of such a size ("expected [u0] to have been
    codegen-ed")."""
    size = length.item()
    torch._check(size >= 0)  # pylint: disable=protected-access
    return size


def _widened(dtype, other):
    """`dtype`, or the type `other` (a dtype or a Python number type) when it is of a wider
    kind (a float meeting ints), at torch's dtype for it."""
    kind = torch_values.dtype_kind(other) if isinstance(other, torch.dtype) else (
        _PYTHON_KINDS.index(other))
    if kind <= torch_values.dtype_kind(dtype):
        return dtype
    return other if isinstance(other, torch.dtype) else torch_values.python_dtype(other)
