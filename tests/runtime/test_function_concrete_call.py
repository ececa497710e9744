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
