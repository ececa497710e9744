"""tf.nn.conv2d / conv1d and max_pool2d: kernels over NHWC windows, and their gradients.

Windows follow TensorFlow: 'VALID' takes only whole windows; 'SAME' gives ceil(in / stride)
outputs, padding the total shortfall split with the extra element at the end. The
gradients are ops of their own (`conv2d_backprop_input`, `conv2d_backprop_filter`,
`max_pool_grad`), as TensorFlow's Conv2DBackpropInput and friends; they take the forward
input as `like` so that its shape is read when the graph runs.
"""
import numpy as np

from runtime.errors import InvalidArgumentError
from runtime.ops import common
from runtime.ops.registry import OPS
from runtime.ops.registry import apply
from runtime.ops.registry import check_same_dtype
from runtime.ops.registry import defvjp
from runtime.ops.registry import register
from runtime.ops.array_ops import expand_dims
from runtime.ops.array_ops import squeeze


def _window(size, k, stride, dilation, padding):
    """(output size, pad before, pad after) of one spatial dimension."""
    span = (k - 1) * dilation + 1
    if padding == "VALID":
        return max((size - span) // stride + 1, 0), 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + span - size, 0)
    return out, total // 2, total - total // 2


def _out_dim(size, k, stride, dilation, padding):
    return None if size is None else _window(size, k, stride, dilation, padding)[0]


def _infer_conv(x, w, strides, padding, dilations):
    n, h, wd, _ = x.shape
    kh, kw, _, out = w.shape
    return ((n, _out_dim(h, kh, strides[0], dilations[0], padding),
             _out_dim(wd, kw, strides[1], dilations[1], padding), out), x.dtype)


def _geometry(shape, kernel, strides, padding, dilations):
    """Output sizes and pads of both spatial dims of an NHWC input."""
    oh, t, b = _window(shape[1], kernel[0], strides[0], dilations[0], padding)
    ow, lft, r = _window(shape[2], kernel[1], strides[1], dilations[1], padding)
    return (oh, ow), ((0, 0), (t, b), (lft, r), (0, 0))


def _taps(kernel, strides, dilations, out):
    """(i, j, slices of the padded input read by tap (i, j)) of every kernel tap."""
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            rows = slice(i * dilations[0], i * dilations[0] + strides[0] * (out[0] - 1) + 1,
                         strides[0])
            cols = slice(j * dilations[1], j * dilations[1] + strides[1] * (out[1] - 1) + 1,
                         strides[1])
            yield i, j, (slice(None), rows, cols)


@register("conv2d", infer=_infer_conv, tf_name="Conv2D")
def _conv2d_kernel(x, w, strides, padding, dilations):
    out, pads = _geometry(x.shape, w.shape, strides, padding, dilations)
    xp = np.pad(x, pads)
    y = np.zeros((x.shape[0],) + out + (w.shape[3],), dtype=x.dtype)
    if 0 in y.shape:
        return y
    for i, j, window in _taps(w.shape, strides, dilations, out):
        y += np.tensordot(xp[window], w[i, j], axes=([3], [0])).astype(x.dtype)
    return y


@register("conv2d_backprop_input", infer=lambda like, w, dy, **attrs: (like.shape, like.dtype),
          tf_name="Conv2DBackpropInput")
def _conv2d_input_kernel(like, w, dy, strides, padding, dilations):
    out, pads = _geometry(like.shape, w.shape, strides, padding, dilations)
    padded = tuple(s + a + b for s, (a, b) in zip(like.shape, pads))
    dxp = np.zeros(padded, dtype=like.dtype)
    for i, j, window in _taps(w.shape, strides, dilations, out):
        dxp[window] += np.tensordot(dy, w[i, j], axes=([3], [1])).astype(like.dtype)
    (_, _), (t, _), (lft, _), _ = pads
    return dxp[:, t:t + like.shape[1], lft:lft + like.shape[2], :]


@register("conv2d_backprop_filter", infer=lambda x, like, dy, **attrs: (like.shape, like.dtype),
          tf_name="Conv2DBackpropFilter")
def _conv2d_filter_kernel(x, like, dy, strides, padding, dilations):
    out, pads = _geometry(x.shape, like.shape, strides, padding, dilations)
    xp = np.pad(x, pads)
    dw = np.zeros(like.shape, dtype=like.dtype)
    for i, j, window in _taps(like.shape, strides, dilations, out):
        dw[i, j] = np.tensordot(xp[window], dy, axes=([0, 1, 2], [0, 1, 2]))
    return dw


@defvjp("conv2d")
def _conv2d_vjp(op, dy):
    x, w = op.inputs
    attrs = op.attrs
    return [apply(OPS["conv2d_backprop_input"], [x, w, dy], dict(attrs)),
            apply(OPS["conv2d_backprop_filter"], [x, w, dy], dict(attrs))]


def _pair(value, name, what):
    """Two spatial ints from an int or a list of 1, 2 or 4 (NHWC) ints."""
    values = [int(v) for v in np.atleast_1d(np.asarray(value))]
    if len(values) == 1:
        return values * 2
    if len(values) == 2:
        return values
    if len(values) == 4 and values[0] == values[3] == 1:
        return values[1:3]
    raise InvalidArgumentError(f"{name}: {what} must be an int or a list of 1, 2 or 4 ints "
                               f"(NHWC, with 1 for the batch and channels), found {value!r}.",
                               name)


def _check_input(x, rank, name):
    if x.shape is None or len(x.shape) != rank:
        raise InvalidArgumentError(f"{name}: input must have rank {rank} (NHWC), found shape "
                                   f"{x.shape}.", name)


def _check_padding(padding, name):
    padding = str(padding).upper()
    if padding not in ("SAME", "VALID"):
        raise InvalidArgumentError(f"{name}: padding must be 'SAME' or 'VALID', found "
                                   f"{padding!r}.", name)
    return padding


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None,  # noqa: A002
           name=None):
    """2-D convolution (tf.nn.conv2d): NHWC input, [height, width, in, out] filters.

    Args:
        input: A float tensor of shape [batch, height, width, channels].
        filters: A tensor of shape [filter_height, filter_width, channels, out_channels].
        strides: An int or a list of 1, 2 or 4 ints.
        padding: 'SAME' or 'VALID'.
        data_format: 'NHWC' (the only layout here).
        dilations: An int or a list of 1, 2 or 4 ints (default 1).
        name: Optional node name in graph mode.

    Returns:
        A Tensor [batch, out_height, out_width, out_channels].

    Raises:
        InvalidArgumentError: for a bad rank, layout, padding or channel count.
    """
    x, w = common.to_tensor(input), common.to_tensor(filters)
    if data_format != "NHWC":
        raise InvalidArgumentError(f"conv2d: only data_format='NHWC' is supported, found "
                                   f"{data_format!r}; transpose the input.", "conv2d")
    _check_input(x, 4, "conv2d")
    _check_input(w, 4, "conv2d")
    if None not in (x.shape[3], w.shape[2]) and x.shape[3] != w.shape[2]:
        raise InvalidArgumentError(f"conv2d: input depth {x.shape[3]} does not match the "
                                   f"filters' in_channels {w.shape[2]}.", "conv2d")
    if not x.dtype.is_floating:
        raise InvalidArgumentError(f"conv2d expects a float input, found {x.dtype.name}; "
                                   f"tf.cast it first.", "conv2d")
    check_same_dtype(OPS["conv2d"], [x, w])
    attrs = {"strides": tuple(_pair(strides, "conv2d", "strides")),
             "padding": _check_padding(padding, "conv2d"),
             "dilations": tuple(_pair(1 if dilations is None else dilations, "conv2d",
                                      "dilations"))}
    return apply(OPS["conv2d"], [x, w], attrs, name)


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None,  # noqa: A002
           name=None):
    """1-D convolution (tf.nn.conv1d): [batch, width, channels] input, [width, in, out] filters.

    Computed as TensorFlow does, as a conv2d of height 1.
    """
    if data_format != "NWC":
        raise InvalidArgumentError(f"conv1d: only data_format='NWC' is supported, found "
                                   f"{data_format!r}.", "conv1d")
    stride = int(np.atleast_1d(np.asarray(stride))[-2 if np.size(stride) == 3 else 0])
    dilation = 1 if dilations is None else int(np.atleast_1d(np.asarray(dilations))[0])
    y = conv2d(expand_dims(common.to_tensor(input), 1),
               expand_dims(common.to_tensor(filters), 0), [1, stride], padding,
               dilations=[1, dilation])
    return squeeze(y, 1, name=name)


