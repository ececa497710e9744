"""tf.gather_nd and tf.boolean_mask.

`gather_nd` reads params at index vectors; its gradient `scatter_nd_add` sums back onto
those positions (and differentiates to gather_nd again). `boolean_mask` is a gather of the
positions where the mask is true, along the masked dimensions flattened into one.
"""
import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.ops import common
from runtime.ops.registry import OPS
from runtime.ops.registry import apply
from runtime.ops.registry import defvjp
from runtime.ops.registry import register
from runtime.ops import gather_ops
from runtime.ops import array_ops


def _infer_gather_nd(params, indices):
    if params.shape is None or indices.shape is None or indices.shape[-1] is None:
        return None, params.dtype
    return tuple(indices.shape[:-1]) + tuple(params.shape[indices.shape[-1]:]), params.dtype


def _positions(shape, indices, op):
    """The index tuple of numpy advanced indexing, after TensorFlow's range check."""
    depth = indices.shape[-1]
    if depth > len(shape):
        raise InvalidArgumentError(f"index innermost dimension length must be <= params rank; "
                                   f"saw: {depth} vs. {len(shape)}", op)
    flat = indices.reshape(-1, depth)
    bad = ((flat < 0) | (flat >= np.asarray(shape[:depth], dtype=np.int64))).any(axis=1)
    if bad.any():
        k = int(np.argmax(bad))
        raise InvalidArgumentError(f"indices[{k}] = {flat[k].tolist()} does not index into "
                                   f"param shape {list(shape)}", op)
    return tuple(np.moveaxis(indices.astype(np.intp), -1, 0))


@register("gather_nd", infer=_infer_gather_nd, tf_name="GatherNd")
def _gather_nd_kernel(params, indices):
    return np.asarray(params[_positions(params.shape, indices, "gather_nd")])


@register("scatter_nd_add", infer=lambda dy, like, indices: (like.shape, dy.dtype),
          tf_name="ScatterNd")
def _scatter_nd_add_kernel(dy, like, indices):
    out = np.zeros(like.shape, dtype=dy.dtype)
    np.add.at(out, _positions(like.shape, indices, "scatter_nd"), dy)
    return out


@defvjp("gather_nd")
def _gather_nd_vjp(op, dy):
    params, indices = op.inputs
    return [apply(OPS["scatter_nd_add"], [dy, params, indices], {}), None]


@defvjp("scatter_nd_add")
def _scatter_nd_add_vjp(op, ddx):
    return [apply(OPS["gather_nd"], [ddx, op.inputs[2]], {}), None, None]


def gather_nd(params, indices, batch_dims=0, name=None):
    """Gathers slices of `params` at the index vectors in the last axis of `indices`.

    Args:
        params: A tensor.
        indices: An int32 or int64 tensor; indices[..., :] indexes the leading dims of params.
        batch_dims: 0 (the only value supported here).
        name: Optional node name in graph mode.

    Returns:
        A Tensor of shape indices.shape[:-1] + params.shape[indices.shape[-1]:].

    Raises:
        InvalidArgumentError: for an index out of range (when the op runs).
    """
    params = common.to_tensor(params)
    indices = common.to_tensor(indices)
    if indices.dtype not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(f"gather_nd expects int32 or int64 indices, found "
                                   f"{indices.dtype.name}.", "gather_nd")
    if batch_dims != 0:
        raise InvalidArgumentError("gather_nd: only batch_dims=0 is supported here; gather "
                                   "per batch in a tf.map_fn instead.", "gather_nd")
    if indices.shape is None or len(indices.shape) == 0:
        raise InvalidArgumentError("gather_nd: indices must have rank at least 1.", "gather_nd")
    return apply(OPS["gather_nd"], [params, indices], {}, name)


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The entries of `tensor` where the K-D `mask` is True, over dims axis..axis+K-1.

    Args:
        tensor: A tensor of rank at least axis + K.
        mask: A bool tensor of rank K >= 1 whose shape matches those dims.
        axis: The first masked dimension (default 0).
        name: Optional node name in graph mode.

    Returns:
        A Tensor whose masked dims become one of (unknown) length.
    """
    x, mask = common.to_tensor(tensor), common.to_tensor(mask)
    if mask.dtype is not dtypes.bool:
        raise TypeError(f"boolean_mask expects a bool mask, found {mask.dtype.name}.")
    k = None if mask.shape is None else len(mask.shape)
    if not k:
        raise ValueError("boolean_mask: the mask must have a known rank of at least 1.")
    axis = 0 if axis is None else int(common.static_axis(axis))
    rank = len(x.shape)
    axis = axis % rank if rank else 0
    masked = tuple(x.shape[axis:axis + k])
    if len(masked) != k or not mask.shape.is_compatible_with(masked):
        raise ValueError(f"boolean_mask: the mask's shape {tuple(mask.shape)} does not match "
                         f"the tensor's dims {masked} from axis {axis}.")
    shape = array_ops.shape(x)
    flat = array_ops.reshape(x, array_ops.concat(
        [shape[:axis], [-1], shape[axis + k:]], 0))
    where = array_ops.where(array_ops.reshape(mask, [-1]))
    return gather_ops.gather(flat, array_ops.squeeze(where, 1), axis=axis, name=name)
