"""Values of the PyTorch backend: predicates, Python numbers as tensors, staged ranges, types."""

import builtins
import contextlib
import threading

import torch
from torch._subclasses.fake_tensor import is_fake
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
from torch.utils import _pytree as pytree

from autograph.errors import StagingError

# The Python number types that staged control flow carries as tensors.
_PYTHON_KINDS = (bool, int, float)
# A size of a tensor with symbolic shapes (`xs.shape[0]` under dynamic shapes) is a number of
# torch's that stands for an int, and arithmetic on it gives one: the Python type it stands for.
_SYMBOLIC = {torch.SymBool: bool, torch.SymInt: int, torch.SymFloat: float}


def python_dtype(kind):
    """The dtype of a tensor made from a Python number of type `kind`, as torch.tensor makes
    it: a float's is torch's default dtype when it is called (torch.set_default_dtype)."""
    return {bool: torch.bool, int: torch.int64}.get(kind) or torch.get_default_dtype()


def _python_type(value):
    """The Python number type of `value` (int for a SymInt), or its own type."""
    kind = type(value)
    return _SYMBOLIC.get(kind, kind)


# The device of the converted call being traced (`call_device`): Python numbers that staged
# control flow makes tensors go there, beside the tensors they meet (a loop counter on the
# CPU would index a CUDA tensor, and change device in the loop).
_CALL = threading.local()


@contextlib.contextmanager
def call_device(values, outside=()):
    """A context in which Python numbers become tensors on the device of the first tensor
    among `values` (a pytree of the call's arguments; a module stands for its parameters
    and buffers), or where the enclosing call put them when `values` holds none; in which
    `call_modules` gives the modules among `values`; and in which `outside` maps each real
    tensor of the pairs `outside` (real, traced; others are left out) to the traced one
    (torch_outside)."""
    previous = _device(), call_modules(), getattr(_CALL, 'outside', {})
    leaves = pytree.tree_leaves(values)
    found = _first_device(leaves)
    _CALL.device = previous[0] if found is None else found
    _CALL.modules = [v for v in leaves if isinstance(v, torch.nn.Module)]
    _CALL.outside = {**previous[2], **{id(real): (real, traced) for real, traced in outside
                                       if isinstance(real, torch.Tensor) and real is not traced}}
    try:
        yield
    finally:
        _CALL.device, _CALL.modules, _CALL.outside = previous


def call_modules():
    """The modules among the arguments of the converted call being traced (a module's
    forward gets the module)."""
    return getattr(_CALL, 'modules', [])


def outside(value):
    """The traced tensor that stands for `value`, a global or closure tensor of the converted
    call being traced (`call_device`), or `value` itself."""
    pairs = getattr(_CALL, 'outside', None)
    if not pairs:
        return value
    return pairs.get(id(value), (None, value))[1]


def outside_pairs():
    """The (real, traced) pairs of the converted call being traced (`call_device`): a view,
    empty (false) when there are none, which every operation of the trace asks."""
    return getattr(_CALL, 'outside', {}).values()


def _device():
    """The device that `call_device` set, or None (torch's default device)."""
    return getattr(_CALL, 'device', None)


def device_of(values):
    """The device of the first tensor among `values` (or in their tuples and lists), else the
    call's (`call_device`; None: torch's default)."""
    leaves = [x for v in values for x in (v if type(v) in (tuple, list) else (v,))]
    return _first_device(leaves) or _device()


def _first_device(leaves):
    for leaf in leaves:
        if isinstance(leaf, torch.Tensor):
            return leaf.device
        if isinstance(leaf, torch.nn.Module):
            for tensor in leaf.parameters():
                return tensor.device
            for tensor in leaf.buffers():
                return tensor.device
    return None


def scalar(value, dtype):
    """A 0-d tensor of `value` and `dtype` on the call's device (`call_device`)."""
    # torch.full, not torch.tensor: a factory that torch's tracers record (torch.tensor makes
    # a real tensor, which AOTAutograd's fake mode refuses as an input of an operation).
    return torch.full((), value, dtype=dtype, device=_device())


