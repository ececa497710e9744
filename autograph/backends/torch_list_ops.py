"""Python's `+`, `*` and `==` of tensors that stand for lists of numbers (`[0] * n` of a
traced `n`, `list(range(n))`, a list a staged loop built: `stands_for_list`), as converted
code means them (torch_lifting.ConvertedCode): concatenation, repetition and list equality,
where torch's own operators would add, multiply and compare element by element, or give
Python's `False` for a tensor beside a list.
"""

import torch

from autograph.backends.torch_lists import concatenated
from autograph.backends.torch_values import as_tensor
from autograph.backends.torch_values import is_index
from autograph.backends.torch_values import joint_dtype
from autograph.backends.torch_values import length
from autograph.backends.torch_values import number_like
from autograph.backends.torch_values import run_time_size
from autograph.backends.torch_values import stands_for_list
from autograph.backends.torch_values import table

# `+` (and `+=`) of lists: the names of torch's functions for them, each with whether its
# operands come in swapped order (`[1] + xs` is `xs.__radd__([1])`)
_CONCATENATIONS = {'add': False, 'add_': False, '__radd__': True}
# `xs * 2` and `2 * xs` both reach torch as `mul(xs, 2)`
_REPETITIONS = ('mul', 'mul_', '__rmul__', '__imul__')
# Python's `==` (a call of `torch.eq` is torch's, element by element). Python's `!=` of a
# tensor and a list never reaches a torch function mode: torch 2.13's `Tensor.__ne__` gives
# NotImplemented for a list first, and Python then answers True (docs/torch.md)
_EQUALITIES = {'__eq__': False, '__ne__': True}
_PYTHON_NUMBERS = (bool, int, float)


def list_operation(func, args, kwargs):
    """`func(*args)` as Python's list operation where an operand stands for a list, or None
    (torch's operation runs)."""
    name = getattr(func, '__name__', None)
    if kwargs or len(args) != 2 or not any(_a_list(v) for v in args):
        return None
    if name in _CONCATENATIONS:
        left, right = args[::-1] if _CONCATENATIONS[name] else args
        try:
            return concatenated(left, right)
        except NotImplementedError:  # not two lists: torch's `+`
            return None
    if name in _REPETITIONS:
        values, count = args if _a_list(args[0]) else args[::-1]
        return _repeated(values, count) if _a_count(count) else None
    if name in _EQUALITIES and all(_a_list(v) or _numbers(v) for v in args):
        equal = _lists_equal(*args)
        return number_like(torch.logical_not(equal) if _EQUALITIES[name] else equal)
    return None


def _a_list(value):
    return stands_for_list(value) and value.ndim == 1


def _a_count(value):
    return type(value) in (bool, int) or is_index(value) and not stands_for_list(value)


def _numbers(value):
    return type(value) is list and all(type(x) in _PYTHON_NUMBERS for x in value)


def _repeated(values, count):
    """`values * count`: the list repeated max(count, 0) times, of a length torch knows
    only when the program runs where the list's or the count's is."""
    size = values.shape[0]
    if type(size) is int and type(count) in (bool, int):
        return number_like(values.repeat(max(int(count), 0)))
    count = as_tensor(count, torch.int64).reshape(())
    size = as_tensor(length(values), torch.int64)
    total = run_time_size(count.clamp(min=0) * size)
    # element i of the repetition is values[i % len(values)] (a run-time length: no tile)
    positions = torch.arange(total, device=values.device) % size.clamp(min=1)
    return number_like(values[positions])


def _lists_equal(left, right):
    """Python's `left == right` of two lists of numbers, one at least a tensor: a traced
    bool, whether they are as long and equal element by element (compared over the shorter
    one's length, which needs no guard on either length)."""
    parts = [v if isinstance(v, torch.Tensor) else None for v in (left, right)]
    device = next(v.device for v in parts if v is not None)
    dtype = next(v.dtype for v in parts if v is not None)
    parts = [p if p is not None else (table(v, joint_dtype([type(x) for x in v])) if v else
                                      torch.zeros((0,), dtype=dtype, device=device))
             for p, v in zip(parts, (left, right))]
    sizes = [p.shape[0] for p in parts]
    if all(type(s) is int for s in sizes):
        if sizes[0] != sizes[1]:
            return torch.zeros((), dtype=torch.bool, device=device)
        return torch.eq(*parts).all()
    lengths = [as_tensor(length(p), torch.int64) for p in parts]
    # an empty list equals only a list of no elements (and a gather of it would not compile)
    if any(type(s) is int and s == 0 for s in sizes):
        return torch.eq(*lengths)
    shorter = torch.arange(run_time_size(torch.minimum(*lengths)), device=device)
    equal = torch.eq(parts[0][shorter], parts[1][shorter]).all()
    return torch.logical_and(torch.eq(*lengths), equal)
