"""Helpers shared by the op modules: argument conversion, dtype sets and shape rules."""
import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.ops import promotion
from runtime.tensor import EagerTensor
from runtime.tensor import Tensor
from runtime.tensor_conversion import convert_to_tensor
from runtime.tensor_conversion import constant_value

FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
SIGNED_INTS = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
UNSIGNED_INTS = (dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64)
INTS = SIGNED_INTS + UNSIGNED_INTS
NUMERIC = FLOATS + INTS
SIGNED_NUMERIC = FLOATS + SIGNED_INTS
BOOLS = (dtypes.bool,)
ALL = NUMERIC + BOOLS + (dtypes.string,)
_NUMBERS = (int, float, bool)


def to_tensor(value, dtype=None):
    """Converts an op argument to a Tensor.

    Args:
        value: A Tensor, Variable, numpy value or Python value.
        dtype: Optional DType for non-tensor values.

    Returns:
        A Tensor.
    """
    if isinstance(value, Tensor):
        return value
    return convert_to_tensor(value, dtype)


def adopt_dtype(value, dtype):
    """Converts a non-tensor operand to `dtype`, the dtype of the other operand.

    Python numbers take `dtype` (a float cannot become an integer tensor); numpy values of
    the same kind are cast; anything else converts with its own default dtype.

    Args:
        value: The non-tensor operand (or a Variable).
        dtype: The DType of the tensor operand.

    Returns:
        A Tensor.

    Raises:
        TypeError: for a float combined with an integer tensor, or an out-of-range value.
    """
    if type(value) in _NUMBERS:
        if type(value) is float and (dtype.is_integer or dtype.is_bool):
            raise TypeError(
                f"Cannot convert {value!r} to a tensor of dtype {dtype.name}: the other "
                f"operand is {'an' if dtype.name[0] in 'aeiou' else 'a'} {dtype.name} tensor and "
                f"TensorFlow does not promote dtypes. "
                f"Use tf.cast on the tensor or pass a value of the same kind.")
        if dtype is dtypes.string:
            raise TypeError(f"Cannot combine the number {value!r} with a string tensor.")
        try:
            return EagerTensor(dtype.as_numpy_dtype(value))
        except OverflowError:
            raise TypeError(f"Cannot convert {value!r} to a tensor of dtype {dtype.name}: "
                            f"value out of range.") from None
    as_tensor = getattr(value, "_as_tensor", None)
    if as_tensor is not None:
        return as_tensor()
    if isinstance(value, (np.ndarray, np.generic)):
        src = value.dtype
        if src.kind == dtype.np_dtype.kind or (src.kind in "iu" and dtype.is_integer):
            return EagerTensor(np.asarray(value, dtype=dtype.np_dtype))
        return convert_to_tensor(value)
    try:
        return convert_to_tensor(value, dtype)
    except (ValueError, TypeError):
        return convert_to_tensor(value)


def binary_operands(x, y):
    """Converts the operands of a binary op as Python mixes numbers (runtime/ops/promotion.py):
    a non-tensor adopts the tensor's dtype, unless Python gives another kind of number.

    Args:
        x: First operand.
        y: Second operand.

    Returns:
        A pair of Tensors.
    """
    x_is = isinstance(x, Tensor)
    y_is = isinstance(y, Tensor)
    if x_is:
        if not y_is:
            x = promotion.weak_operand(x, y)
            y = adopt_dtype(y, x.dtype)
        elif x.dtype is not y.dtype:
            x, y = promotion.promote_pair(x, y)
    elif y_is:
        y = promotion.weak_operand(y, x)
        x = adopt_dtype(x, y.dtype)
    else:
        x = to_tensor(x)
        y = adopt_dtype(y, x.dtype)
    return x, y


def broadcast_shapes(a, b, op_name="op"):
    """Broadcasts two static shapes (None = unknown dim) with numpy rules.

    Args:
        a: A tuple of ints/Nones.
        b: A tuple of ints/Nones.
        op_name: Op name for the error message.

    Returns:
        The broadcast shape tuple.

    Raises:
        InvalidArgumentError: if known dims are incompatible.
    """
    if a is None or b is None:
        return None  # unknown rank
    if a == b:
        return tuple(a)
    n = max(len(a), len(b))
    pa = (1,) * (n - len(a)) + tuple(a)
    pb = (1,) * (n - len(b)) + tuple(b)
    out = []
    for da, db in zip(pa, pb):
        if da == 1:
            out.append(db)
        elif db == 1:
            out.append(da)
        elif da is None:
            out.append(db)
        elif db is None or da == db:
            out.append(da)
        else:
            raise InvalidArgumentError(
                f"Incompatible shapes: {_fmt(a)} vs. {_fmt(b)} [Op:{op_name}]. "
                f"Broadcasting needs equal dimensions or 1.", op_name)
    return tuple(out)


def _fmt(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def normalize_axis(axis, rank, op_name):
    """Returns `axis` in [0, rank), or raises TensorFlow's error.

    Args:
        axis: An int, possibly negative.
        rank: The rank of the tensor.
        op_name: Op name for the message.

    Returns:
        The non-negative axis.

    Raises:
        InvalidArgumentError: if the axis is out of range.
    """
    axis = int(axis)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(
            f"Invalid axis {axis} for {op_name}: expected a value in [{-rank}, {rank}) for an "
            f"input of rank {rank}.", op_name)
    return axis % rank if rank else 0


def static_axis(axis):
    """Converts an axis argument (int, list, tuple, tensor, None) to a hashable Python value.

    Args:
        axis: The axis argument.

    Returns:
        None, an int, or a tuple of ints.

    Raises:
        TypeError: if the axis is a symbolic tensor.
    """
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        if not isinstance(axis, EagerTensor):
            value = constant_value(axis)
            if value is None:
                raise TypeError(f"The axis must be known while tracing, found the symbolic "
                                f"tensor '{axis.name}'. Pass a Python int.")
            axis = value
        else:
            axis = axis._value
    if isinstance(axis, (list, tuple, np.ndarray)):
        return tuple(int(a) for a in np.asarray(axis).reshape(-1))
    return int(axis)