# -- max pooling -------------------------------------------------------------------------------

def _infer_pool(x, ksize, strides, padding):
    n, h, w, c = x.shape
    return ((n, _out_dim(h, ksize[0], strides[0], 1, padding),
             _out_dim(w, ksize[1], strides[1], 1, padding), c), x.dtype)


def _pool_windows(x, ksize, strides, padding):
    """The padded input (-inf / lowest padding) and the slices of every window tap."""
    out, pads = _geometry(x.shape, ksize, strides, padding, (1, 1))
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = np.pad(x, pads, constant_values=low)
    return xp, out, pads, list(_taps(ksize, strides, (1, 1), out))


@register("max_pool", infer=_infer_pool, tf_name="MaxPool")
def _max_pool_kernel(x, ksize, strides, padding):
    xp, out, _, taps = _pool_windows(x, ksize, strides, padding)
    y = None
    for _, _, window in taps:
        y = xp[window] if y is None else np.maximum(y, xp[window])
    return np.ascontiguousarray(y)


@register("max_pool_grad", infer=lambda x, dy, **attrs: (x.shape, x.dtype),
          tf_name="MaxPoolGrad")
def _max_pool_grad_kernel(x, dy, ksize, strides, padding):
    """Routes each output's gradient to the first maximum of its window."""
    xp, out, pads, taps = _pool_windows(x, ksize, strides, padding)
    best = np.full(dy.shape, -1)
    value = None
    for k, (_, _, window) in enumerate(taps):
        tap = xp[window]
        better = np.ones(tap.shape, bool) if value is None else tap > value
        best = np.where(better, k, best)
        value = tap if value is None else np.where(better, tap, value)
    dxp = np.zeros(xp.shape, dtype=x.dtype)
    for k, (_, _, window) in enumerate(taps):
        dxp[window] += np.where(best == k, dy, 0).astype(x.dtype)
    (_, _), (t, _), (lft, _), _ = pads
    return dxp[:, t:t + x.shape[1], lft:lft + x.shape[2], :]


@defvjp("max_pool")
def _max_pool_vjp(op, dy):
    return [apply(OPS["max_pool_grad"], [op.inputs[0], dy], dict(op.attrs))]


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Max pooling over NHWC windows (tf.nn.max_pool2d; also tf.nn.max_pool for rank 4).

    Args:
        input: A tensor [batch, height, width, channels].
        ksize: The window size: an int or a list of 1, 2 or 4 ints.
        strides: An int or a list of 1, 2 or 4 ints.
        padding: 'SAME' or 'VALID'.
        data_format: 'NHWC' (the only layout here).
        name: Optional node name in graph mode.

    Returns:
        A Tensor [batch, out_height, out_width, channels].
    """
    x = common.to_tensor(input)
    if data_format != "NHWC":
        raise InvalidArgumentError(f"max_pool2d: only data_format='NHWC' is supported, found "
                                   f"{data_format!r}.", "max_pool2d")
    _check_input(x, 4, "max_pool2d")
    attrs = {"ksize": tuple(_pair(ksize, "max_pool2d", "ksize")),
             "strides": tuple(_pair(strides, "max_pool2d", "strides")),
             "padding": _check_padding(padding, "max_pool2d")}
    return apply(OPS["max_pool"], [x], attrs, name)
