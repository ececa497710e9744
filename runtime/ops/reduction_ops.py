"""Reductions (sum, mean, max, min, prod, any, all) and argmax/argmin."""
import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.ops import common
from runtime.ops import math_ops
from runtime.ops.array_ops import size
from runtime.ops.registry import OPS
from runtime.ops.registry import OpKind
from runtime.ops.registry import apply
from runtime.ops.registry import check_dtype_allowed
from runtime.ops.registry import register

# ufunc reductions directly: np.sum & co. add a Python wrapper layer per call.
_add_reduce = np.add.reduce
_mul_reduce = np.multiply.reduce
_max_reduce = np.maximum.reduce
_min_reduce = np.minimum.reduce
_or_reduce = np.logical_or.reduce
_and_reduce = np.logical_and.reduce

_DOC = """Computes the {what} of elements across dimensions.

    Args:
        input_tensor: A Tensor or value.
        axis: None (all dimensions), an int, or a list of ints.
        keepdims: Keep reduced dimensions with length 1.
        name: Optional node name in graph mode.

    Returns:
        A Tensor with the input's dtype.

    Raises:
        InvalidArgumentError: for an out-of-range axis or unsupported dtype.
    """


def _axes(axis, rank):
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted({common.normalize_axis(a, rank, "reduce") for a in axis}))


def _infer_reduce(x, axis=None, keepdims=False):
    dims = x.shape
    if dims is None:
        return (() if axis is None and not keepdims else None), x.dtype
    axes = _axes(axis, len(dims))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(dims)), x.dtype
    return tuple(d for i, d in enumerate(dims) if i not in axes), x.dtype


def _sum_kernel(x, axis=None, keepdims=False):
    return _add_reduce(x, axis=axis, dtype=x.dtype, keepdims=keepdims)


def _prod_kernel(x, axis=None, keepdims=False):
    return _mul_reduce(x, axis=axis, dtype=x.dtype, keepdims=keepdims)


