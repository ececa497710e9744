"""tf.einsum, tf.one_hot and tf.clip_by_value: their kernels, shape rules and gradients."""
import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.ops import common
from runtime.ops.registry import OPS
from runtime.ops.registry import apply
from runtime.ops.registry import check_same_dtype
from runtime.ops.registry import defvjp
from runtime.ops.registry import register
from runtime.tensor_conversion import constant_value
from runtime.ops.gradient_ops import broadcast_like
from runtime.ops import math_ops
from runtime.ops.array_ops import expand_dims

_LETTERS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


# -- einsum ----------------------------------------------------------------------------------

def _parse_equation(equation, count):
    """Returns (input subscripts, output subscripts) of an einsum equation, made explicit.

    Implicit form ('ij,jk'): the output is the letters that occur once, in alphabetical order
    (numpy's and TensorFlow's rule).
    """
    text = equation.replace(" ", "")
    if "." in text:
        raise InvalidArgumentError(
            f"einsum: ellipsis ('...') is not supported here, found {equation!r}; write the "
            f"dimensions out with letters.", "einsum")
    lhs, arrow, rhs = text.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != count:
        raise InvalidArgumentError(
            f"einsum: the equation {equation!r} has {len(inputs)} operand(s) but "
            f"{count} input(s) were given.", "einsum")
    for sub in inputs + [rhs]:
        bad = set(sub) - _LETTERS
        if bad:
            raise InvalidArgumentError(
                f"einsum: invalid subscript(s) {sorted(bad)} in {equation!r}; use letters.",
                "einsum")
    if not arrow:
        letters = "".join(inputs)
        rhs = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    missing = set(rhs) - set("".join(inputs))
    if missing:
        raise InvalidArgumentError(
            f"einsum: output subscript(s) {sorted(missing)} of {equation!r} appear in no "
            f"input.", "einsum")
    return inputs, rhs


def _infer_einsum(*operands, equation):
    inputs, output = _parse_equation(equation, len(operands))
    sizes = {}
    for sub, t in zip(inputs, operands):
        if t.shape is None:
            return None, operands[0].dtype
        if len(sub) != len(t.shape):
            raise InvalidArgumentError(
                f"einsum: operand with subscripts {sub!r} has rank {len(sub)} in {equation!r}, "
                f"but the tensor has shape {tuple(t.shape)}.", "einsum")
        for letter, dim in zip(sub, t.shape):
            known = sizes.get(letter)
            if dim is None:
                continue
            if known is not None and known != dim and 1 not in (known, dim):
                raise InvalidArgumentError(
                    f"einsum: dimension {letter!r} of {equation!r} is {known} in one operand "
                    f"and {dim} in another.", "einsum")
            sizes[letter] = dim if known in (None, 1) else known
    return tuple(sizes.get(c) for c in output), operands[0].dtype


@register("einsum", infer=_infer_einsum, tf_name="Einsum")
def _einsum_kernel(*operands, equation):
    return np.asarray(np.einsum(equation, *operands))