def table(values, dtype):
    """A constant tensor of `values` (a lookup table: numbers, or rows of numbers of one
    length) on the call's device. On the meta device it is stacked from one `scalar` each,
    factories that the trace records: torch.tensor there makes a real meta tensor, which the
    trace refuses as an operand of a staged loop or branch."""
    device = _device()
    if device is None or device.type != 'meta':
        return torch.tensor(values, dtype=dtype, device=device)
    rows = type(values[0]) in (list, tuple)
    flat = [x for v in values for x in v] if rows else list(values)
    shape = (len(values),) + ((len(values[0]),) if rows else ())
    return torch.stack([scalar(x, dtype) for x in flat]).reshape(shape)


def stacked(values):
    """`values` (a non-empty list) as one tensor whose first dimension indexes them: Python
    numbers, or rows of them of one length, become a constant table (`table`) of the dtype
    `torch.tensor` gives them; tensors of one shape and numbers are stacked (`torch.stack`)
    at their joint dtype, and rows of them of one length too (a table with a row index). A table of numbers, or of tensors that stand for numbers, stands
    for numbers: an element read from it is one (`TABLE[i]`, then `x += 1`).

    Raises:
        TypeError: for values that are not numbers, rows of numbers or tensors (the layers
            of a `for layer in self.layers` loop); torch's errors for tensors that cannot be
            stacked.
    """
    flat = [x for v in values for x in (v if type(v) in (list, tuple) else (v,))]
    if all(type(x) in _PYTHON_KINDS for x in flat):
        return number_like(table(values, joint_dtype([type(x) for x in flat])))
    if _rows(values):
        # a table of rows that a staged loop carried (its numbers became tensors)
        cells = stacked(flat)
        return number_like(cells.reshape((len(values), len(values[0])) + cells.shape[1:]),
                           stands_for_number(cells))
    if not all(isinstance(v, torch.Tensor) or type(v) in _PYTHON_KINDS for v in values):
        raise TypeError('only tensors and Python numbers are stacked')
    dtype = joint_dtype([leaf_type(v) for v in values])
    return number_like(torch.stack([as_tensor(v, dtype) for v in values]),
                       all(stands_for_number(v) for v in values))


def _rows(values):
    """Whether `values` are rows (lists or tuples) of one length, not empty, of tensors and
    Python numbers."""
    return all(type(v) in (list, tuple) and len(v) == len(values[0]) for v in values) and (
        len(values[0]) > 0) and all(isinstance(x, torch.Tensor) or type(x) in _PYTHON_KINDS
                                    for v in values for x in v)


def traced(value):
    """True for a tensor of torch's tracers (fake or functional): a value with no data yet."""
    return isinstance(value, torch.Tensor) and is_fake(value)


def as_tensor(value, dtype=None):
    """A Python number or bool as a 0-d tensor (of `dtype`, or torch's dtype for it) that
    stands for it (`stands_for_number`); a tensor as it is, or cast to `dtype`."""
    if isinstance(value, torch.Tensor):
        if dtype is None or value.dtype == dtype:
            return value
        return number_like(value.to(dtype), stands_for_number(value))
    kind = _python_type(value)
    if kind not in _PYTHON_KINDS:
        raise StagingError(
            'a staged torch.cond or torch.while_loop carries only tensors and Python numbers; '
            'found {!r} of type {}. Compute it outside the staged control flow, or make it a '
            'tensor.'.format(value, type(value).__name__))
    return number_like(scalar(value, dtype or python_dtype(kind)))


# A traced tensor that staged control flow made to carry a Python number (`i = 0` before a
# staged loop, and `i + 1` of it) stands for that number: an augmented assignment to it
# (`i += 1`) makes a new tensor, as Python makes a new int, where it would change a tensor in
# place and with it every name bound to it (`found = i`). See torch_lifting.ConvertedCode.
_NUMBER = '_autograph_stands_for_number'


def stands_for_number(value):
    """Whether `value` is a Python number, or a tensor that stands for one."""
    return _python_type(value) in _PYTHON_KINDS or getattr(value, _NUMBER, False)


