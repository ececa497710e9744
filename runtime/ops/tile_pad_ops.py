"""tf.tile, tf.pad, tf.cumsum and tf.cumprod: kernels, shape rules and gradients.

`tile` and `pad` read each output element from one input element; their gradients
(`tile_grad`, `pad_grad`) sum the output gradient back onto the input, and the gradient of
those is the forward op again, so second derivatives work too.
"""
import numpy as np

from runtime.errors import InvalidArgumentError
from runtime.ops import common
from runtime.ops.registry import OPS
from runtime.ops.registry import apply
from runtime.ops.registry import defvjp
from runtime.ops.registry import register
from runtime.tensor_conversion import constant_value


def _static_ints(value, name, what):
    """A tuple of Python ints from a list, an array or a tensor known while tracing."""
    if hasattr(value, "dtype") and not isinstance(value, np.ndarray):
        known = constant_value(value)
        if known is None:
            raise InvalidArgumentError(f"{name}: {what} must be known while tracing (a list "
                                       f"or a constant), found a computed tensor.", name)
        value = known
    return np.asarray(value, dtype=np.int64)


# -- tile ------------------------------------------------------------------------------------

def _infer_tile(x, multiples):
    if x.shape is None:
        return None, x.dtype
    return tuple(None if d is None else d * m for d, m in zip(x.shape, multiples)), x.dtype


@register("tile", infer=_infer_tile, tf_name="Tile")
def _tile_kernel(x, multiples):
    return np.tile(x, multiples)


@register("tile_grad", infer=lambda dy, like, multiples: (like.shape, dy.dtype),
          tf_name="TileGrad")
def _tile_grad_kernel(dy, like, multiples):
    split = []
    for m, d in zip(multiples, like.shape):
        split += [m, d]
    return dy.reshape(split).sum(axis=tuple(range(0, len(split), 2))).astype(dy.dtype)


@defvjp("tile")
def _tile_vjp(op, dy):
    return [apply(OPS["tile_grad"], [dy, op.inputs[0]], dict(op.attrs))]


@defvjp("tile_grad")
def _tile_grad_vjp(op, ddx):
    return [apply(OPS["tile"], [ddx], dict(op.attrs)), None]


def tile(input, multiples, name=None):  # noqa: A002 - TensorFlow's name
    """Repeats `input` multiples[i] times along axis i (tf.tile).

    Args:
        input: A tensor.
        multiples: One non-negative int per axis (a list or a constant tensor).
        name: Optional node name in graph mode.

    Returns:
        A Tensor of shape input.shape * multiples.
    """
    x = common.to_tensor(input)
    multiples = _static_ints(multiples, "tile", "multiples")
    if x.shape is not None and len(multiples) != len(x.shape):
        raise InvalidArgumentError(f"Expected multiples argument to be a vector of length "
                                   f"{len(x.shape)} but got length {len(multiples)}", "tile")
    if (multiples < 0).any():
        raise InvalidArgumentError(f"Expected multiples to be non-negative, found "
                                   f"{multiples.tolist()}.", "tile")
    return apply(OPS["tile"], [x], {"multiples": tuple(int(m) for m in multiples)}, name)


# -- pad -------------------------------------------------------------------------------------

_MODES = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}


def _infer_pad(x, value, paddings, mode):
    if x.shape is None:
        return None, x.dtype
    return tuple(None if d is None else d + a + b for d, (a, b) in zip(x.shape, paddings)), \
        x.dtype


@register("pad", infer=_infer_pad, tf_name="PadV2")
def _pad_kernel(x, value, paddings, mode):
    if mode == "CONSTANT":
        return np.pad(x, paddings, constant_values=value)
    for d, (a, b) in zip(x.shape, paddings):
        limit = d - (mode == "REFLECT")
        if a > limit or b > limit:
            raise InvalidArgumentError(
                f"paddings must be no greater than {limit} (the dimension size {d}"
                f"{', less 1' if mode == 'REFLECT' else ''}) in {mode} mode, found {a}, {b}.",
                "pad")
    return np.pad(x, paddings, mode=_MODES[mode])


@register("pad_grad", infer=lambda dy, like, paddings, mode: (like.shape, dy.dtype),
          tf_name="PadGrad")
def _pad_grad_kernel(dy, like, paddings, mode):
    """Sums each output gradient onto the input element it was read from."""
    source = np.arange(like.size).reshape(like.shape)
    if mode == "CONSTANT":
        source = np.pad(source, paddings, constant_values=-1)
    else:
        source = np.pad(source, paddings, mode=_MODES[mode])
    keep = source >= 0
    out = np.zeros(like.size, dtype=dy.dtype)
    np.add.at(out, source[keep], dy[keep])
    return out.reshape(like.shape)


