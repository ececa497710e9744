"""tf.nn: activations, the cross-entropies, dropout (convolutions: conv_ops).

Most are compositions of differentiable ops, written as TensorFlow computes them in a stable
way (softmax subtracts the maximum; the sigmoid cross-entropy is
max(x, 0) - x * z + log(1 + exp(-|x|))), so their gradients and second derivatives come
from the ops they are made of. `relu` is an op of its own, with TensorFlow's gradient
(zero where the input is not positive).
"""
import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.ops import common
from runtime.ops import math_ops
from runtime.ops import reduction_ops
from runtime.ops.registry import OPS
from runtime.ops.registry import OpKind
from runtime.ops.registry import apply
from runtime.ops.registry import defvjp
from runtime.ops.registry import register
from runtime.ops import array_ops
from runtime.ops import random_ops


def _float_input(value, name):
    x = common.to_tensor(value)
    if not x.dtype.is_floating:
        raise InvalidArgumentError(f"{name} expects a float tensor, found {x.dtype.name}; "
                                   f"tf.cast it first.", name)
    return x


@register("relu", infer=lambda x: (x.shape, x.dtype), kind=OpKind.ELEMENTWISE, tf_name="Relu")
def _relu_kernel(x):
    return np.maximum(x, x.dtype.type(0))


@defvjp("relu")
def _relu_vjp(op, dy):
    y = op.outputs[0]
    return [dy * math_ops.cast(math_ops.greater(y, 0), dy.dtype)]


def relu(features, name=None):
    """max(features, 0) (tf.nn.relu); the gradient is 0 where features <= 0.

    Args:
        features: A numeric tensor.
        name: Optional node name in graph mode.

    Returns:
        A Tensor of the same shape and dtype.
    """
    x = common.to_tensor(features)
    if x.dtype not in common.SIGNED_NUMERIC:
        raise InvalidArgumentError(f"relu expects a signed number tensor, found "
                                   f"{x.dtype.name}.", "relu")
    return apply(OPS["relu"], [x], {}, name)


def softmax(logits, axis=None, name=None):
    """exp(logits) / sum(exp(logits)) along `axis` (default -1), computed stably."""
    x = _float_input(logits, "softmax")
    axis = -1 if axis is None else axis
    e = math_ops.exp(x - reduction_ops.reduce_max(x, axis=axis, keepdims=True))
    return math_ops.divide(e, reduction_ops.reduce_sum(e, axis=axis, keepdims=True),
                           name=name)


def log_softmax(logits, axis=None, name=None):
    """logits - log(sum(exp(logits))) along `axis` (default -1), computed stably."""
    x = _float_input(logits, "log_softmax")
    axis = -1 if axis is None else axis
    shifted = x - reduction_ops.reduce_max(x, axis=axis, keepdims=True)
    total = reduction_ops.reduce_sum(math_ops.exp(shifted), axis=axis, keepdims=True)
    return math_ops.subtract(shifted, math_ops.log(total), name=name)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Elementwise -z log(sigmoid(x)) - (1 - z) log(1 - sigmoid(x)), TensorFlow's stable form.

    Args:
        labels: A tensor z of the logits' dtype and shape.
        logits: A float tensor x.
        name: Optional node name in graph mode.

    Returns:
        A Tensor of the logits' shape.

    Raises:
        ValueError: when labels and logits differ in shape.
    """
    if labels is None or logits is None:
        raise ValueError("sigmoid_cross_entropy_with_logits needs both labels= and logits=.")
    x = _float_input(logits, "sigmoid_cross_entropy_with_logits")
    z = common.to_tensor(labels, x.dtype)
    _check_same_shape(z, x, "sigmoid_cross_entropy_with_logits")
    relu_x = math_ops.maximum(x, math_ops.cast(0, x.dtype))
    soft = math_ops.log(1 + math_ops.exp(-math_ops.abs(x)))
    return math_ops.add(relu_x - x * z, soft, name=name)


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """-sum(labels * log_softmax(logits)) along `axis` (tf.nn.softmax_cross_entropy_with_logits).

    Gradients flow into both labels and logits, as in TensorFlow 2.

    Returns:
        A Tensor of the logits' shape without `axis`.
    """
    x = _float_input(logits, "softmax_cross_entropy_with_logits")
    z = common.to_tensor(labels, x.dtype)
    _check_same_shape(z, x, "softmax_cross_entropy_with_logits")
    return math_ops.negative(reduction_ops.reduce_sum(z * log_softmax(x, axis), axis=axis),
                             name=name)


def _check_same_shape(a, b, name):
    if a.shape is not None and b.shape is not None and not a.shape.is_compatible_with(b.shape):
        raise ValueError(f"{name}: labels and logits must have the same shape, found "
                         f"{a.shape} and {b.shape}.")


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zeroes each element with probability `rate`, scaling the rest by 1 / (1 - rate).

    Args:
        x: A float tensor.
        rate: A Python float in [0, 1).
        noise_shape: Optional shape of the keep mask (broadcast over x), default x's shape.
        seed: Optional int seed of the random mask.
        name: Optional node name in graph mode.

    Returns:
        A Tensor of x's shape.

    Raises:
        ValueError: for a rate outside [0, 1).
    """
    x = _float_input(x, "dropout")
    rate = float(rate)
    if not 0 <= rate < 1:
        raise ValueError(f"dropout: rate must be a float in [0, 1), found {rate}.")
    if rate == 0:
        return x
    shape = array_ops.shape(x) if noise_shape is None else noise_shape
    keep = random_ops.uniform(shape, dtype=x.dtype, seed=seed) >= rate
    scale = math_ops.cast(1.0 / (1.0 - rate), x.dtype)
    return math_ops.multiply(x * scale, math_ops.cast(keep, x.dtype), name=name)


# -- math predicates -----------------------------------------------------------------------------

@register("is_nan", infer=lambda x: (x.shape, dtypes.bool), tf_name="IsNan")
def _is_nan_kernel(x):
    return np.isnan(x)


@register("is_finite", infer=lambda x: (x.shape, dtypes.bool), tf_name="IsFinite")
def _is_finite_kernel(x):
    return np.isfinite(x)


def is_nan(x, name=None):
    """Elementwise: True where x is NaN (tf.math.is_nan; float tensors only)."""
    return apply(OPS["is_nan"], [_float_input(x, "is_nan")], {}, name)


def is_finite(x, name=None):
    """Elementwise: True where x is neither infinite nor NaN (tf.math.is_finite)."""
    return apply(OPS["is_finite"], [_float_input(x, "is_finite")], {}, name)
