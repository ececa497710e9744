"""How numbers of different types mix in binary ops: as Python mixes them (weak typing).

| operands                                   | result dtype                                  |
|--------------------------------------------|-----------------------------------------------|
| tensor and Python int (or bool)            | the tensor's (int64 for an int32/bool tensor  |
|                                            | and an int that needs it)                     |
| float tensor and Python float              | the tensor's                                  |
| int or bool tensor and Python float        | float64 (Python's float)                      |
| bool tensor and int tensor                 | the int tensor's                              |
| int tensor and float tensor                | the float tensor's                            |
| two ints, or two floats, of other widths   | the wider (numpy's promotion)                 |

A Python number is weakly typed (as in JAX and TensorFlow's NumPy behaviour): it adopts the
dtype of the tensor it meets, unless Python would give a different kind of number (an int
tensor meeting a float gives a float, as `n * 0.5` does in Python). Tensors of different
dtypes meet in the dtype Python's result has. The table is docs/realcode.md's.
"""
import numpy as np

from runtime import dtypes
from runtime.ops.registry import OPS
from runtime.ops.registry import apply
from runtime.tensor import SymbolicTensor
from runtime.tensor import Tensor

_INT32_RANGE = (-2 ** 31, 2 ** 31 - 1)
_INT64_RANGE = (-2 ** 63, 2 ** 63 - 1)


def promoted_dtype(a, b):
    """The dtype in which tensors of dtypes `a` and `b` meet, or None when they do not.

    Args:
        a: A DType.
        b: A DType.

    Returns:
        A DType, or None (strings, or unsigned and signed ints that numpy would make floats).
    """
    if a is b:
        return a
    if not (a.is_numeric or a.is_bool) or not (b.is_numeric or b.is_bool):
        return None
    if a.is_bool:
        return b
    if b.is_bool:
        return a
    if a.is_floating != b.is_floating:
        return a if a.is_floating else b
    joint = np.promote_types(a.np_dtype, b.np_dtype)
    if joint.kind != a.np_dtype.kind and joint.kind != b.np_dtype.kind:
        return None
    return dtypes.as_dtype(joint)


def cast(tensor, dtype):
    """`tensor` as `dtype` (itself when it already has it)."""
    if tensor.dtype is dtype:
        return tensor
    return apply(OPS["cast"], [tensor], {"dtype": dtype}, None)


def weak_dtype(value, dtype):
    """The dtype in which a Python number `value` meets a tensor of `dtype`, or None when
    the number simply adopts `dtype`.

    Args:
        value: A Python int, float or bool.
        dtype: The tensor's DType.

    Returns:
        A DType the tensor must be cast to first, or None.
    """
    kind = type(value)
    if kind is float and (dtype.is_integer or dtype.is_bool):
        return dtypes.float64
    if kind is int and dtype.is_bool:
        return dtypes.int64 if not _INT32_RANGE[0] <= value <= _INT32_RANGE[1] else dtypes.int32
    if kind is int and dtype in (dtypes.int8, dtypes.int16, dtypes.int32):
        info = np.iinfo(dtype.np_dtype)
        if not info.min <= value <= info.max and _INT64_RANGE[0] <= value <= _INT64_RANGE[1]:
            return dtypes.int64
    return None


def promote_pair(x, y):
    """Casts two tensors of different dtypes to the dtype they meet in, when there is one.

    Args:
        x: A Tensor.
        y: A Tensor.

    Returns:
        The pair, cast (unchanged when they do not meet: the op reports the mismatch).
    """
    dtype = _weak_adopted(x, y) or promoted_dtype(x.dtype, y.dtype)
    if dtype is None:
        return x, y
    return cast(x, dtype), cast(y, dtype)


def _weak_adopted(x, y):
    """The strong operand's dtype when the other stands for a Python number of the same kind
    (a staged `if` whose branches all give Python numbers: `SymbolicTensor._weak`), else None."""
    weak_x, weak_y = x._weak, y._weak
    if (weak_x is None) == (weak_y is None):
        return None
    weak, strong = (x, y) if weak_x is not None else (y, x)
    if strong.dtype.is_floating and weak.dtype.is_floating:
        return strong.dtype
    if strong.dtype.is_integer and weak.dtype.is_integer:
        return strong.dtype
    return None


def list_dtype(tensors):
    """The dtype a list of tensors meets in (`tf.stack`, `tf.concat`), or None when they do
    not: the strong tensors' join (the table above); a tensor standing for a Python number
    (`SymbolicTensor._weak`) adopts it, unless it is a float and the join an int (Python's
    `[n, 0.5]` holds a float)."""
    strong = [t.dtype for t in tensors if t._weak is None]
    weak = [t.dtype for t in tensors if t._weak is not None]
    joint = (strong or weak)[0]
    for dtype in (strong or weak)[1:]:
        joint = joint and promoted_dtype(joint, dtype)
    for dtype in weak if strong else ():
        if joint is not None and dtype.is_floating and not joint.is_floating:
            joint = promoted_dtype(joint, dtype)
    return joint


def weak_operand(tensor, value):
    """The tensor operand, cast when a Python number `value` changes its kind (see table)."""
    if type(value) not in (int, float, bool) or not isinstance(tensor, Tensor):
        return tensor
    dtype = weak_dtype(value, tensor.dtype)
    return tensor if dtype is None else cast(tensor, dtype)


def both_weak(x, y):
    """Whether both operands stand for Python numbers, one of them a weak SymbolicTensor
    (runtime/weak_types.py; an op on them marks its result weak): their result is weak too, as in JAX (`s - s` of a weak `s` then
    meets a float32 tensor in float32)."""
    if type(x) is SymbolicTensor:
        return x._weak is not None and (type(y) in _PY_NUMBERS or (
            type(y) is SymbolicTensor and y._weak is not None))
    return type(y) is SymbolicTensor and y._weak is not None and type(x) in _PY_NUMBERS


_PY_NUMBERS = (int, float, bool)
