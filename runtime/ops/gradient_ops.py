"""Ops that gradient rules are made of: undoing broadcasting, reductions, slicing and gathers.

Each takes the forward input whose shape the gradient must have (``like``) as an input, so the
rules work on shapes only known at run time; each is differentiable in turn.
"""
import numpy as np

from runtime.ops.registry import OPS
from runtime.ops.registry import OpKind
from runtime.ops.registry import apply
from runtime.ops.registry import defvjp
from runtime.ops.registry import register
from runtime.ops.slicing import _resolve


def _like(g, like, *rest, **attrs):
    return like.shape, g.dtype


def _sum_to_shape(g, shape):
    g = np.asarray(g)
    if g.shape == tuple(shape):
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and g.shape[lead + i] != 1)
    out = np.sum(g, axis=axes, keepdims=True, dtype=g.dtype)
    return out.reshape(shape)


@register("unbroadcast", infer=_like, tf_name="SumToShape")
def _unbroadcast_kernel(g, like):
    return _sum_to_shape(g, np.shape(like))


@register("broadcast_like", infer=_like, tf_name="BroadcastTo")
def _broadcast_like_kernel(g, like):
    return np.array(np.broadcast_to(g, np.shape(like)), dtype=np.asarray(g).dtype)


@register("reshape_like", infer=_like, tf_name="Reshape")
def _reshape_like_kernel(g, like):
    return np.reshape(g, np.shape(like))


def _expanded_shape(shape, axis, keepdims):
    if keepdims:
        return shape
    if axis is None:
        return (1,) * len(shape)
    axes = {a % len(shape) for a in ((axis,) if isinstance(axis, int) else axis)}
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


@register("reduce_grad", infer=_like, tf_name="ReduceGrad")
def _reduce_grad_kernel(g, like, axis=None, keepdims=False):
    shape = np.shape(like)
    if not keepdims:
        g = np.reshape(g, _expanded_shape(shape, axis, keepdims))
    return np.array(np.broadcast_to(g, shape), dtype=np.asarray(g).dtype)


@register("getitem_grad", infer=_like, tf_name="StridedSliceGrad")
def _getitem_grad_kernel(g, like, *indices, spec):
    values = (None,) + indices
    key = tuple(_resolve(item, values) for item in spec)
    out = np.zeros(np.shape(like), dtype=np.asarray(g).dtype)
    np.add.at(out, key, g)
    return out


@register("gather_grad", infer=_like, tf_name="UnsortedSegmentSum")
def _gather_grad_kernel(g, like, indices, axis=0):
    out = np.zeros(np.shape(like), dtype=np.asarray(g).dtype)
    axis = axis % out.ndim
    moved = np.moveaxis(out, axis, 0)
    g = np.moveaxis(np.asarray(g), list(range(axis, axis + np.ndim(indices))),
                    list(range(np.ndim(indices))))
    np.add.at(moved, np.asarray(indices), g)
    return out


def _infer_split_like(g, *likes, axis):
    return [(like.shape, g.dtype) for like in likes]


@register("split_like", infer=_infer_split_like, multi_output=True, tf_name="SplitV")
def _split_like_kernel(g, *likes, axis):
    sizes = np.cumsum([np.shape(like)[axis] for like in likes])[:-1]
    return [np.array(p) for p in np.split(g, sizes, axis=axis)]


@register("stop_gradient", infer=lambda x: (x.shape, x.dtype), kind=OpKind.ELEMENTWISE,
          tf_name="StopGradient")
def _stop_gradient_kernel(x):
    return x


# -- helpers for the rules --------------------------------------------------------------------

def unbroadcast(g, like):
    """Sums `g` down to the shape of `like` (undoing numpy broadcasting)."""
    if g.shape is not None and like.shape is not None and tuple(g.shape) == tuple(like.shape) \
            and None not in tuple(g.shape):
        return g
    return apply(OPS["unbroadcast"], [g, like], {})


def broadcast_like(g, like):
    """Broadcasts `g` to the shape of `like`."""
    return apply(OPS["broadcast_like"], [g, like], {})


def reshape_like(g, like):
    """Reshapes `g` to the shape of `like`."""
    return apply(OPS["reshape_like"], [g, like], {})


def reduce_grad(g, like, axis, keepdims):
    """Broadcasts a reduction's output gradient back to the reduced input's shape."""
    return apply(OPS["reduce_grad"], [g, like], {"axis": axis, "keepdims": keepdims})


@defvjp("unbroadcast")
def _unbroadcast_vjp(op, dy):
    return [broadcast_like(dy, op.inputs[0]), None]


@defvjp("broadcast_like")
def _broadcast_like_vjp(op, dy):
    return [unbroadcast(dy, op.inputs[0]), None]


@defvjp("reshape_like")
def _reshape_like_vjp(op, dy):
    return [reshape_like(dy, op.inputs[0]), None]


@defvjp("reduce_grad")
def _reduce_grad_vjp(op, dy):
    # late: ops.reduction_ops imports this module as it loads
    from runtime.ops.reduction_ops import reduce_sum
    return [reshape_like(reduce_sum(dy, axis=op.attrs["axis"],
                                    keepdims=op.attrs["keepdims"]), op.inputs[0]), None]


@defvjp("getitem_grad")
def _getitem_grad_vjp(op, dy):
    return [apply(OPS["getitem"], [dy, *op.inputs[2:]], {"spec": op.attrs["spec"]}),
            None] + [None] * (len(op.inputs) - 2)


@defvjp("gather_grad")
def _gather_grad_vjp(op, dy):
    return [apply(OPS["gather"], [dy, op.inputs[2]], {"axis": op.attrs["axis"]}), None, None]


@defvjp("split_like")
def _split_like_vjp(op, *dys):
    # late: ops.creation_ops imports this module as it loads through ops.array_ops
    from runtime.ops.creation_ops import zeros_like
    parts = [zeros_like(o) if d is None else d for o, d in zip(op.outputs, dys)]
    return [apply(OPS["concat"], parts, {"axis": op.attrs["axis"]})] + [None] * len(dys)
