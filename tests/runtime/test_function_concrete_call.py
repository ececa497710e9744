"""ConcreteFunction calls: the all-tensor fast path gives the general path's results and errors."""
import numpy as np
import pytest

import runtime as tf
from runtime.errors import InvalidArgumentError


def _scale(x, y):
    return x * y + x


def _concrete():
    return tf.function(_scale).get_concrete_function(
        tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.float32))


def test_positional_tensors_compute_the_graph():
    f = _concrete()
    out = f(tf.constant([1.0, 2.0]), tf.constant(3.0))
    np.testing.assert_array_equal(out.numpy(), np.array([4.0, 8.0], np.float32))
    # keywords and Python numbers take the general path, with the same result
    np.testing.assert_array_equal(f(x=tf.constant([1.0, 2.0]), y=3.0).numpy(), out.numpy())


def test_wrong_shape_and_dtype_raise_the_general_errors():
    f = _concrete()
    with pytest.raises(InvalidArgumentError, match="expected to have shape"):
        f(tf.constant([[1.0]]), tf.constant(3.0))
    with pytest.raises(InvalidArgumentError, match="expected to be a float32 tensor but is a "
                       "int32 tensor"):
        f(tf.constant([1, 2]), tf.constant(3.0))


def test_errors_name_the_input_position_and_flat_calls_count_the_tensors():
    f = _concrete()
    # the placeholder positions are made on the first checked call, then reused
    for _ in range(2):
        with pytest.raises(InvalidArgumentError, match=r"as input #1\(zero-based\) was "
                           r"expected to be a float32 tensor but is a int32 tensor \(argument "
                           r"`y`\)"):
            f(y=tf.constant(3), x=tf.constant([1.0]))
        with pytest.raises(InvalidArgumentError, match=r"as input #0\(zero-based\) was "
                           r"expected to have shape \(None,\) but has shape \(1, 1\)"):
            f(tf.constant([[1.0]]), tf.constant(3.0))


def test_a_nested_argument_traced_can_be_fed_flat():
    def total(pair, scale=2.0):
        return (pair[0] + pair[1]) * scale

    f = tf.function(total).get_concrete_function(
        [tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32)])
    assert f([tf.constant(1.0), tf.constant(2.0)]).numpy() == 6.0
    assert f(tf.constant(1.0), tf.constant(4.0)).numpy() == 10.0  # one tensor per leaf
    with pytest.raises(TypeError):
        f(tf.constant(1.0), tf.constant(4.0), tf.constant(5.0))


def test_every_output_structure_is_packed():
    def pair(x):
        return x + 1.0, x * 2.0

    def nothing(x):
        del x

    def nested(x):
        return {"a": [x, None], "b": (x + 1.0,)}

    x = tf.constant([1.0, 2.0])
    single = tf.function(_scale)(x, tf.constant(2.0))
    np.testing.assert_array_equal(single.numpy(), [3.0, 6.0])
    got = tf.function(pair)(x)
    assert type(got) is tuple and [list(t.numpy()) for t in got] == [[2.0, 3.0], [2.0, 4.0]]
    assert tf.function(nothing)(x) is None
    out = tf.function(nested)(x)
    assert set(out) == {"a", "b"} and out["a"][1] is None and type(out["b"]) is tuple
    assert list(out["a"][0].numpy()) == [1.0, 2.0] and list(out["b"][0].numpy()) == [2.0, 3.0]
