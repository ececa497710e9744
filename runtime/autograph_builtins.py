"""What converted code's builtins and Python truth mean on staged runtime tensors.

`truth(x)` is Python's truth value of a staged number (`x != 0`), which `if`, `while`, `not`,
`and`, `or` and `assert` use; `BUILTINS` maps Python builtins to runtime ops for
`RuntimeBackend.call_builtin`.
"""
import builtins

from runtime import dtypes
from runtime.data.dataset import Dataset
from runtime.ops import array_ops
from runtime.ops import creation_ops
from runtime.ops import math_ops
from runtime.ops import py_math
from runtime.ops import reduction_ops
from runtime.tensor import Tensor
from runtime.tensor_array import TensorArray
from runtime.variables import Variable


def as_tensor(value):
    """A Variable's value; other values unchanged."""
    if isinstance(value, Variable):
        return value.read_value()
    return value


def truth(value):
    """Python's truth value of a staged scalar: `value != 0` for numbers, as `bool(x)`.

    Args:
        value: a tensor, Variable or Python value.

    Returns:
        A bool tensor for a numeric scalar tensor; other values unchanged (a bool tensor, or a
        tensor of several elements, which `cond` refuses as ambiguous).
    """
    value = as_tensor(value)
    if isinstance(value, Tensor) and value.dtype is not dtypes.bool and (
            len(value.shape) == 0 and value.dtype.is_numeric):
        return math_ops.not_equal(value, math_ops.cast(0, value.dtype))
    return value


def _len(value):
    if type(value) is TensorArray:
        return value.size()
    if type(value) is Dataset:
        raise TypeError("len() of a tf.data.Dataset is only known eagerly (TensorFlow: "
                        "`tf.data.Dataset` only supports `len` in eager mode); use "
                        "dataset.cardinality() inside tf.function.")
    shape = value.shape
    if len(shape) == 0:
        raise TypeError(f"len() of the scalar (rank 0) tensor {value!r} is not defined.")
    if shape[0] is not None:
        return shape[0]
    return array_ops.shape(value)[0]


def _fold(pairwise, reduce):
    def handler(*args):
        if len(args) == 1:
            return reduce(args[0], axis=0)  # Python's min(x) compares the rows of x
        result = args[0]
        for arg in args[1:]:
            result = pairwise(result, arg)
        return result
    return handler


def _sum(iterable, start=0):
    total = reduction_ops.reduce_sum(iterable, axis=0)
    if isinstance(start, (int, float)) and start == 0:
        return total
    return total + start


def _any(value):
    return reduction_ops.reduce_any(math_ops.cast(value, dtypes.bool))


def _all(value):
    return reduction_ops.reduce_all(math_ops.cast(value, dtypes.bool))


BUILTINS = dict(py_math.FUNCTIONS)
BUILTINS.update({
    builtins.len: _len,
    builtins.range: lambda *a, **k: creation_ops.range(*a, **k),
    builtins.abs: math_ops.abs,
    builtins.int: py_math.as_int,
    builtins.float: py_math.as_float,
    builtins.bool: truth,
    builtins.round: py_math.round_,
    builtins.divmod: py_math.divmod_,
    builtins.pow: py_math.pow_,
    builtins.min: _fold(math_ops.minimum, reduction_ops.reduce_min),
    builtins.max: _fold(math_ops.maximum, reduction_ops.reduce_max),
    builtins.sum: _sum,
    builtins.any: _any,
    builtins.all: _all,
})
