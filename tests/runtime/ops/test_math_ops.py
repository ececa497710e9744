"""Tests for runtime.ops.math_ops behaviour beyond the op table: dtype rules and fast paths."""
import numpy as np
import pytest

import runtime as tf


@pytest.mark.parametrize("dtype, result", [
    (tf.int32, tf.float64), (tf.int64, tf.float64), (tf.uint8, tf.float32),
    (tf.float32, tf.float32), (tf.float64, tf.float64),
])
def test_truediv_result_dtypes_follow_tensorflow(dtype, result):
    x = tf.constant([3], dtype=dtype)
    assert (x / x).dtype is result
    assert tf.divide(x, x).numpy().tolist() == [1.0]


def test_fast_and_slow_paths_agree():
    x = tf.constant([5, -5])
    assert (x + 2).numpy().tolist() == tf.add(x, np.int32(2)).numpy().tolist() == [7, -3]
    assert (x // 2).dtype is tf.int32


def test_python_scalar_beyond_int64_is_a_type_error():
    assert (tf.constant([1]) + 2**32).dtype is tf.int64  # beyond int32: int64, as Python's int
    with pytest.raises(TypeError, match="Cannot convert 2361183241434822606848 to a tensor of "
                                        "dtype int32"):
        tf.constant([1]) + 2**71


def test_string_add_and_compare():
    a = tf.constant(["x", "y"])
    assert (a + "!").numpy().tolist() == [b"x!", b"y!"]
    assert (a == "x").numpy().tolist() == [True, False]
    with pytest.raises(tf.errors.InvalidArgumentError, match="of string is not in the list"):
        a * a
    with pytest.raises(TypeError, match="Cannot combine the number 2 with a string tensor"):
        a * 2


def test_cast_string_is_rejected():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cast from int32 to string"):
        tf.cast(tf.constant(1), tf.string)


def test_cast_same_dtype_returns_input():
    x = tf.constant([1.0])
    assert tf.cast(x, tf.float32) is x


def test_pow_negative_integer_exponent():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integers to negative integer "
                                                            "powers are not allowed"):
        tf.math.pow(tf.constant([2]), tf.constant([-1]))


def test_matmul_batched_and_rank_errors():
    a = tf.ones([2, 3, 4])
    b = tf.ones([4, 5])
    assert tf.matmul(a, b).shape == (2, 3, 5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank >= 2"):
        tf.matmul(tf.ones([3]), tf.ones([3]))


def test_add_n():
    assert tf.math.add_n([tf.constant(1), 2, tf.constant(3)]).numpy() == 6