@defvjp("pad")
def _pad_vjp(op, dy):
    x = op.inputs[0]
    return [apply(OPS["pad_grad"], [dy, x], dict(op.attrs)), None]


@defvjp("pad_grad")
def _pad_grad_vjp(op, ddx):
    zero = common.to_tensor(0, ddx.dtype)
    return [apply(OPS["pad"], [ddx, zero], dict(op.attrs)), None]


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pads `tensor` with paddings[i] = [before, after] elements on axis i (tf.pad).

    Args:
        tensor: A tensor.
        paddings: An [rank, 2] list or constant of non-negative ints.
        mode: 'CONSTANT', 'REFLECT' or 'SYMMETRIC' (any case).
        constant_values: The scalar that CONSTANT mode pads with.
        name: Optional node name in graph mode.

    Returns:
        A Tensor of the padded shape.
    """
    x = common.to_tensor(tensor)
    pads = _static_ints(paddings, "pad", "paddings")
    mode = str(mode).upper()
    if mode not in _MODES:
        raise ValueError(f"pad: mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', found "
                         f"{mode!r}.")
    if pads.ndim != 2 or pads.shape[1] != 2 or (
            x.shape is not None and pads.shape[0] != len(x.shape)) or (pads < 0).any():
        raise InvalidArgumentError(f"paddings must be a non-negative matrix of shape "
                                   f"[{'?' if x.shape is None else len(x.shape)}, 2], found "
                                   f"{pads.tolist()}.", "pad")
    value = common.adopt_dtype(constant_values, x.dtype) if not hasattr(
        constant_values, "dtype") else common.to_tensor(constant_values)
    attrs = {"paddings": tuple((int(a), int(b)) for a, b in pads), "mode": mode}
    return apply(OPS["pad"], [x, value], attrs, name)


# -- cumsum / cumprod ------------------------------------------------------------------------

def _scan(fn, neutral, x, axis, exclusive, reverse):
    if reverse:
        x = np.flip(x, axis)
    out = fn(x, axis=axis, dtype=x.dtype)
    if exclusive:
        out = np.concatenate([np.full_like(np.take(out, [0], axis), neutral),
                              np.delete(out, -1, axis)], axis)
    return np.flip(out, axis) if reverse else out


def _infer_same(x, **attrs):
    return x.shape, x.dtype


@register("cumsum", infer=_infer_same, tf_name="Cumsum")
def _cumsum_kernel(x, axis, exclusive, reverse):
    return _scan(np.cumsum, 0, x, axis, exclusive, reverse)


@register("cumprod", infer=_infer_same, tf_name="Cumprod")
def _cumprod_kernel(x, axis, exclusive, reverse):
    return _scan(np.cumprod, 1, x, axis, exclusive, reverse)


@defvjp("cumsum")
def _cumsum_vjp(op, dy):
    attrs = dict(op.attrs, reverse=not op.attrs["reverse"])
    return [apply(OPS["cumsum"], [dy], attrs)]


@defvjp("cumprod")
def _cumprod_vjp(op, dy):
    """TensorFlow's rule: cumsum(prod * dy, reversed) / x (not defined where x is 0)."""
    x = op.inputs[0]
    attrs = dict(op.attrs, reverse=not op.attrs["reverse"])
    return [apply(OPS["cumsum"], [op.outputs[0] * dy], attrs) / x]


def _cumulative(op, x, axis, exclusive, reverse, name):
    x = common.to_tensor(x)
    if x.dtype not in common.NUMERIC:
        raise InvalidArgumentError(f"{op} expects a number tensor, found {x.dtype.name}.", op)
    if x.shape is None or len(x.shape) == 0:
        raise InvalidArgumentError(f"{op} expects a tensor of rank at least 1.", op)
    axis = common.normalize_axis(common.static_axis(axis), len(x.shape), op)
    attrs = {"axis": axis, "exclusive": bool(exclusive), "reverse": bool(reverse)}
    return apply(OPS[op], [x], attrs, name)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum along `axis` (tf.cumsum); `exclusive` leaves out each element itself,
    `reverse` sums from the end."""
    return _cumulative("cumsum", x, axis, exclusive, reverse, name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative product along `axis` (tf.math.cumprod); arguments as for cumsum."""
    return _cumulative("cumprod", x, axis, exclusive, reverse, name)
