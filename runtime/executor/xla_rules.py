"""XLA lowerings of the ordinary ops (jax.numpy and lax), keyed by op in `xla.LOWER`.

Each rule computes what the op's numpy kernel computes, in the same dtype: numpy's and XLA's
results agree but for rounding in the last place of transcendental functions, and where the
kernel raises on bad values (an integer division by zero, an index out of range), which a
compiled XLA program cannot do (it returns a value: see docs/runtime.md).
"""
import jax.numpy as jnp
import numpy as np
from jax import lax

from runtime.executor import xla
from runtime.executor.xla import register_lowering
from runtime.ops import math_ops
from runtime.ops import registry
from runtime.ops import reduction_ops
from runtime.ops import slicing


def _elementwise(table, arity):
    for op, fn in table.items():
        register_lowering(op)(_rule(fn, arity))


def _rule(fn, arity):
    if arity == 1:
        return lambda ctx, node, x: fn(x)
    return lambda ctx, node, x, y: fn(x, y)


_elementwise({
    "abs": jnp.abs, "ceil": jnp.ceil, "cos": jnp.cos, "exp": jnp.exp, "floor": jnp.floor,
    "log": jnp.log, "logical_not": jnp.logical_not, "sign": jnp.sign, "sin": jnp.sin,
    "sqrt": jnp.sqrt, "square": jnp.square, "tanh": jnp.tanh, "round": jnp.round,
    "negative": jnp.negative, "invert": jnp.invert,
    "rsqrt": lambda x: 1 / jnp.sqrt(x), "reciprocal": lambda x: 1 / x,
    "sigmoid": lambda x: (1 / (1 + jnp.exp(-x))).astype(x.dtype),
    "identity": lambda x: x, "stop_gradient": lax.stop_gradient,
}, 1)
_elementwise({
    "add": jnp.add, "subtract": jnp.subtract, "multiply": jnp.multiply,
    "maximum": jnp.maximum, "minimum": jnp.minimum, "equal": jnp.equal,
    "not_equal": jnp.not_equal, "greater": jnp.greater, "greater_equal": jnp.greater_equal,
    "less": jnp.less, "less_equal": jnp.less_equal, "bitwise_and": jnp.bitwise_and,
    "bitwise_or": jnp.bitwise_or, "bitwise_xor": jnp.bitwise_xor,
    "logical_and": jnp.logical_and, "logical_or": jnp.logical_or,
    "logical_xor": jnp.logical_xor, "left_shift": jnp.left_shift,
    "right_shift": jnp.right_shift, "floordiv": jnp.floor_divide, "floormod": jnp.remainder,
    "pow": jnp.power, "squared_difference": lambda x, y: (x - y) * (x - y),
}, 2)


@register_lowering("truediv")
def _truediv(ctx, node, x, y):
    target = math_ops.TRUEDIV_NP.get(np.dtype(x.dtype))
    if target is not None:
        return jnp.true_divide(x.astype(target), y.astype(target))
    return x / y


@register_lowering("cast")
def _cast(ctx, node, x):
    return jnp.asarray(x).astype(node.attrs["dtype"].np_dtype)


@register_lowering("select")
def _select(ctx, node, condition, x, y):
    return jnp.where(condition, x, y)


@register_lowering("matmul")
def _matmul(ctx, node, a, b):
    if node.attrs.get("transpose_a"):
        a = jnp.swapaxes(a, -1, -2)
    if node.attrs.get("transpose_b"):
        b = jnp.swapaxes(b, -1, -2)
    return jnp.matmul(a, b)


@register_lowering("einsum")
def _einsum(ctx, node, *operands):
    return jnp.einsum(node.attrs["equation"], *operands)


# -- reductions --------------------------------------------------------------------------------

def _reduction(op, fn):
    @register_lowering(op)
    def rule(ctx, node, x):
        attrs = node.attrs
        return fn(x, attrs.get("axis"), attrs.get("keepdims", False))
    return rule


_reduction("reduce_sum", lambda x, a, k: jnp.sum(x, axis=a, keepdims=k, dtype=x.dtype))
_reduction("reduce_prod", lambda x, a, k: jnp.prod(x, axis=a, keepdims=k, dtype=x.dtype))
_reduction("reduce_any", lambda x, a, k: jnp.any(x, axis=a, keepdims=k))
_reduction("reduce_all", lambda x, a, k: jnp.all(x, axis=a, keepdims=k))
_reduction("reduce_max", lambda x, a, k: jnp.max(
    x, axis=a, keepdims=k, initial=reduction_ops._lowest(np.dtype(x.dtype))))
_reduction("reduce_min", lambda x, a, k: jnp.min(
    x, axis=a, keepdims=k, initial=reduction_ops._highest(np.dtype(x.dtype))))


