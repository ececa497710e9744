"""What converted code's builtins and Python truth mean on staged runtime tensors.

`truth(x)` is Python's truth value of a staged number (`x != 0`), which `if`, `while`, `not`,
`and`, `or` and `assert` use; `BUILTINS` maps Python builtins to runtime ops for
`RuntimeBackend.call_builtin`.
"""
import builtins

from autograph.operators import comparisons
from autograph.operators import data_structures
from autograph.operators import generators
from autograph.operators import number_methods
from runtime import config
from runtime import dtypes
from runtime.data.dataset import Dataset
from runtime.ops import array_ops
from runtime.ops import creation_ops
from runtime.ops import gather_nd_ops
from runtime.ops import common
from runtime.ops import math_ops
from runtime.ops import promotion
from runtime.ops import py_math
from runtime.ops import reduction_ops
from runtime.ops import sort_ops
from runtime.tensor import Tensor
from runtime.tensor_conversion import convert_to_tensor
from runtime import tensor_array
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
        A bool tensor for a numeric scalar tensor, and for a staged list (a TensorArray) whether
        it has an element, as Python's list; other values unchanged (a bool tensor, or a
        tensor of several elements, which `cond` refuses as ambiguous).
    """
    if type(value) is TensorArray:  # `if not primes:` of a list built in staged control flow
        return math_ops.not_equal(value.size(), 0)
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


def _is_integer(x):
    """`x.is_integer()`: a float is whole and finite (`floor(x) == x` and not infinite: False
    for inf and nan, as Python's); an int's or bool's is Python's `int.is_integer`
    (number_methods)."""
    x = common.to_tensor(as_tensor(x))
    if not x.dtype.is_floating:
        return number_methods.int_is_integer()
    return math_ops.logical_and(math_ops.equal(math_ops.floor(x), x),
                                math_ops.not_equal(math_ops.abs(x), float("inf")))


def _identical(x, constant):
    """`x is True` (comparisons.identical): a bool tensor stands for Python's bool, so the test
    is `x == constant`; a number of another dtype is never the bool singleton (False)."""
    x = common.to_tensor(as_tensor(x))
    if x.dtype is not dtypes.bool:
        return False
    return math_ops.equal(x, constant)


def _item(value):
    return value


def list_builtin(fn, array, kwargs):
    """`fn(array, **kwargs)` for a list built in a staged loop (a TensorArray), or None when
    `fn` has no overload for one.

    `sum`, `any`, `all` and `sorted` (`reverse=` too; the result is a tensor; for `xs.sort()`,
    `data_structures.sorted_list`, a staged list) act on its
    stacked elements; `max` and `min` (`default=` too) run the loop that max/min of a generator
    stage (autograph/operators/generators.py): Python's first extreme element, and Python's
    ValueError for an empty list, raised when the computation runs.
    """
    if fn in (builtins.max, builtins.min) and not set(kwargs) - {"default"}:
        return generators.reduce_generator(fn, array, _item, None, "item", **kwargs)
    if fn in (builtins.sorted, data_structures.sorted_list) and not set(kwargs) - {"reverse"}:
        ordered = sort_ops.sort(array.stack(), direction="DESCENDING" if kwargs.get(
            "reverse") else "ASCENDING")
        # `xs.sort()` leaves a list: a staged list still (which a Python list beside it in a
        # branch joins), where sorted() gives the tensor
        return ordered if fn is builtins.sorted else tensor_array.listed(
            ordered, array._list_name)
    if fn in (builtins.sum, builtins.any, builtins.all):
        return BUILTINS[fn](array.stack(), **kwargs)
    if fn is builtins.list and not kwargs:
        return array
    return None


def _list(value):
    """`list(x)` of a staged tensor of rank 1 or more (`list(range(1, n + 1))`): a staged
    list of its rows (a TensorArray, whose `+` concatenates and whose `append` grows it; a
    graph tensor's rows cannot be iterated)."""
    if not isinstance(value, Tensor) or len(value.shape) == 0:
        raise NotImplementedError(type(value))
    return tensor_array.listed(value, "list")


def _python_numbers_dtype(items):
    """The dtype of a list of Python numbers as staged control flow carries a Python number
    (`config.python_number_dtype`: a float is float64, an int int64 under `enable_x64`), so
    that `[0] * (n + 1)` holds what an int64 argument writes into it; None for anything else
    (the tensor conversion's own rules)."""
    kinds = {type(item) for item in items}
    if not kinds or not kinds <= {bool, int, float}:
        return None
    kind = float if float in kinds else int if int in kinds else bool
    return dtypes.as_dtype(config.python_number_dtype(kind))


def repeat_list(items, count):
    """`items * count` of a Python list of numbers and a staged int scalar: a tensor of the
    run-time length (`[0] * (n + 1)`), empty for a count below 1, as Python's repetition is.
    A float or non-scalar tensor is left to the tensor's `*` (TensorFlow's elementwise
    product: `[1.0, 2.0] * scale`)."""
    if not (count.dtype.is_integer or count.dtype is dtypes.bool) or len(count.shape) != 0:
        raise NotImplementedError(count)
    values = convert_to_tensor(items, dtype=_python_numbers_dtype(items))
    return tensor_array.repeated_rows(values, count, len(items))


def slice_list(items, key, name):
    """`items[key]` of a Python list of numbers (or of rows of numbers) and a slice with a
    staged bound: a staged list (a TensorArray named for the list) of the elements Python's
    slice gives, its length known when the graph runs; `[]` for an empty list. A list of
    anything else is left to Python (whose slicing refuses the staged bound)."""
    if not items:
        return []
    try:
        values = convert_to_tensor(items)
    except (TypeError, ValueError):
        raise NotImplementedError(type(items)) from None
    if not (values.dtype.is_numeric or values.dtype is dtypes.bool):
        raise NotImplementedError(values.dtype)
    bounds = [None if b is None else as_tensor(b) for b in (key.start, key.stop, key.step)]
    return tensor_array.listed(values[slice(*bounds)], name)


def concat_lists(left, right):
    """`left + right` of two lists, one a tensor standing for a list (`[1] + [0] * n`): one
    rank-1 tensor, the elements meeting in one dtype as binary ops' operands do."""
    parts = [v.stack() if type(v) is TensorArray else v for v in (left, right)]
    if not all(type(v) is list or isinstance(v, Tensor) and len(v.shape) == 1 for v in parts):
        raise NotImplementedError(type(left), type(right))
    return array_ops.concat([v for v in parts if not (type(v) is list and not v)], 0)


def set_item(target, key, value, list_index):
    """`target[key] = value` of a tensor standing for a list (rank 1: of numbers; rank 2 or
    more: a table of rows of one length), an int or staged int key: the tensor with that
    element (row) replaced, and Python's IndexError when the key is out of range (the backend's
    `list_index`: when the computation runs)."""
    listed = type(target) is TensorArray and target._list_name is not None
    if isinstance(key, (tuple, list, slice)) or not listed and (
            not isinstance(target, Tensor) or not target.shape):
        raise NotImplementedError(type(target))
    size = target.size() if listed else array_ops.shape(target)[0]
    index = list_index(math_ops.cast(key, dtypes.int32), size, "list assignment")
    # an int64 into int32 elements, or a float into ints: the wider (Python's one int type;
    # the list now holds a float)
    if isinstance(value, Tensor):
        joint = promotion.promoted_dtype(target.dtype, value.dtype) or target.dtype
        value = math_ops.cast(value, joint)
    else:
        value = common.adopt_dtype(value, promotion.weak_dtype(value, target.dtype)
                                   or target.dtype)
    if listed:
        widened = target if value.dtype is target.dtype else target._widened(value.dtype)
        return widened.write(index, value)
    target = math_ops.cast(target, value.dtype)
    chosen = creation_ops.range(size) == index
    if len(target.shape) > 1:  # a row of a table: the choice broadcasts along the row
        chosen = array_ops.reshape(chosen, [-1] + [1] * (len(target.shape) - 1))
    return array_ops.where(chosen, value, target)


def pop_item(target, key, list_index):
    """`target.pop(key)` of a staged list (a TensorArray) or a tensor standing for a list
    (`list(range(1, n + 1))`): (the list without that element, the element), the list of
    the target's kind, and Python's IndexError when the key is out of range (`list_index`:
    when the computation runs)."""
    listed = type(target) is TensorArray
    values = target.stack() if listed else target
    if not isinstance(values, Tensor) or not values.shape or isinstance(key, (tuple, slice)):
        raise NotImplementedError(type(target))
    size = array_ops.shape(values)[0]
    index = list_index(math_ops.cast(key, dtypes.int32), size, "pop")
    element = array_ops.gather(values, index)
    rest = gather_nd_ops.boolean_mask(values, creation_ops.range(size) != index)
    return (tensor_array.listed(rest, target._list_name) if listed else rest), element


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
    builtins.list: _list,
    builtins.any: _any,
    builtins.all: _all,
    number_methods.is_integer: _is_integer,
    comparisons.identical: _identical,
})
