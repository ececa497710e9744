"""Array ops: creation, shape manipulation, slicing, selection and concatenation."""
import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.ops import common
from runtime.ops import gradient_ops as _grad  # the gradient vocabulary of the vjps below
from runtime.ops import promotion
from runtime.ops.gather_ops import gather  # noqa: F401 - re-exported (tf.gather)
from runtime.ops.registry import OPS
from runtime.ops.registry import OpKind
from runtime.ops.registry import apply
from runtime.ops.registry import check_same_dtype
from runtime.ops.registry import deffuse
from runtime.ops.registry import defvjp
from runtime.ops.registry import register
from runtime.tensor import EagerTensor
from runtime.tensor import Tensor
from runtime.tensor_conversion import constant_value

_INT32 = np.dtype(np.int32)


def _shape_tensor(shape):
    """Converts a shape argument (list, tuple, TensorShape, Tensor) to an int32 tensor."""
    if isinstance(shape, Tensor):
        if not shape.dtype.is_integer:
            raise TypeError(f"A shape must be an integer tensor, found {shape.dtype.name}.")
        return shape
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
        return stack([common.to_tensor(d, dtypes.int32) for d in shape])
    array = np.asarray(shape if shape is not None else (), dtype=np.int64)
    if array.ndim > 1:
        raise ValueError(f"A shape must be a scalar or a list of ints, found {shape!r}.")
    return EagerTensor(array.astype(np.int32))


def _static_dims(shape_tensor):
    """Returns the dims a shape tensor holds while tracing (None entries if unknown)."""
    value = constant_value(shape_tensor)
    if value is not None:
        return tuple(int(d) for d in np.reshape(value, -1))
    rank = shape_tensor.shape[0] if shape_tensor.shape else 0
    if rank is None:
        raise ValueError(f"The shape tensor '{shape_tensor.name}' has unknown length; "
                         f"the result rank must be known while tracing.")
    return (None,) * rank


# -- identity, shape, size, rank --------------------------------------------------------------

@register("identity", infer=lambda x: (x.shape, x.dtype), kind=OpKind.ELEMENTWISE,
          tf_name="Identity")
def _identity_kernel(x):
    return x


@deffuse("identity")
def _identity_fuse(ctx, node, inputs):
    """The optimiser removes identities: their users read the input directly."""
    return inputs[0]


