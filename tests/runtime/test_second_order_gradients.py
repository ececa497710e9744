"""Gradients of gradients through staged `if` and `while` in a tf.function.

Three ways on each probe: nested GradientTapes around an eager call of the tf.function,
nested tapes inside the tf.function, and nested tapes over the plain function run eagerly.
Each gives the first and second derivative; they must agree with each other, with central
finite differences of the first derivative (float64), and with TensorFlow 2.x's outputs on
the same probes (hard-coded below)."""
import numpy as np
import pytest

import runtime as tf


def while_then_if(x):
    y = x
    while y > 0.5:
        y = tf.sin(y) * 0.9
    if y > 0.2:
        y = y * y
    else:
        y = tf.cos(y)
    return y


def cubed_by_loop(x):
    i = 0
    acc = tf.ones_like(x)
    while i < 3:
        acc = acc * x
        i += 1
    return acc


def grows_past_ten(x):
    y = x
    while y < 10.0:  # the trip count depends on x; x is also captured by the body
        y = y * x + 1.0
    return tf.sqrt(y)


def branches(x):
    if x > 0:
        out = x * x * x
    else:
        out = tf.sin(x)
    return out


# (function, x, TensorFlow's (first, second) derivative)
# The expected values are TF 2.x's outputs (tensorflow-cpu 2.21.0, float64, nested
# GradientTapes around tf.function(fn), printed with repr), so that this runtime matches
# TensorFlow on these probes.
PROBES = [
    (while_then_if, 1.3, (0.07185266350897122, -0.28102283040818266)),
    (while_then_if, 0.4, (0.8, 2.0)),
    (cubed_by_loop, 1.5, (6.75, 9.0)),
    (grows_past_ten, 1.7, (3.220750647765665, 2.1336241799084137)),
    (branches, 0.8, (1.9200000000000004, 4.800000000000001)),
    (branches, -0.8, (0.6967067093471654, 0.7173560908995228)),
]
IDS = [f"{p[0].__name__}({p[1]})" for p in PROBES]


def _nested(fn, x):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        g = inner.gradient(y, x)
    return g, outer.gradient(g, x)


def tapes_outside(fn, x, executor):
    f = tf.function(fn, executor=executor)
    return [v.numpy() for v in _nested(f, tf.constant(x, tf.float64))]


def tapes_inside(fn, x, executor):
    f = tf.function(lambda v: _nested(fn, v), executor=executor)
    return [v.numpy() for v in f(tf.constant(x, tf.float64))]


def eager(fn, x):
    return [v.numpy() for v in _nested(fn, tf.constant(x, tf.float64))]


def first_derivative(fn, x):
    x = tf.constant(x, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x).numpy()


@pytest.mark.parametrize("executor", ["compiled", "interpreter"])
@pytest.mark.parametrize("fn, x, expected", PROBES, ids=IDS)
def test_second_order_through_staged_control_flow(fn, x, expected, executor):
    reference = eager(fn, x)
    for way in (tapes_outside, tapes_inside):
        np.testing.assert_allclose(way(fn, x, executor), reference, rtol=1e-9, atol=1e-12)
    h = 1e-5
    fd = (first_derivative(fn, x + h) - first_derivative(fn, x - h)) / (2 * h)
    np.testing.assert_allclose(reference[1], fd, rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(reference, expected, rtol=1e-12)


def test_worked_by_hand():
    # d/dx x^3 = 3x^2 and d2/dx2 = 6x, through a staged while of three iterations
    np.testing.assert_allclose(tapes_outside(cubed_by_loop, 1.5, "compiled"), [6.75, 9.0])
    # x > 0: x^3; x <= 0: sin x (-> cos x, -sin x)
    np.testing.assert_allclose(tapes_inside(branches, -0.8, "compiled"),
                               [np.cos(-0.8), -np.sin(-0.8)])


def test_a_variable_read_in_the_loop_gets_its_second_derivative():
    w = tf.Variable(1.2, dtype=tf.float64)

    @tf.function
    def f(x):
        y = x
        while y < 5.0:
            y = y * w + x
        return y

    x = tf.constant(0.9, tf.float64)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = f(x)
        g = inner.gradient(y, w)
    second = outer.gradient(g, w)

    def first(wv):
        w.assign(wv)
        with tf.GradientTape() as tape:
            y = f(x)
        return tape.gradient(y, w).numpy()

    h = 1e-5
    fd = (first(1.2 + h) - first(1.2 - h)) / (2 * h)
    np.testing.assert_allclose(second.numpy(), fd, rtol=1e-5)


def _cubed_by_switch_case(v):
    # (a def, not three lambdas on one line: Python 3.10 cannot tell those apart by column,
    # so autograph would warn and run the outer one unconverted there)
    return tf.switch_case(tf.constant(1), [lambda: v, lambda: v ** 3])


def test_switch_case_second_derivative():
    f = tf.function(_cubed_by_switch_case)
    # x^3 -> 3x^2 = 1.47 and 6x = 4.2 at x = 0.7
    np.testing.assert_allclose([g.numpy() for g in _nested(f, tf.constant(0.7, tf.float64))],
                               [1.47, 4.2])


def test_a_loop_over_a_tensor_array_refuses_the_second_derivative_in_a_graph():
    def fn(x):
        return tf.reduce_sum(tf.map_fn(lambda r: r ** 3, tf.stack([x, 2 * x])))

    x = tf.constant(0.7, tf.float64)
    with pytest.raises(NotImplementedError, match="carries a TensorArray"):
        _nested(tf.function(fn), x)
    # eagerly the loop runs in Python: 3x^2 + 24x^2 and 6x + 48x
    np.testing.assert_allclose([g.numpy() for g in _nested(fn, x)], [13.23, 37.8])
    with tf.GradientTape() as tape:  # a first derivative alone is unaffected
        tape.watch(x)
        y = tf.function(fn)(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 13.23)