def _mean_kernel(x, axis=None, keepdims=False):
    if x.dtype.kind in "iu":
        total = np.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64)
        count = max(np.size(x) // max(np.size(total), 1), 1) if np.size(x) else 1
        # C-style integer division (truncation toward zero), as TensorFlow computes it.
        out = np.sign(total) * (np.abs(total) // count)
        return out.astype(x.dtype)
    if np.size(x) == 0:
        return np.full(np.shape(np.sum(x, axis=axis, keepdims=keepdims)), np.nan,
                       dtype=x.dtype)
    return np.mean(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def _lowest(dtype):
    if dtype.kind == "f":
        return -np.inf
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min


def _highest(dtype):
    if dtype.kind == "f":
        return np.inf
    if dtype.kind == "b":
        return True
    return np.iinfo(dtype).max


def _max_kernel(x, axis=None, keepdims=False):
    return _max_reduce(x, axis=axis, keepdims=keepdims, initial=_lowest(x.dtype))


def _min_kernel(x, axis=None, keepdims=False):
    return _min_reduce(x, axis=axis, keepdims=keepdims, initial=_highest(x.dtype))


def _any_kernel(x, axis=None, keepdims=False):
    return _or_reduce(x, axis=axis, keepdims=keepdims)


def _all_kernel(x, axis=None, keepdims=False):
    return _and_reduce(x, axis=axis, keepdims=keepdims)


def _def_reduce(name, kernel, allowed, tf_name, what):
    register(name, infer=_infer_reduce, kind=OpKind.REDUCTION, tf_name=tf_name)(kernel)
    opdef = OPS[name]
    allowed = frozenset(allowed)

    def op(input_tensor, axis=None, keepdims=False, name=None):
        x = common.to_tensor(input_tensor)
        if x.dtype not in allowed:
            check_dtype_allowed(opdef, x, allowed)
        axis = common.static_axis(axis)
        if isinstance(axis, tuple) and len(axis) == 1:
            axis = axis[0]
        attrs = {}
        if axis is not None:
            if x.shape is not None:
                _axes(axis, len(x.shape))
            attrs["axis"] = axis
        if keepdims:
            attrs["keepdims"] = True
        return apply(opdef, [x], attrs, name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = _DOC.format(what=what)
    return op


reduce_sum = _def_reduce("reduce_sum", _sum_kernel, common.NUMERIC, "Sum", "sum")
reduce_prod = _def_reduce("reduce_prod", _prod_kernel, common.NUMERIC, "Prod", "product")
reduce_mean = _def_reduce("reduce_mean", _mean_kernel, common.NUMERIC, "Mean", "mean")
reduce_max = _def_reduce("reduce_max", _max_kernel, common.NUMERIC, "Max", "maximum")
reduce_min = _def_reduce("reduce_min", _min_kernel, common.NUMERIC, "Min", "minimum")
reduce_any = _def_reduce("reduce_any", _any_kernel, common.BOOLS, "Any", "logical or")
reduce_all = _def_reduce("reduce_all", _all_kernel, common.BOOLS, "All", "logical and")


def _infer_arg(x, axis, output_type):
    dims = x.shape
    axis = common.normalize_axis(axis, len(dims), "ArgMax")
    return tuple(d for i, d in enumerate(dims) if i != axis), output_type


def _arg_kernel(fn):
    def kernel(x, axis, output_type):
        if np.shape(x)[axis] == 0:
            raise InvalidArgumentError(
                f"Reduction axis {axis} is empty in shape {list(np.shape(x))}; "
                f"argmax/argmin need at least one element.", "argmax")
        return fn(x, axis=axis).astype(output_type.np_dtype)
    return kernel


register("argmax", infer=_infer_arg, kind=OpKind.REDUCTION, tf_name="ArgMax")(
    _arg_kernel(np.argmax))
register("argmin", infer=_infer_arg, kind=OpKind.REDUCTION, tf_name="ArgMin")(
    _arg_kernel(np.argmin))


def argmax(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """Returns the index of the largest value along `axis` (0 when None).

    Args:
        input: A numeric Tensor.
        axis: An int (default 0).
        output_type: int64 (default) or int32.
        name: Optional node name in graph mode.

    Returns:
        An integer Tensor.
    """
    return _arg("argmax", input, axis, output_type, name)


def argmin(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """Returns the index of the smallest value along `axis` (0 when None).

    Args:
        input: A numeric Tensor.
        axis: An int (default 0).
        output_type: int64 (default) or int32.
        name: Optional node name in graph mode.

    Returns:
        An integer Tensor.
    """
    return _arg("argmin", input, axis, output_type, name)


def _arg(op, input, axis, output_type, name):  # noqa: A002
    x = common.to_tensor(input)
    opdef = OPS[op]
    check_dtype_allowed(opdef, x, common.NUMERIC)
    axis = 0 if axis is None else common.static_axis(axis)
    attrs = {"axis": common.normalize_axis(axis, len(x.shape), opdef.tf_name),
             "output_type": dtypes.as_dtype(output_type)}
    return apply(opdef, [x], attrs, name)


# -- gradients (vjp rules; see runtime.ops.registry.defvjp) -----------------------------------

from runtime.ops import gradient_ops as _grad  # noqa: E402 - the gradient vocabulary
from runtime.ops.registry import defvjp  # noqa: E402


def _reduced_back(op, value):
    return _grad.reduce_grad(value, op.inputs[0], op.attrs.get("axis"),
                             op.attrs.get("keepdims", False))


@defvjp("reduce_sum")
def _reduce_sum_vjp(op, dy):
    return [_reduced_back(op, dy)]


@defvjp("reduce_mean")
def _reduce_mean_vjp(op, dy):
    x = op.inputs[0]
    count = math_ops.divide(math_ops.cast(size(x), dy.dtype),
                            math_ops.cast(size(op.outputs[0]), dy.dtype))
    return [math_ops.divide(_reduced_back(op, dy), count)]


def _extremum_vjp(op, dy):
    # As TensorFlow: the gradient is shared equally among the elements equal to the extremum.
    x = op.inputs[0]
    mask = math_ops.cast(math_ops.equal(x, _reduced_back(op, op.outputs[0])), dy.dtype)
    ties = _reduced_back(op, reduce_sum(mask, axis=op.attrs.get("axis"),
                                        keepdims=op.attrs.get("keepdims", False)))
    return [math_ops.divide(math_ops.multiply(_reduced_back(op, dy), mask), ties)]


defvjp("reduce_max")(_extremum_vjp)
defvjp("reduce_min")(_extremum_vjp)


@defvjp("reduce_prod")
def _reduce_prod_vjp(op, dy):
    # prod / x_i: exact for nonzero inputs (documented limitation at zeros).
    return [math_ops.divide(math_ops.multiply(_reduced_back(op, dy),
                                              _reduced_back(op, op.outputs[0])), op.inputs[0])]