def einsum(equation, *inputs, **kwargs):
    """Tensor contraction over the indices of `equation` (tf.einsum), as numpy.einsum.

    Args:
        equation: A str such as 'ij,jk->ik' (explicit) or 'ij,jk' (implicit); letters only.
        *inputs: The tensors, one per operand of the equation, of one dtype.
        **kwargs: `name` (optional node name in graph mode).

    Returns:
        A Tensor.

    Raises:
        InvalidArgumentError: for an equation that does not fit the inputs.
        TypeError: for an unknown keyword argument.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"einsum got unexpected keyword argument(s): {sorted(kwargs)}.")
    tensors = [common.to_tensor(t) for t in inputs]
    ins, out = _parse_equation(equation, len(tensors))
    explicit = ",".join(ins) + "->" + out
    check_same_dtype(OPS["einsum"], tensors)
    _infer_einsum(*tensors, equation=explicit)
    return apply(OPS["einsum"], tensors, {"equation": explicit}, name)


@defvjp("einsum")
def _einsum_vjp(op, dy):
    """d(operand i) = einsum(output, other operands -> operand i), then broadcast back.

    Letters that only operand i has (summed away by the forward einsum) are not in the
    gradient einsum's inputs; the result is broadcast to operand i's shape over them.
    """
    ins, out = op.attrs["equation"].split("->")
    subs = ins.split(",")
    grads = []
    for i, x in enumerate(op.inputs):
        if len(set(subs[i])) != len(subs[i]):
            raise NotImplementedError(
                f"The gradient of einsum {op.attrs['equation']!r} with a repeated subscript "
                f"in one operand (a diagonal) is not implemented.")
        others = [s for j, s in enumerate(subs) if j != i]
        available = set(out).union(*others) if others else set(out)
        kept = "".join(c for c in subs[i] if c in available)
        g = einsum(",".join([out] + others) + "->" + kept, dy,
                   *[t for j, t in enumerate(op.inputs) if j != i])
        if kept != subs[i]:
            # insert size-1 axes for the missing letters, then broadcast to x's shape
            for axis, letter in enumerate(subs[i]):
                if letter not in available:
                    g = expand_dims(g, axis)
            g = broadcast_like(g, x)
        grads.append(g)
    return grads


# -- one_hot ---------------------------------------------------------------------------------

def _infer_one_hot(indices, depth, on_value, off_value, axis, dtype):
    if indices.shape is None:
        return None, dtype
    shape = list(indices.shape)
    shape.insert(axis if axis >= 0 else len(shape) + 1 + axis, depth)
    return tuple(shape), dtype


@register("one_hot", infer=_infer_one_hot, tf_name="OneHot")
def _one_hot_kernel(indices, depth, on_value, off_value, axis, dtype):
    indices = np.asarray(indices)
    hot = np.expand_dims(indices, -1) == np.arange(depth, dtype=indices.dtype)
    out = np.where(hot, dtype.np_dtype.type(on_value), dtype.np_dtype.type(off_value))
    out = np.asarray(out, dtype=dtype.np_dtype)
    if axis != -1:
        out = np.moveaxis(out, -1, axis)
    return out


def _static_scalar(value, what):
    if value is None:
        return None
    static = constant_value(value) if not isinstance(value, (int, float, bool)) else value
    if static is None:
        raise InvalidArgumentError(
            f"one_hot: {what} must be known while tracing (a Python number or a constant), "
            f"found a computed tensor.", "one_hot")
    return np.asarray(static).item()


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot encoding (tf.one_hot): `on_value` where index == position, else `off_value`.

    Indices outside [0, depth) (negative ones included) give a row of `off_value`.

    Args:
        indices: An int32, int64 or uint8 tensor.
        depth: The size of the new axis (a Python int or a constant).
        on_value: The value for the hot position (default 1).
        off_value: The value elsewhere (default 0).
        axis: Where the new axis goes (default -1, the last).
        dtype: The output dtype (default: that of on_value or off_value if given, else
            float32).
        name: Optional node name in graph mode.

    Returns:
        A Tensor of shape indices.shape with `depth` inserted at `axis`.

    Raises:
        InvalidArgumentError: for float indices, a negative depth, an axis out of range, or
            on_value/off_value of different dtypes.
    """
    indices = common.to_tensor(indices)
    if indices.dtype not in (dtypes.int32, dtypes.int64, dtypes.uint8):
        raise InvalidArgumentError(
            f"one_hot expects int32, int64 or uint8 indices, found {indices.dtype.name}; "
            f"use tf.cast(indices, tf.int32).", "one_hot")
    depth = _static_scalar(depth, "depth")
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise InvalidArgumentError(f"one_hot: depth must be a non-negative int, found "
                                   f"{depth!r}.", "one_hot")
    given = [common.to_tensor(v) for v in (on_value, off_value) if v is not None]
    if len(given) == 2 and given[0].dtype is not given[1].dtype:
        raise InvalidArgumentError(
            f"one_hot: on_value ({given[0].dtype.name}) and off_value "
            f"({given[1].dtype.name}) must have the same dtype.", "one_hot")
    if dtype is None:
        dtype = given[0].dtype if given else dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    on = _static_scalar(on_value, "on_value")
    off = _static_scalar(off_value, "off_value")
    axis = -1 if axis is None else int(axis)
    rank = None if indices.shape is None else len(indices.shape)
    if rank is not None and not -1 <= axis <= rank:
        raise InvalidArgumentError(f"one_hot: expected axis in [-1, {rank}], found {axis}.",
                                   "one_hot")
    attrs = {"depth": depth, "on_value": 1 if on is None else on,
             "off_value": 0 if off is None else off, "axis": axis, "dtype": dtype}
    return apply(OPS["one_hot"], [indices], attrs, name)


# -- clip_by_value ---------------------------------------------------------------------------

def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clips values to [clip_value_min, clip_value_max] (tf.clip_by_value).

    As TensorFlow computes it: maximum(minimum(t, clip_value_max), clip_value_min), so the
    gradient flows where the value was not clipped.

    Args:
        t: A Tensor.
        clip_value_min: The lower bound (a scalar or a tensor broadcastable to t's shape).
        clip_value_max: The upper bound, likewise.
        name: Optional node name in graph mode (of the final maximum).

    Returns:
        A Tensor of t's shape and dtype.

    Raises:
        InvalidArgumentError: if the bounds would change t's shape, or dtypes differ.
    """
    t = common.to_tensor(t)
    clipped = math_ops.maximum(math_ops.minimum(t, clip_value_max), clip_value_min, name=name)
    if (t.shape is not None and clipped.shape is not None
            and tuple(clipped.shape) != tuple(t.shape)
            and None not in tuple(t.shape) + tuple(clipped.shape)):
        raise InvalidArgumentError(
            f"clip_by_value: the bounds broadcast t of shape {tuple(t.shape)} to shape "
            f"{tuple(clipped.shape)}; they must be scalars or of t's shape.", "clip_by_value")
    return clipped