def stands_for_list(value):
    """Whether `value` is a tensor that stands for a Python list of numbers (`[0] * n`, a
    list a staged loop or if built, a slice of a list at a traced bound): one standing for
    numbers, of rank 1 or more. (`ndim`, a property: asking is no read of the tensor, see
    torch_lifting.)"""
    return isinstance(value, torch.Tensor) and getattr(value, _NUMBER, False) and (
        value.ndim > 0)


def number_like(tensor, number=True):
    """`tensor`, marked as standing for a Python number when `number` holds."""
    if number:
        setattr(tensor, _NUMBER, True)
    return tensor


def predicate(value, construct):
    """The scalar bool tensor that Python's truth of `value` stands for.

    Raises:
        StagingError: for a tensor of more than one element (Python raises too), naming the
            construct.
    """
    length = _list_length(value)
    if length is not None:  # a list's truth: it is not empty (`while stack:`)
        return length > 0
    if not isinstance(value, torch.Tensor):
        return scalar(builtins.bool(value), torch.bool)
    if value.dim() != 0 and value.numel() != 1:
        raise StagingError(
            'the condition of a staged {} is a tensor of shape {}; Python takes the truth of '
            'a tensor of one element only ("Boolean value of Tensor with more than one value '
            'is ambiguous"). Reduce it first, e.g. with .any() or .all().'.format(
                construct, tuple(value.shape)))
    if value.dim() != 0:
        value = value.reshape(())
    return value if value.dtype == torch.bool else value != 0


def _list_length(value):
    """The length, a 0-d tensor, of a staged value that stands for a list (a tensor of a
    run-time length, or torch_lists' StagedList: its `length`), else None."""
    if stands_for_list(value):
        return torch.scalar_tensor(value.shape[0], dtype=torch.int64)
    length = getattr(value, 'length', None)
    return length if isinstance(length, torch.Tensor) and hasattr(value, 'buffer') else None


def leaf_type(value):
    """A tensor's dtype, or the Python type of a number (weakly typed, as in torch's promotion)."""
    if isinstance(value, torch.Tensor):
        return value.dtype
    return _python_type(value)


def joint_dtype(types):
    """The dtype that the outputs of `types` (from `leaf_type`) share, or None if none is a
    tensor; Python numbers take the tensor's dtype, as `tensor + 1` does."""
    dtypes = [t for t in types if isinstance(t, torch.dtype)]
    if not dtypes:
        pythons = [t for t in types if t in _PYTHON_KINDS]
        # float wins over int, int over bool, as Python's arithmetic does
        return python_dtype(max(pythons, key=_PYTHON_KINDS.index)) if pythons else None
    # torch.promote_types would be recorded in the graph being traced; this is its rule for
    # the dtypes of one kind and across kinds (bool < integers < floats < complex).
    return max(dtypes, key=lambda d: (dtype_kind(d), d.itemsize))


def dtype_kind(dtype):
    if dtype.is_complex:
        return 3
    if dtype.is_floating_point:
        return 2
    return 0 if dtype == torch.bool else 1


def check_type(value):
    """The type that branch and loop checks compare (`Backend.type_of`): a tensor's dtype;
    the Python type of a number, and of a tensor that stands for one (`stands_for_number`),
    which is weakly typed as the number is (`total = 0`, then `total += row.sum()` in one
    branch: Python's int becomes the float tensor)."""
    if isinstance(value, torch.Tensor):
        if not getattr(value, _NUMBER, False):
            return value.dtype
        return (bool, int, float, complex)[dtype_kind(value.dtype)]
    return _python_type(value)


def compatible(before, after):
    """Tells whether a staged value of type `before` may become one of type `after`."""
    if before == after:
        return True
    kinds = {bool: 0, int: 1, float: 2}
    python = [t for t in (before, after) if t in kinds]
    dtypes = [t for t in (before, after) if isinstance(t, torch.dtype)]
    if len(python) == 2:  # Python's arithmetic widens a bool to an int, an int to a float
        return kinds[before] <= kinds[after]
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