def identity(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """Returns a tensor with the same value (a new node in graph mode).

    Args:
        input: A Tensor or value.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    return apply(OPS["identity"], [common.to_tensor(input)], {}, name)


@register("shape", infer=lambda x, out_type: ((len(x.shape),), out_type), tf_name="Shape",
          shape_only=True)
def _shape_kernel(x, out_type):
    return np.array(np.shape(x), dtype=out_type.np_dtype)


def shape(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """Returns the dynamic shape of a tensor as a 1-D integer tensor.

    Args:
        input: A Tensor or value.
        out_type: int32 (default) or int64.
        name: Optional node name in graph mode.

    Returns:
        A 1-D Tensor.
    """
    out_type = dtypes.as_dtype(out_type)
    return apply(OPS["shape"], [common.to_tensor(input)], {"out_type": out_type}, name)


@register("size", infer=lambda x, out_type: ((), out_type), tf_name="Size", shape_only=True)
def _size_kernel(x, out_type):
    return out_type.as_numpy_dtype(np.size(x))


def size(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """Returns the number of elements of a tensor as a scalar.

    Args:
        input: A Tensor or value.
        out_type: int32 (default) or int64.
        name: Optional node name in graph mode.

    Returns:
        A scalar Tensor.
    """
    out_type = dtypes.as_dtype(out_type)
    return apply(OPS["size"], [common.to_tensor(input)], {"out_type": out_type}, name)


@register("rank", infer=lambda x: ((), dtypes.int32), tf_name="Rank", shape_only=True)
def _rank_kernel(x):
    return np.int32(np.ndim(x))


def rank(input, name=None):  # noqa: A002
    """Returns the rank of a tensor as an int32 scalar.

    Args:
        input: A Tensor or value.
        name: Optional node name in graph mode.

    Returns:
        A scalar Tensor.
    """
    return apply(OPS["rank"], [common.to_tensor(input)], {}, name)


# -- reshape, transpose, expand_dims, squeeze -------------------------------------------------

def _infer_reshape(x, shape):
    dims = list(_static_dims(shape))
    if -1 in dims:
        known = 1
        for d in dims:
            if d is not None and d != -1:
                known *= d
        total = None
        if None not in x.shape:
            total = int(np.prod(x.shape, dtype=np.int64))
        i = dims.index(-1)
        dims[i] = None if total is None or None in dims else (total // known if known else 0)
    elif None not in dims and None not in x.shape:
        total = int(np.prod(x.shape, dtype=np.int64))
        want = int(np.prod(dims, dtype=np.int64))
        if total != want:
            raise InvalidArgumentError(
                f"Input to reshape is a tensor with {total} values, but the requested shape "
                f"has {want}", "reshape")
    return tuple(dims), x.dtype


@register("reshape", infer=_infer_reshape, tf_name="Reshape")
def _reshape_kernel(x, shape):
    try:
        return np.reshape(x, shape)
    except ValueError:
        raise InvalidArgumentError(
            f"Input to reshape is a tensor with {np.size(x)} values, but the requested shape "
            f"{list(np.reshape(shape, -1))} does not match.", "reshape") from None


def reshape(tensor, shape, name=None):
    """Reshapes a tensor; one dimension may be -1 (inferred).

    Args:
        tensor: A Tensor or value.
        shape: A list of ints or an int32 Tensor.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.

    Raises:
        InvalidArgumentError: if the element counts differ.
    """
    return apply(OPS["reshape"], [common.to_tensor(tensor), _shape_tensor(shape)], {}, name)


def _infer_transpose(x, perm=None):
    if perm is None:
        return tuple(reversed(x.shape)), x.dtype
    if x.shape is None:
        return None, x.dtype
    if sorted(perm) != list(range(len(x.shape))):
        raise InvalidArgumentError(
            f"transpose expects perm to be a permutation of 0..{len(x.shape) - 1}, found "
            f"{list(perm)}.", "transpose")
    return tuple(x.shape[p] for p in perm), x.dtype


@register("transpose", infer=_infer_transpose, tf_name="Transpose")
def _transpose_kernel(x, perm=None):
    return np.transpose(x, perm)


def transpose(a, perm=None, name=None):
    """Permutes dimensions (reverses them by default).

    Args:
        a: A Tensor or value.
        perm: Optional permutation (list of ints).
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    perm = common.static_axis(perm)
    if isinstance(perm, int):
        perm = (perm,)
    attrs = {} if perm is None else {"perm": perm}
    return apply(OPS["transpose"], [common.to_tensor(a)], attrs, name)


def _infer_expand_dims(x, axis):
    dims = list(x.shape)
    dims.insert(common.normalize_axis(axis, len(dims) + 1, "ExpandDims"), 1)
    return tuple(dims), x.dtype


@register("expand_dims", infer=_infer_expand_dims, tf_name="ExpandDims")
def _expand_dims_kernel(x, axis):
    return np.expand_dims(x, axis)


def expand_dims(input, axis, name=None):  # noqa: A002
    """Inserts a dimension of size 1 at `axis`.

    Args:
        input: A Tensor or value.
        axis: An int in [-rank-1, rank].
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    x = common.to_tensor(input)
    axis = common.static_axis(axis)
    _infer_expand_dims(x, axis)
    return apply(OPS["expand_dims"], [x], {"axis": axis}, name)


def _infer_squeeze(x, axis=None):
    dims = x.shape
    if axis is None:
        if None in dims:
            raise ValueError("squeeze without axis needs a fully known shape while tracing; "
                             f"found {tuple(dims)}. Pass axis=.")
        return tuple(d for d in dims if d != 1), x.dtype
    axes = {common.normalize_axis(a, len(dims), "Squeeze") for a in axis}
    for a in axes:
        if dims[a] not in (1, None):
            raise InvalidArgumentError(
                f"Can not squeeze dim[{a}], expected a dimension of 1, got {dims[a]}",
                "squeeze")
    return tuple(d for i, d in enumerate(dims) if i not in axes), x.dtype


@register("squeeze", infer=_infer_squeeze, tf_name="Squeeze")
def _squeeze_kernel(x, axis=None):
    try:
        return np.squeeze(x, axis)
    except ValueError as e:
        raise InvalidArgumentError(f"Can not squeeze: {e}", "squeeze") from None


def squeeze(input, axis=None, name=None):  # noqa: A002
    """Removes dimensions of size 1.

    Args:
        input: A Tensor or value.
        axis: Optional int or list of ints to remove (all size-1 dims when None).
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    x = common.to_tensor(input)
    axis = common.static_axis(axis)
    if isinstance(axis, int):
        axis = (axis,)
    _infer_squeeze(x, axis)
    attrs = {} if axis is None else {"axis": axis}
    return apply(OPS["squeeze"], [x], attrs, name)


# -- concat, stack, unstack -------------------------------------------------------------------

def _infer_concat(*values, axis):
    rank = len(values[0].shape)
    axis = common.normalize_axis(axis, rank, "ConcatV2")
    out = list(values[0].shape)
    for v in values[1:]:
        if len(v.shape) != rank:
            raise InvalidArgumentError(
                f"ConcatOp: Ranks of all input tensors should match: shape[0] = "
                f"{list(values[0].shape)} vs. shape[k] = {list(v.shape)}", "concat")
        for i, (a, b) in enumerate(zip(out, v.shape)):
            if i == axis:
                out[i] = None if a is None or b is None else a + b
            elif a is None:
                out[i] = b
            elif b is not None and a != b:
                raise InvalidArgumentError(
                    f"ConcatOp: Dimension {i} in both shapes must be equal: "
                    f"{list(values[0].shape)} vs. {list(v.shape)}", "concat")
    return tuple(out), values[0].dtype


@register("concat", infer=_infer_concat, tf_name="ConcatV2")
def _concat_kernel(*values, axis):
    return np.concatenate(values, axis)


def _tensor_list(values, op):
    if isinstance(values, Tensor):
        if isinstance(values, EagerTensor):
            return list(values)
        raise TypeError(f"{op} expects a list of tensors, found the tensor '{values.name}'.")
    if not values:
        raise ValueError(f"{op} expects a non-empty list of tensors.")
    first = next((v for v in values if isinstance(v, Tensor)), None)
    out = []
    for v in values:
        if isinstance(v, Tensor):
            out.append(v)
        elif first is not None:
            out.append(common.adopt_dtype(v, first.dtype))
        else:
            first = common.to_tensor(v)
            out.append(first)
    joint = promotion.list_dtype(out) if len({t.dtype for t in out}) > 1 else None
    if joint is not None:
        out = [promotion.cast(t, joint) for t in out]
    check_same_dtype(OPS[op], out)
    return out


def concat(values, axis, name=None):
    """Concatenates tensors along `axis`.

    Args:
        values: A list of Tensors of one dtype and rank.
        axis: An int.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    values = _tensor_list(values, "concat")
    axis = common.static_axis(axis)
    _infer_concat(*values, axis=axis)
    return apply(OPS["concat"], values, {"axis": axis}, name)


def _infer_stack(*values, axis=0):
    shape = values[0].shape
    for v in values[1:]:
        if not shape.is_compatible_with(v.shape):
            raise InvalidArgumentError(
                f"Shapes of all inputs must match: values[0].shape = {list(shape)} != "
                f"values[k].shape = {list(v.shape)}", "stack")
    dims = [a if a is not None else b for a, b in zip(shape, values[-1].shape)]
    dims.insert(common.normalize_axis(axis, len(dims) + 1, "Pack"), len(values))
    return tuple(dims), values[0].dtype


@register("stack", infer=_infer_stack, tf_name="Pack")
def _stack_kernel(*values, axis=0):
    try:
        return np.stack(values, axis)
    except ValueError as e:
        raise InvalidArgumentError(f"Shapes of all inputs must match: {e}", "stack") from None


# Types that stack themselves (`value.stack(name=...)`, along axis 0): TensorArray, which sits
# above the ops and installs itself with `stacks_itself` (runtime/tensor_array.py).
_SELF_STACKING = []


def stacks_itself(cls):
    """Class decorator: `tf.stack(value)` of an instance of `cls` calls `value.stack(name=)`."""
    _SELF_STACKING.append(cls)
    return cls


def stack(values, axis=0, name=None):
    """Stacks tensors of one shape along a new dimension.

    Args:
        values: A list of Tensors (or values) of one dtype and shape, or a TensorArray (as a
            list appended to in a staged loop becomes), stacked along axis 0.
        axis: Where the new dimension goes.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.

    Raises:
        ValueError: for a TensorArray and an axis other than 0.
    """
    if isinstance(values, tuple(_SELF_STACKING)):
        if axis != 0:
            raise ValueError(f"tf.stack of a TensorArray (a list built in a staged loop) "
                             f"stacks along axis 0 only, found axis={axis!r}. Stack along "
                             f"axis 0 and then use tf.transpose.")
        return values.stack(name=name)
    values = _tensor_list(values, "stack")
    axis = common.static_axis(axis)
    _infer_stack(*values, axis=axis)
    return apply(OPS["stack"], values, {"axis": axis}, name)


def _infer_unstack(value, num, axis=0):
    dims = list(value.shape)
    del dims[common.normalize_axis(axis, len(dims), "Unpack")]
    return [(tuple(dims), value.dtype)] * num


@register("unstack", infer=_infer_unstack, multi_output=True, tf_name="Unpack")
def _unstack_kernel(value, num, axis=0):
    if value.shape[axis] != num:
        raise InvalidArgumentError(f"Expected {num} values along axis {axis}, found "
                                   f"{value.shape[axis]}.", "unstack")
    return [np.take(value, i, axis) for i in range(num)]


def unstack(value, num=None, axis=0, name=None):
    """Splits a tensor along `axis` into a list of tensors.

    Args:
        value: A Tensor.
        num: The length along axis; required when it is unknown while tracing.
        axis: An int.
        name: Optional node name in graph mode.

    Returns:
        A list of Tensors.

    Raises:
        ValueError: if `num` is not given and cannot be inferred.
    """
    value = common.to_tensor(value)
    axis = common.normalize_axis(common.static_axis(axis), len(value.shape), "Unpack")
    if num is None:
        num = value.shape[axis]
        if num is None:
            raise ValueError(f"Cannot infer num from shape {tuple(value.shape)}; pass num=.")
    return apply(OPS["unstack"], [value], {"num": int(num), "axis": axis}, name)


# -- where / select ---------------------------------------------------------------------------

def _infer_select(condition, x, y):
    shape = common.broadcast_shapes(condition.shape, x.shape, "SelectV2")
    return common.broadcast_shapes(shape, y.shape, "SelectV2"), x.dtype


@register("select", infer=_infer_select, kind=OpKind.ELEMENTWISE, tf_name="SelectV2")
def _select_kernel(condition, x, y):
    return np.where(condition, x, y)


@register("where_indices", infer=lambda c: ((None, len(c.shape)), dtypes.int64),
          tf_name="Where")
def _where_indices_kernel(condition):
    return np.argwhere(condition).astype(np.int64)


def where(condition, x=None, y=None, name=None):
    """Selects from `x` or `y` by `condition`, or returns the coordinates of true values.

    Args:
        condition: A bool Tensor.
        x: Values where condition is true (broadcast).
        y: Values where condition is false (broadcast).
        name: Optional node name in graph mode.

    Returns:
        A Tensor: the selection, or an int64 [num_true, rank] matrix of indices.

    Raises:
        ValueError: if only one of x and y is given.
        InvalidArgumentError: if condition is not bool or x and y dtypes differ.
    """
    condition = common.to_tensor(condition)
    if condition.dtype is not dtypes.bool:
        raise InvalidArgumentError(
            f"where expects a bool condition, found {condition.dtype.name}. Compare it with "
            f"a value (e.g. x > 0) or use tf.cast(cond, tf.bool).", "where")
    if x is None and y is None:
        return apply(OPS["where_indices"], [condition], {}, name)
    if x is None or y is None:
        raise ValueError("where needs both x and y, or neither.")
    x, y = common.binary_operands(x, y)
    check_same_dtype(OPS["select"], (x, y))
    _infer_select(condition, x, y)
    return apply(OPS["select"], [condition, x, y], {}, name)


# -- gradients (vjp rules; see runtime.ops.registry.defvjp) -----------------------------------

def _zeros_like(x):
    return apply(OPS["zeros_like"], [x], {"dtype": x.dtype})


@defvjp("identity")
def _identity_vjp(op, dy):
    return [dy]


@defvjp("reshape")
def _reshape_vjp(op, dy):
    return [_grad.reshape_like(dy, op.inputs[0]), None]


@defvjp("expand_dims")
def _expand_dims_vjp(op, dy):
    return [_grad.reshape_like(dy, op.inputs[0])] + [None] * (len(op.inputs) - 1)


@defvjp("squeeze")
def _squeeze_vjp(op, dy):
    return [_grad.reshape_like(dy, op.inputs[0])]


@defvjp("transpose")
def _transpose_vjp(op, dy):
    perm = op.attrs.get("perm")
    if perm is None:
        return [transpose(dy)]
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return [transpose(dy, inverse)]


@defvjp("concat")
def _concat_vjp(op, dy):
    axis = op.attrs["axis"]
    if axis < 0:
        axis += len(op.outputs[0].shape)
    return apply(OPS["split_like"], [dy, *op.inputs], {"axis": axis})


@defvjp("stack")
def _stack_vjp(op, dy):
    axis = op.attrs.get("axis", 0)
    if axis < 0:
        axis += len(op.outputs[0].shape)
    return apply(OPS["unstack"], [dy], {"num": len(op.inputs), "axis": axis})


@defvjp("unstack")
def _unstack_vjp(op, *dys):
    parts = [_zeros_like(o) if d is None else d for o, d in zip(op.outputs, dys)]
    return [apply(OPS["stack"], parts, {"axis": op.attrs.get("axis", 0)})]


@defvjp("select")
def _select_vjp(op, dy):
    condition, x, y = op.inputs
    zero = _zeros_like(dy)
    return [None, _grad.unbroadcast(where(condition, dy, zero), x),
            _grad.unbroadcast(where(condition, zero, dy), y)]
