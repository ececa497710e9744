"""Conversion of Python values, numpy arrays and Variables to tensors (convert_to_tensor)."""
import numbers

import numpy as np

from runtime import context
from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.tensor import EagerTensor
from runtime.tensor import SymbolicTensor
from runtime.tensor import Tensor

__all__ = ["convert_to_tensor", "constant", "constant_value", "to_string_array"]

_BY_NP = dtypes._BY_NP


def _python_to_numpy(value, dtype):
    """Converts a Python (nested) value to numpy with TensorFlow's default dtypes."""
    if dtype is not None:
        np_dtype = dtype.np_dtype
        if dtype.is_integer or dtype.is_bool:
            probe = np.asarray(value)
            if probe.dtype.kind == "f" and dtype.is_integer:
                raise TypeError(
                    f"Cannot convert {value!r} to a tensor of dtype {dtype.name}: it holds "
                    f"floats. Use a float dtype or round the value first.")
            if probe.dtype.kind in "iu" and probe.size and dtype.is_integer:
                info = np.iinfo(np_dtype)
                if probe.min() < info.min or probe.max() > info.max:
                    raise TypeError(f"Cannot convert {value!r} to a tensor of dtype "
                                    f"{dtype.name}: value out of range.")
        if dtype is dtypes.string:
            return to_string_array(value)
        return np.asarray(value, dtype=np_dtype)
    array = np.asarray(value)
    kind = array.dtype.kind
    if kind == "f":
        if array.size and isinstance(value, (list, tuple)) and np.abs(array).max() >= 2**63:
            _check_python_items(value, array)  # numpy made floats of huge ints: refuse them
        return array.astype(np.float32)
    if kind == "i":
        if array.size == 0 or (array.min() >= -2**31 and array.max() < 2**31):
            return array.astype(np.int32)
        return array.astype(np.int64)
    if kind in "uUSO":
        # numpy widens what TensorFlow refuses: ints beyond int64 (to uint64 or object) and
        # mixed items (to strings or object).
        if _check_python_items(value, array):
            return np.asarray(value, dtype=np.float64).astype(np.float32)
    if kind in "USO":
        return to_string_array(value)
    return array


def _check_python_items(value, array):
    """Raises ValueError, as TensorFlow does, for Python values without a tensor dtype.

    Returns:
        True when the items are floats and ints (some beyond int64): a float tensor.
    """
    items = np.array(value, dtype=object).reshape(-1) if array.dtype.kind != "u" else ()
    if (any(isinstance(item, float) for item in items)
            and all(isinstance(item, (int, float)) for item in items)):
        return True  # a float sequence holds big ints as floats, as in TensorFlow
    for item in (array.reshape(-1).tolist() if array.dtype.kind == "u" else items):
        if isinstance(item, int) and not isinstance(item, bool) and not (
                -2**63 <= item < 2**63):
            raise ValueError(
                f"Can't convert Python sequence with out-of-range integer to Tensor: "
                f"{_short(item)} does not fit in int64. Pass it as a float (float(x)) or "
                f"split it into smaller integers.")
    if array.dtype.kind in "uf":
        return False
    types = {type(item) for item in items}
    if not types <= {str, bytes}:
        names = ", ".join(sorted(t.__name__ for t in types))
        raise ValueError(
            f"Can't convert Python sequence with mixed types to Tensor: {_short(value)} holds "
            f"{names}. Make every item a number, or every item a string.")
    return False