def _scalar_cast(kind):
    def cast(value):
        value = as_tensor(value)
        if value.numel() != 1:
            raise TypeError('only one element tensors can be converted to Python scalars '
                            '({}() of a tensor of shape {})'.format(kind.__name__,
                                                                    tuple(value.shape)))
        value = value.reshape(())
        if kind is int and value.dtype.is_floating_point:
            value = torch.trunc(value)
        return value.to(python_dtype(kind))
    return cast


def _fold(pairwise, reduce):
    def handler(*args):
        if len(args) == 1:
            if type(args[0]) is StagedRange:
                raise NotImplementedError(reduce)
            return reduce(as_tensor(args[0]), 0)  # Python's min(x) compares the rows of x
        result = args[0]
        for arg in args[1:]:
            result = pairwise(as_tensor(result), as_tensor(arg))
        return result
    return handler


def _sorted(iterable, reverse=False):
    """`sorted` of a rank-1 tensor (a list of numbers): torch.sort's values, a list too."""
    if not isinstance(iterable, torch.Tensor) or iterable.dim() != 1:
        raise NotImplementedError(sorted)  # rows compare as lists
    return number_like(torch.sort(iterable, descending=bool(reverse)).values)


def _listed(iterable):
    """`list(xs)` of a tensor standing for a list of numbers (`[0] * n`, a list a staged loop
    or if built): a copy, the same kind of list (unbinding one of a run-time length would
    need its length while torch traces); of a staged range, the tensor of its elements."""
    if type(iterable) is StagedRange:  # `list(range(1, n + 1))`: its elements, a list
        count = iterable.length()
        positions = torch.arange(run_time_size(count), dtype=torch.int64, device=count.device)
        return number_like(as_tensor(iterable.start, torch.int64) + positions * as_tensor(
            iterable.step, torch.int64))
    if not stands_for_list(iterable):
        raise NotImplementedError(list)
    return number_like(iterable.clone())


def _sum(iterable, start=0):
    if type(iterable) is StagedRange:
        raise NotImplementedError(sum)
    total = torch.sum(as_tensor(iterable), dim=0)
    return total if type(start) in (int, float) and start == 0 else total + start


def run_time_size(length):
    """A size of one symbol of its own that stands for the traced int `length` (>= 0).

    Not an expression of other sizes (`1 + u0`, `2 * u0`): torch 2.13's inductor cannot
    compile a loop that carries a tensor of such a size ("expected [u0] to have been
    codegen-ed")."""
    size = length.item()
    torch._check(size >= 0)  # pylint: disable=protected-access
    return size


def length(value):
    """`len(value)` of a staged range or a tensor: a traced int where torch knows the length
    only when the program runs."""
    if type(value) is StagedRange:
        return value.length()
    if isinstance(value, torch.Tensor) and value.dim() > 0:
        if run_time_length(value):  # a number torch knows only when it runs: a traced int
            return number_like(torch.full((), value.shape[0], dtype=torch.int64,
                                          device=value.device))
        return value.shape[0]
    raise NotImplementedError(len)


def _abs(value):
    if type(value) is StagedRange:
        raise NotImplementedError(abs)
    return torch.abs(value)


# Overloads of Python builtins for traced tensors (`Backend.call_builtin`); `range` of a traced
# bound is a StagedRange. A builtin not here runs as it is (torch's own methods, or its error).
BUILTINS = {
    builtins.range: lambda *args: staged_range(*args),
    builtins.len: length,
    builtins.abs: _abs,
    builtins.int: _scalar_cast(int),
    builtins.float: _scalar_cast(float),
    builtins.min: _fold(torch.minimum, lambda x, dim: torch.min(x, dim=dim).values),
    builtins.max: _fold(torch.maximum, lambda x, dim: torch.max(x, dim=dim).values),
    builtins.sum: _sum,
    builtins.sorted: _sorted,
    builtins.list: _listed,
}


_SAME_SIZE_FLOATS = {torch.int64: torch.float64, torch.int32: torch.float32,
                     torch.int16: torch.float16}


def is_float(dtype):
    return dtype.is_floating_point or dtype.is_complex


