"""tf.sort, tf.argsort and tf.math.top_k, over `take_along_axis` and its gradient.

`argsort` and top_k's indices are ops without gradients; the values are
`take_along_axis(x, indices)`, whose gradient scatters back to the positions read (and whose
second derivative is take_along_axis again). Ties keep the lower index first, as
TensorFlow's stable sorts and top_k do.
"""
import collections

import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.ops import common
from runtime.ops.registry import OPS
from runtime.ops.registry import apply
from runtime.ops.registry import defvjp
from runtime.ops.registry import register


def _infer_take(x, indices, axis):
    return indices.shape, x.dtype


@register("take_along_axis", infer=_infer_take, tf_name="GatherV2")
def _take_kernel(x, indices, axis):
    return np.take_along_axis(x, indices.astype(np.intp), axis)


@register("scatter_along_axis", infer=lambda dy, like, indices, axis: (like.shape, dy.dtype),
          tf_name="ScatterAlongAxis")
def _scatter_kernel(dy, like, indices, axis):
    out = np.zeros(like.shape, dtype=dy.dtype)
    index = list(np.indices(indices.shape, sparse=True))
    index[axis] = indices.astype(np.intp)
    np.add.at(out, tuple(index), dy)
    return out


@defvjp("take_along_axis")
def _take_vjp(op, dy):
    x, indices = op.inputs
    axis = op.attrs["axis"]
    return [apply(OPS["scatter_along_axis"], [dy, x, indices], {"axis": axis}), None]


@defvjp("scatter_along_axis")
def _scatter_vjp(op, ddx):
    _, _, indices = op.inputs
    return [apply(OPS["take_along_axis"], [ddx, indices], {"axis": op.attrs["axis"]}),
            None, None]


def _order(x, axis, descending):
    """Stable ascending or descending order (ties keep the lower index first)."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    if x.dtype.kind == "u":
        x = x.astype(np.int64)
    if x.dtype.kind == "b":
        x = x.astype(np.int8)
    return np.argsort(-x, axis=axis, kind="stable")


@register("argsort", infer=lambda x, axis, descending: (x.shape, dtypes.int32),
          tf_name="ArgSort")
def _argsort_kernel(x, axis, descending):
    return _order(x, axis, descending).astype(np.int32)


def _infer_top_k(x, k):
    return (None if x.shape is None else tuple(x.shape[:-1]) + (k,)), dtypes.int32


@register("top_k_indices", infer=_infer_top_k, tf_name="TopKV2")
def _top_k_kernel(x, k):
    if k > x.shape[-1]:
        raise InvalidArgumentError(f"input must have at least k={k} columns, found "
                                   f"{x.shape[-1]}.", "top_k")
    return _order(x, -1, True)[..., :k].astype(np.int32)


def _sortable(values, name):
    x = common.to_tensor(values)
    if x.dtype not in common.NUMERIC:
        raise InvalidArgumentError(f"{name} expects a number tensor, found {x.dtype.name}.",
                                   name)
    if x.shape is not None and len(x.shape) == 0:
        raise InvalidArgumentError(f"{name} expects a tensor of rank at least 1, found a "
                                   f"scalar.", name)
    return x


def _direction(direction, name):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"{name}: direction must be 'ASCENDING' or 'DESCENDING', found "
                         f"{direction!r}.")
    return direction == "DESCENDING"


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort `values` along `axis` (tf.argsort).

    The sort is always stable here (ties keep their order), which `stable=True` asks for.
    """
    x = _sortable(values, "argsort")
    axis = common.normalize_axis(common.static_axis(axis), len(x.shape), "argsort")
    return apply(OPS["argsort"], [x], {"axis": axis,
                                        "descending": _direction(direction, "argsort")}, name)


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """`values` sorted along `axis` (tf.sort); the gradient goes back to where each came from."""
    x = _sortable(values, "sort")
    axis = common.normalize_axis(common.static_axis(axis), len(x.shape), "sort")
    order = argsort(x, axis, direction)
    return apply(OPS["take_along_axis"], [x, order], {"axis": axis}, name)


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002 - TensorFlow's names
    """The k largest entries along the last axis and their int32 indices (tf.math.top_k).

    Args:
        input: A number tensor of rank at least 1.
        k: A Python int (at most the last dimension).
        sorted: Accepted for TensorFlow's signature; the values are always in descending
            order.
        name: Optional node name in graph mode.

    Returns:
        A namedtuple-like pair (values, indices).
    """
    x = _sortable(input, "top_k")
    k = int(common.static_axis(k))
    if k < 0:
        raise InvalidArgumentError(f"top_k: k must be non-negative, found {k}.", "top_k")
    last = x.shape[-1] if x.shape is not None else None
    if last is not None and k > last:
        raise InvalidArgumentError(f"input must have at least k={k} columns, found {last}.",
                                   "top_k")
    indices = apply(OPS["top_k_indices"], [x], {"k": k})
    values = apply(OPS["take_along_axis"], [x, indices], {"axis": len(x.shape) - 1}, name)
    return TopKV2(values, indices)


# the result of top_k, a namedtuple as TensorFlow's
TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
