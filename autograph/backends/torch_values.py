"""Values of the PyTorch backend: predicates, Python numbers as tensors, staged ranges, types."""

import builtins

import torch
from torch._subclasses.fake_tensor import is_fake

from autograph.errors import StagingError

# The dtype of a tensor made from a Python number, as torch.tensor makes it.
_PYTHON_DTYPES = {bool: torch.bool, int: torch.int64, float: torch.get_default_dtype()}


def traced(value):
    """True for a tensor of torch's tracers (fake or functional): a value with no data yet."""
    return isinstance(value, torch.Tensor) and is_fake(value)


def as_tensor(value, dtype=None):
    """A Python number or bool as a 0-d tensor (of `dtype`, or torch's dtype for it); a tensor
    as it is, or cast to `dtype`."""
    if isinstance(value, torch.Tensor):
        return value if dtype is None or value.dtype == dtype else value.to(dtype)
    if type(value) not in _PYTHON_DTYPES:
        raise StagingError(
            'a staged torch.cond or torch.while_loop carries only tensors and Python numbers; '
            'found {!r} of type {}. Compute it outside the staged control flow, or make it a '
            'tensor.'.format(value, type(value).__name__))
    return torch.tensor(value, dtype=dtype or _PYTHON_DTYPES[type(value)])


def predicate(value, construct):
    """The scalar bool tensor that Python's truth of `value` stands for.

    Raises:
        StagingError: for a tensor of more than one element (Python raises too), naming the
            construct.
    """
    if not isinstance(value, torch.Tensor):
        return torch.tensor(builtins.bool(value))
    if value.dim() != 0 and value.numel() != 1:
        raise StagingError(
            'the condition of a staged {} is a tensor of shape {}; Python takes the truth of '
            'a tensor of one element only ("Boolean value of Tensor with more than one value '
            'is ambiguous"). Reduce it first, e.g. with .any() or .all().'.format(
                construct, tuple(value.shape)))
    value = value.reshape(())
    return value if value.dtype == torch.bool else value != 0


def leaf_type(value):
    """A tensor's dtype, or the Python type of a number (weakly typed, as in torch's promotion)."""
    if isinstance(value, torch.Tensor):
        return value.dtype
    return type(value)


def joint_dtype(types):
    """The dtype that the outputs of `types` (from `leaf_type`) share, or None if none is a
    tensor; Python numbers take the tensor's dtype, as `tensor + 1` does."""
    dtypes = [t for t in types if isinstance(t, torch.dtype)]
    if not dtypes:
        pythons = [t for t in types if t in _PYTHON_DTYPES]
        # float wins over int, int over bool, as Python's arithmetic does
        return _PYTHON_DTYPES[max(pythons, key=[bool, int, float].index)] if pythons else None
    joint = dtypes[0]
    for dtype in dtypes[1:]:
        joint = torch.promote_types(joint, dtype)
    return joint


def compatible(before, after):
    """Tells whether a staged value of type `before` may become one of type `after`."""
    if before == after:
        return True
    kinds = {bool: 0, int: 1, float: 2}
    python = [t for t in (before, after) if t in kinds]
    dtypes = [t for t in (before, after) if isinstance(t, torch.dtype)]
    if len(python) == 2:
        return False
    if len(python) == 1 and len(dtypes) == 1:
        dtype = dtypes[0]
        rank = 2 if dtype.is_floating_point or dtype.is_complex else (
            0 if dtype == torch.bool else 1)
        return kinds[python[0]] <= rank
    return False


class StagedRange:
    """`range(start, stop, step)` with a traced bound: the length and elements as tensors."""

    __slots__ = ('start', 'stop', 'step')

    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step

    def length(self):
        """The number of elements, a 0-d int64 tensor (a Python int when no bound is traced)."""
        if not any(isinstance(v, torch.Tensor) for v in (self.start, self.stop, self.step)):
            return len(builtins.range(self.start, self.stop, self.step))
        start, stop, step = (as_tensor(v, torch.int64) for v in (self.start, self.stop,
                                                                  self.step))
        count = torch.div(stop - start + step - torch.sign(step), step, rounding_mode='floor')
        return torch.clamp(count, min=0)

    def element(self, index):
        return self.start + index * self.step

    def __repr__(self):
        return 'StagedRange({!r}, {!r}, {!r})'.format(self.start, self.stop, self.step)


def staged_range(*args):
    """`range(*args)` where an argument is a traced tensor."""
    if len(args) == 1:
        args = (0, args[0], 1)
    elif len(args) == 2:
        args = (args[0], args[1], 1)
    if len(args) != 3:
        raise TypeError('range expected at most 3 arguments, got {}'.format(len(args)))
    for value in args:
        if isinstance(value, torch.Tensor) and (value.dtype.is_floating_point
                                                or value.dtype == torch.bool):
            raise TypeError("'float' object cannot be interpreted as an integer")
    if type(args[2]) is int and args[2] == 0:
        raise ValueError('range() arg 3 must not be zero')
    return StagedRange(*args)


def row(tensor, index):
    """`tensor[index]` for a traced index (indexing with it would need its value)."""
    if not isinstance(index, torch.Tensor):
        return tensor[index]
    return torch.index_select(tensor, 0, index.reshape(1).to(torch.int64)).squeeze(0)


def zero_like(value):
    """A zero of `value`'s type: a tensor's zeros, or the Python zero."""
    if isinstance(value, torch.Tensor):
        return torch.zeros_like(value)
    return type(value)(0)