def _short(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _check_object_array(array):
    """Raises ValueError, as TensorFlow does, for an object array of non-strings."""
    for item in array.reshape(-1):
        if not isinstance(item, (bytes, str)):
            raise ValueError(
                f"Failed to convert a NumPy array to a Tensor (Unsupported object type "
                f"{type(item).__name__}). Give the array a numeric dtype, e.g. "
                f"np.asarray(x, dtype=np.float32), or make its items strings.")


def to_string_array(value):
    """Converts (nested) strings to an object array of bytes, TensorFlow's string values.

    Args:
        value: A str, bytes, or nested list/array of them (other items are str()-ed).

    Returns:
        A numpy object array whose items are bytes (str is UTF-8 encoded).
    """
    array = np.array(value, dtype=object)
    flat = array.reshape(-1)
    for i, item in enumerate(flat):
        if isinstance(item, str):
            flat[i] = item.encode("utf-8")
        elif not isinstance(item, bytes):
            flat[i] = str(item).encode("utf-8")
    return array


def _has_tensors(value):
    if isinstance(value, Tensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_tensors(v) for v in value)
    return False


def _numpy_to_tensor(value, dtype):
    """`convert_to_tensor` of a numpy array or scalar (`dtype`: a DType or None)."""
    if type(value) is not np.ndarray and isinstance(value, np.ndarray):
        # a subclass (np.matrix, a masked array, a memmap): its data as a plain array,
        # as TensorFlow takes it (np.matrix's `*` would multiply matrices, and its
        # indexing keeps two dimensions)
        value = value.view(np.ndarray)
    if dtype is not None and _BY_NP.get(value.dtype) is not dtype:
        if value.dtype.kind in "USO" and dtype is dtypes.string:
            return EagerTensor(to_string_array(value))
        return EagerTensor(np.asarray(value, dtype=dtype.np_dtype))
    if value.dtype.kind in "US":
        return EagerTensor(to_string_array(value))
    if value.dtype.kind == "O":
        _check_object_array(value)
    dtypes.from_numpy(value.dtype)
    return EagerTensor(value)


def convert_to_tensor(value, dtype=None, name=None, dtype_hint=None):
    """Converts a Python value, numpy array, Variable or Tensor into a Tensor.

    Python ints become int32 and floats float32 (as in TensorFlow); numpy arrays keep
    their dtype. Inside a graph, eager values stay eager and are captured as constants
    when an op uses them.

    Args:
        value: The value to convert.
        dtype: Optional DType the result must have.
        name: Unused; accepted for TensorFlow compatibility.
        dtype_hint: Optional DType used for Python values when `dtype` is not given.

    Returns:
        A Tensor.

    Raises:
        InvalidArgumentError: if `value` is a Tensor whose dtype differs from `dtype`.
        TypeError: if `value` cannot be converted.
    """
    if isinstance(value, Tensor):
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
            if value.dtype is not dtype:
                raise InvalidArgumentError(
                    f"Expected a tensor of dtype {dtype.name}, found {value.dtype.name} "
                    f"({value!r}). Use tf.cast to change the dtype.")
        return value
    as_tensor = getattr(value, "_as_tensor", None)
    if as_tensor is not None:
        return convert_to_tensor(as_tensor(), dtype)
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        return _numpy_to_tensor(value, dtype)
    if isinstance(value, (list, tuple)) and _has_tensors(value):
        from runtime.ops import array_ops  # late: the ops import this module
        return array_ops.stack([convert_to_tensor(v, dtype) for v in value])
    if dtype is None and dtype_hint is not None and not isinstance(value, (str, bytes)):
        dtype = dtypes.as_dtype(dtype_hint)
        try:
            return EagerTensor(_python_to_numpy(value, dtype))
        except TypeError:
            dtype = None
    if value is None or not isinstance(value, (numbers.Number, str, bytes, list, tuple)):
        raise TypeError(
            f"Expected a tensor, number, string, bool or (nested) list of them, found "
            f"{type(value).__name__}: {value!r}.")
    return EagerTensor(_python_to_numpy(value, dtype))


def constant(value, dtype=None, shape=None, name=None):
    """Creates a constant tensor (a constant node when a graph is being built).

    Args:
        value: A Python value, numpy array or Tensor.
        dtype: Optional DType; Python values are converted to it.
        shape: Optional shape; a scalar value is broadcast to it, otherwise reshaped.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    if isinstance(value, Tensor):
        from runtime.ops import math_ops  # late: the ops import this module
        tensor = value if dtype is None else math_ops.cast(value, dtype)
    else:
        tensor = convert_to_tensor(value, dtype)
    if shape is not None:
        array = tensor._value
        shape = tuple(shape)
        if array.size == 1 and array.ndim == 0:
            array = np.full(shape, array, dtype=array.dtype)
        else:
            array = np.reshape(array, shape)
        tensor = EagerTensor(array)
    graph = context.get_graph()
    if graph is not None and type(tensor) is EagerTensor:
        return graph.constant(tensor._value, name=name)
    return tensor


def constant_value(tensor):
    """Returns the value of a tensor when it is known while tracing, else None.

    Args:
        tensor: A Tensor or Python value.

    Returns:
        A numpy value or None.
    """
    if isinstance(tensor, EagerTensor):
        return tensor._value
    if isinstance(tensor, SymbolicTensor):
        node = tensor.node
        if node.op == "constant":
            return node.attrs["value"]
        if node.op == "shape":
            shape = node.inputs[0].shape
            if None not in shape:
                return np.array(shape, dtype=node.attrs.get("out_type", dtypes.int32).np_dtype)
        return None
    if isinstance(tensor, (np.ndarray, np.generic, numbers.Number, list, tuple)):
        try:
            return np.asarray(tensor)
        except Exception:  # noqa: BLE001 - ragged Python data: value unknown
            return None
    return None

