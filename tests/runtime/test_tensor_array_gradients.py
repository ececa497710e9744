"""Gradients through TensorArray writes, reads, stack, unstack and concat, in loops and not,
checked against central finite differences (float64), inside tf.function and eagerly."""
import numpy as np
import pytest

import runtime as tf


def write_in_loop_then_stack(x):
    ta = tf.TensorArray(tf.float64, size=3)
    acc = x
    for i in tf.range(3):
        acc = tf.tanh(acc * x + 0.5)
        ta = ta.write(i, acc)
    return tf.reduce_sum(ta.stack() ** 2) + tf.reduce_sum(ta.read(0) * x)


def unstack_then_read_in_loop(x):
    # The dynamic_rnn pattern: inputs unstacked before the loop, read (captured) inside.
    inputs = tf.TensorArray(tf.float64, size=3).unstack(tf.reshape(x, [3, 2]))
    state = tf.zeros([2], tf.float64)
    for t in tf.range(3):
        state = tf.tanh(inputs.read(t) + state * 0.5)
    return tf.reduce_sum(state)


def straight_line(x):
    ta = tf.TensorArray(tf.float64, size=2)
    ta = ta.write(0, x * x)
    ta = ta.write(1, tf.math.sin(x))
    return tf.reduce_sum(ta.read(1) * ta.read(0)) + tf.reduce_sum(ta.stack())


def concat_rows(x):
    ta = tf.TensorArray(tf.float64, size=2, infer_shape=False)
    ta = ta.write(0, x[:2] * 3.0)
    ta = ta.write(1, x[2:] ** 2)
    return tf.reduce_sum(ta.concat() * tf.constant([1.0, -2.0, 0.5, 4.0, 1.5, -1.0], tf.float64))


def while_with_data_dependent_writes(x):
    ta = tf.TensorArray(tf.float64, size=0, dynamic_size=True)
    i = 0
    acc = x
    while tf.reduce_sum(acc * acc) < 20.0:
        acc = acc * 1.7 + x
        ta = ta.write(i, acc)
        i += 1
    return tf.reduce_sum(ta.stack()) + tf.reduce_sum(acc)


CASES = [write_in_loop_then_stack, unstack_then_read_in_loop, straight_line, concat_rows,
         while_with_data_dependent_writes]
X = np.array([0.3, -0.5, 0.8, 0.1, -0.2, 0.6])


def _finite_differences(f, x0, eps=1e-6):
    out = np.zeros_like(x0)
    for k in range(x0.size):
        plus, minus = x0.copy(), x0.copy()
        plus[k] += eps
        minus[k] -= eps
        out[k] = (float(f(tf.constant(plus))) - float(f(tf.constant(minus)))) / (2 * eps)
    return out


def _tape_gradient(fn, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x)


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_staged_gradient_matches_finite_differences(fn):
    expected = _finite_differences(tf.function(fn), X)
    got = tf.function(lambda x: _tape_gradient(fn, x))(tf.constant(X))
    assert got is not None
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_eager_gradient_matches_finite_differences(fn):
    expected = _finite_differences(tf.function(fn), X)
    got = _tape_gradient(fn, tf.constant(X))
    assert got is not None
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6, atol=1e-9)