@register_lowering("reduce_mean")
def _mean(ctx, node, x):
    axis, keepdims = node.attrs.get("axis"), node.attrs.get("keepdims", False)
    if np.dtype(x.dtype).kind in "iu":  # truncating integer division, as TensorFlow's
        total = jnp.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
        count = max(int(np.size(x)) // max(int(np.size(total)), 1), 1)
        return (jnp.sign(total) * (jnp.abs(total) // count)).astype(x.dtype)
    return jnp.mean(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def _arg(op, fn):
    @register_lowering(op)
    def rule(ctx, node, x):
        return fn(x, axis=node.attrs["axis"]).astype(node.attrs["output_type"].np_dtype)
    return rule


_arg("argmax", jnp.argmax)
_arg("argmin", jnp.argmin)


# -- shapes and arrays -------------------------------------------------------------------------

@register_lowering("shape")
def _shape(ctx, node, x):
    return np.array(np.shape(x), dtype=node.attrs["out_type"].np_dtype)


@register_lowering("size")
def _size(ctx, node, x):
    return node.attrs["out_type"].as_numpy_dtype(np.size(x))


@register_lowering("rank")
def _rank(ctx, node, x):
    return np.int32(np.ndim(x))


def _static(node, value, what):
    """`value` as numpy, where XLA needs it known when the function is traced."""
    try:
        return np.asarray(value)
    except Exception:  # pylint: disable=broad-except - a tracer: jax's own error types
        raise xla.not_lowerable(node, f"its {what} depends on the values, and XLA needs "
                                      f"static shapes") from None


@register_lowering("reshape")
def _reshape(ctx, node, x, shape):
    return jnp.reshape(x, tuple(int(d) for d in _static(node, shape, "shape")))


@register_lowering("fill")
def _fill(ctx, node, dims, value):
    dims = tuple(int(d) for d in _static(node, dims, "shape"))
    return jnp.full(dims, value, dtype=value.dtype)


def _creation(op, fn):
    @register_lowering(op)
    def rule(ctx, node, shape):
        shape = tuple(int(d) for d in _static(node, shape, "shape").reshape(-1))
        return fn(shape, node.attrs["dtype"].np_dtype)
    return rule


_creation("zeros", jnp.zeros)
_creation("ones", jnp.ones)


@register_lowering("zeros_like")
def _zeros_like(ctx, node, x):
    return jnp.zeros(np.shape(x), node.attrs["dtype"].np_dtype)


@register_lowering("ones_like")
def _ones_like(ctx, node, x):
    return jnp.ones(np.shape(x), node.attrs["dtype"].np_dtype)


@register_lowering("range")
def _range(ctx, node, start, limit, delta):
    start, limit, delta = (_static(node, v, "length") for v in (start, limit, delta))
    return registry.OPS["range"].kernel(start, limit, delta, **node.attrs)


@register_lowering("transpose")
def _transpose(ctx, node, x):
    return jnp.transpose(x, node.attrs.get("perm"))


@register_lowering("expand_dims")
def _expand_dims(ctx, node, x):
    return jnp.expand_dims(x, node.attrs["axis"])


@register_lowering("squeeze")
def _squeeze(ctx, node, x):
    return jnp.squeeze(x, node.attrs.get("axis"))


@register_lowering("concat")
def _concat(ctx, node, *values):
    return jnp.concatenate(values, node.attrs["axis"])


@register_lowering("stack")
def _stack(ctx, node, *values):
    return jnp.stack(values, node.attrs.get("axis", 0))


@register_lowering("unstack")
def _unstack(ctx, node, value):
    axis = node.attrs.get("axis", 0)
    return [jnp.take(value, i, axis) for i in range(node.attrs["num"])]


@register_lowering("gather")
def _gather(ctx, node, params, indices):
    return jnp.take(params, indices, node.attrs.get("axis", 0))


@register_lowering("one_hot")
def _one_hot(ctx, node, indices):
    attrs = node.attrs
    np_dtype = attrs["dtype"].np_dtype
    hot = jnp.expand_dims(indices, -1) == jnp.arange(attrs["depth"], dtype=indices.dtype)
    out = jnp.where(hot, np_dtype.type(attrs["on_value"]), np_dtype.type(attrs["off_value"]))
    out = out.astype(np_dtype)
    return out if attrs["axis"] == -1 else jnp.moveaxis(out, -1, attrs["axis"])


@register_lowering("getitem")
def _getitem(ctx, node, x, *indices):
    values = (None,) + indices
    key = tuple(_resolve(item, values) for item in node.attrs["spec"])
    return jnp.asarray(x)[key]


def _resolve(item, values):
    if isinstance(item, slicing.TensorIndex):
        return values[item.position]
    if isinstance(item, slice):
        return slice(*(None if v is None else int(_resolve(v, values))
                       for v in (item.start, item.stop, item.step)))
    return item


# -- what gradient graphs use to shape their values ---------------------------------------------

@register_lowering("broadcast_like")
def _broadcast_like(ctx, node, g, like):
    return jnp.broadcast_to(g, np.shape(like))


@register_lowering("reshape_like")
def _reshape_like(ctx, node, g, like):
    return jnp.reshape(g, np.shape(like))


@register_lowering("unbroadcast")
def _unbroadcast(ctx, node, g, like):
    shape = np.shape(like)
    extra = jnp.ndim(g) - len(shape)
    g = jnp.sum(g, axis=tuple(range(extra)), dtype=g.dtype) if extra > 0 else g
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and jnp.shape(g)[i] != 1)
    return jnp.sum(g, axis=axes, keepdims=True, dtype=g.dtype) if axes else g
