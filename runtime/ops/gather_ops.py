"""tf.gather: slices of a tensor along an axis, picked by an index tensor, and its gradient."""
import numpy as np

from runtime.errors import InvalidArgumentError
from runtime.ops import common
from runtime.ops.registry import OPS
from runtime.ops.registry import apply
from runtime.ops.registry import defvjp
from runtime.ops.registry import register


def _infer_gather(params, indices, axis=0):
    dims = tuple(params.shape)
    axis = common.normalize_axis(axis, len(dims), "GatherV2")
    return dims[:axis] + tuple(indices.shape) + dims[axis + 1:], params.dtype


@register("gather", infer=_infer_gather, tf_name="GatherV2")
def _gather_kernel(params, indices, axis=0):
    try:
        return np.take(params, indices, axis)
    except IndexError as e:
        raise InvalidArgumentError(f"gather: {e}", "gather") from None


def gather(params, indices, axis=0, name=None):
    """Gathers slices of `params` along `axis` at `indices`.

    Args:
        params: A Tensor.
        indices: An integer Tensor.
        axis: An int.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    params = common.to_tensor(params)
    indices = common.to_tensor(indices)
    axis = common.static_axis(axis)
    return apply(OPS["gather"], [params, indices], {"axis": axis}, name)


@defvjp("gather")
def _gather_vjp(op, dy):
    params, indices = op.inputs
    return [apply(OPS["gather_grad"], [dy, params, indices], {"axis": op.attrs.get("axis", 0)}),
            None]
