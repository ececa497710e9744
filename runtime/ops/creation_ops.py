"""Creation ops: fill, zeros, ones, zeros_like, ones_like and range."""
import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.ops import common
from runtime.ops.array_ops import _shape_tensor
from runtime.ops.array_ops import _static_dims
from runtime.ops.registry import OPS
from runtime.ops.registry import OpKind
from runtime.ops.registry import apply
from runtime.ops.registry import register
from runtime.tensor import EagerTensor
from runtime.tensor import Tensor
from runtime.tensor_conversion import constant_value
from runtime.ops.math_ops import cast


@register("fill", infer=lambda dims, value: (_static_dims(dims), value.dtype), tf_name="Fill")
def _fill_kernel(dims, value):
    return np.full(dims, value, dtype=value.dtype)


def fill(dims, value, name=None):
    """Creates a tensor of shape `dims` filled with `value`.

    Args:
        dims: A list of ints or an int32 Tensor.
        value: A scalar Tensor or value.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    return apply(OPS["fill"], [_shape_tensor(dims), common.to_tensor(value)], {}, name)


def _infer_constant_fill(shape, dtype):
    return _static_dims(shape), dtype


@register("zeros", infer=_infer_constant_fill, tf_name="Zeros")
def _zeros_kernel(shape, dtype):
    return np.zeros(shape, dtype=dtype.np_dtype)


@register("ones", infer=_infer_constant_fill, tf_name="Ones")
def _ones_kernel(shape, dtype):
    return np.ones(shape, dtype=dtype.np_dtype)


def zeros(shape, dtype=dtypes.float32, name=None):
    """Creates a tensor of zeros.

    Args:
        shape: A list of ints or an int32 Tensor.
        dtype: The DType (float32 by default).
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    dtype = dtypes.as_dtype(dtype)
    return apply(OPS["zeros"], [_shape_tensor(shape)], {"dtype": dtype}, name)


def ones(shape, dtype=dtypes.float32, name=None):
    """Creates a tensor of ones.

    Args:
        shape: A list of ints or an int32 Tensor.
        dtype: The DType (float32 by default).
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    dtype = dtypes.as_dtype(dtype)
    return apply(OPS["ones"], [_shape_tensor(shape)], {"dtype": dtype}, name)


@register("zeros_like", infer=lambda x, dtype: (x.shape, dtype), kind=OpKind.ELEMENTWISE,
          tf_name="ZerosLike")
def _zeros_like_kernel(x, dtype):
    return np.zeros(np.shape(x), dtype=dtype.np_dtype)


@register("ones_like", infer=lambda x, dtype: (x.shape, dtype), kind=OpKind.ELEMENTWISE,
          tf_name="OnesLike")
def _ones_like_kernel(x, dtype):
    return np.ones(np.shape(x), dtype=dtype.np_dtype)


def zeros_like(input, dtype=None, name=None):  # noqa: A002
    """Creates zeros with the shape (and by default the dtype) of `input`.

    Args:
        input: A Tensor or value.
        dtype: Optional DType.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    x = common.to_tensor(input)
    dtype = x.dtype if dtype is None else dtypes.as_dtype(dtype)
    return apply(OPS["zeros_like"], [x], {"dtype": dtype}, name)


def ones_like(input, dtype=None, name=None):  # noqa: A002
    """Creates ones with the shape (and by default the dtype) of `input`.

    Args:
        input: A Tensor or value.
        dtype: Optional DType.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    x = common.to_tensor(input)
    dtype = x.dtype if dtype is None else dtypes.as_dtype(dtype)
    return apply(OPS["ones_like"], [x], {"dtype": dtype}, name)


def _infer_range(start, limit, delta, dtype):
    values = [constant_value(t) for t in (start, limit, delta)]
    if any(v is None for v in values):
        return (None,), dtype
    return (len(_range_kernel(*values, dtype=dtype)),), dtype


@register("range", infer=_infer_range, tf_name="Range")
def _range_kernel(start, limit, delta, dtype):
    if delta == 0:
        raise InvalidArgumentError("Requires delta != 0 in tf.range.", "range")
    return np.arange(start, limit, delta, dtype=dtype.np_dtype)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """Creates the sequence start, start + delta, ... up to (excluding) limit.

    With one argument it is the limit (start 0). The dtype is inferred as in TensorFlow:
    float32 when any argument is a float, else int32 (or the tensor arguments' dtype).

    Args:
        start: Start (or limit when `limit` is None).
        limit: Exclusive end.
        delta: Step (non-zero).
        dtype: Optional DType.
        name: Optional node name in graph mode.

    Returns:
        A 1-D Tensor.

    Raises:
        InvalidArgumentError: if delta is 0.
    """
    if limit is None:
        start, limit = 0, start
    args = (start, limit, delta)
    if dtype is None:
        order = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)
        found = [common.to_tensor(a).dtype for a in args]
        dtype = max(found, key=lambda d: order.index(d) if d in order else 0)
    dtype = dtypes.as_dtype(dtype)
    tensors = [_cast_arg(a, dtype) for a in args]
    return apply(OPS["range"], tensors, {"dtype": dtype}, name)


def _cast_arg(value, dtype):
    if isinstance(value, Tensor):
        if value.dtype is dtype:
            return value
        return cast(value, dtype)
    return EagerTensor(np.asarray(value, dtype=dtype.np_dtype))
