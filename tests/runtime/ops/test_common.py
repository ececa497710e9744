"""Tests for runtime.ops.common: broadcasting of static shapes, axes, operand conversion."""
import numpy as np
import pytest

import runtime as tf
from runtime.ops import common


@pytest.mark.parametrize("a, b, out", [
    ((3,), (3,), (3,)),
    ((2, 1), (3,), (2, 3)),
    ((None, 3), (1,), (None, 3)),
    ((None,), (4,), (4,)),
    ((1,), (None,), (None,)),
    ((), (2, 2), (2, 2)),
    (None, (2,), None),
])
def test_broadcast_shapes(a, b, out):
    assert common.broadcast_shapes(a, b) == out


def test_broadcast_shapes_error_uses_tensorflow_wording():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Incompatible shapes: \[2,3\] vs. \[4\] \[Op:AddV2\]"):
        common.broadcast_shapes((2, 3), (4,), "AddV2")


def test_normalize_axis():
    assert common.normalize_axis(-1, 3, "op") == 2
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid axis 3 for op: expected a "
                                                            r"value in \[-3, 3\)"):
        common.normalize_axis(3, 3, "op")


def test_static_axis():
    assert common.static_axis(None) is None
    assert common.static_axis(tf.constant([0, 1])) == (0, 1)
    assert common.static_axis(np.int64(2)) == 2


def test_binary_operands_adopt_the_tensor_dtype():
    x, y = common.binary_operands(tf.constant([1.0], tf.float64), 2)
    assert y.dtype is tf.float64
    x, y = common.binary_operands(np.array([1, 2], np.int64), tf.constant([1], tf.int32))
    assert x.dtype is tf.int32
    x, y = common.binary_operands(2.5, 4)
    assert (x.dtype, y.dtype) == (tf.float32, tf.float32)
    with pytest.raises(TypeError, match="Cannot convert 4.5 to a tensor of dtype int32"):
        common.binary_operands(3, 4.5)  # as tf.add(3, 4.5) in TensorFlow


def test_adopt_dtype_rejects_lossy_conversions():
    with pytest.raises(TypeError, match="Cannot convert 2.5 to a tensor of dtype int32"):
        common.adopt_dtype(2.5, tf.int32)
    with pytest.raises(TypeError, match="value out of range"):
        common.adopt_dtype(300, tf.uint8)