def as_float(tensor):
    """A tensor of integers or bools as floats that `from_float` turns back exactly (the same
    bits where a float of the same size exists)."""
    if is_float(tensor.dtype):
        return tensor
    float_dtype = _SAME_SIZE_FLOATS.get(tensor.dtype)
    return tensor.view(float_dtype) if float_dtype else tensor.to(torch.float32)


def from_float(tensor, dtype):
    """Undoes `as_float` for a tensor that had `dtype`."""
    if tensor.dtype == dtype:
        return tensor
    if dtype in _SAME_SIZE_FLOATS:
        return tensor.view(dtype)
    return tensor != 0 if dtype == torch.bool else tensor.to(dtype)


def row(tensor, index):
    """`tensor[index]` for a traced index (indexing with it would need its value)."""
    if not isinstance(index, torch.Tensor):
        return tensor[index]
    index = index.reshape(1)
    if index.dtype != torch.int64:
        index = index.to(torch.int64)
    return torch.index_select(tensor, 0, index).squeeze(0)


def run_time_length(value):
    """Whether `value` is a tensor whose length torch knows only when the program runs (an
    unbacked size: `[0] * n` of a traced `n`, see `repeated`)."""
    return isinstance(value, torch.Tensor) and value.dim() > 0 and bool(
        free_unbacked_symbols(value.shape[0]))


def run_time_rows(value):
    """Whether `value` is a tensor with a size other than its first that torch knows only
    when the program runs (a table of rows of a run-time length, see `torch_ops.dense`)."""
    return isinstance(value, torch.Tensor) and value.dim() > 1 and bool(
        free_unbacked_symbols(value.shape[1:]))


def size_expression(size):
    """A size as a value to compare without a guard: the int, or its symbolic expression."""
    return size if type(size) is int else size.node.expr


def same_shape(a, b):
    """Whether tensors `a` and `b` have one shape, as torch knows it while it traces, with no
    guard: a size known only when the program runs (`[0] * n`) equals only itself, where
    `a.shape == b.shape` would ask torch for its value ("Could not guard on data-dependent
    expression")."""
    return len(a.shape) == len(b.shape) and all(
        (type(x) is int) == (type(y) is int) and size_expression(x) == size_expression(y)
        for x, y in zip(a.shape, b.shape))


def is_index(value):
    return isinstance(value, torch.Tensor) and value.dim() == 0 and is_integer(value.dtype)


def is_integer(dtype):
    """Whether `dtype` is an integer dtype (not bool)."""
    return not dtype.is_floating_point and not dtype.is_complex and dtype != torch.bool


def tensor_index(tensor, index):
    """`tensor[index]` where the index holds 0-d integer tensors, as a gather; None for other
    indices (to index as torch does).

    Inside a torch.cond or while_loop subgraph, torch 2.13 turns a 0-d integer tensor index
    into a Python int (`select` of `.item()`), a data-dependent value it cannot trace
    ("Could not extract specialized integer"). `aten.index` takes the tensors as they are,
    negative ones counting from the end, and gives what `select` gives for each 0-d index.
    """
    parts = index if type(index) is tuple else (index,)
    if not any(is_index(p) for p in parts) or not all(
            is_index(p) or type(p) in (int, slice) for p in parts):
        return None
    # the basic indexing first, a full slice where a tensor goes; then the gather, with the
    # dimension each tensor indexes (ints remove theirs)
    basic = tensor[tuple(slice(None) if isinstance(p, torch.Tensor) else p for p in parts)]
    indices, dim = [], 0
    for part in parts:
        if isinstance(part, torch.Tensor):
            indices += [None] * (dim - len(indices)) + [part]
        if type(part) is not int:
            dim += 1
    return torch.ops.aten.index.Tensor(basic, indices)


def zero_like(value):
    """A zero of `value`'s type: a tensor's zeros, or the Python zero.

    Made from the dtype and shape only: `value` may be a tensor of a discarded pass, which
    the graph being traced must not read.
    """
    if isinstance(value, torch.Tensor):
        return torch.zeros(value.shape, dtype=value.dtype, device=value.device)
    return type(value)(0)


