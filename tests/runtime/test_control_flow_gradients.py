"""Gradients through staged control flow, checked against central finite differences.

Each function maps a float64 vector (and maybe a trip count) to a scalar loss, written with
tf.cond/tf.while_loop or with Python control flow that autograph stages. The gradient taken
with a GradientTape inside tf.function (and eagerly, where Python runs the control flow)
must equal finite differences of the same function.
"""
import numpy as np
import pytest

import runtime as tf


def cond_fn(x, n):
    y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * x * 3.0, lambda: tf.math.sin(x) * n)
    return tf.reduce_sum(y)


def while_loop_fn(x, n):
    def body(i, acc):
        return i + 1, tf.tanh(acc * x) + x

    _, z = tf.while_loop(lambda i, acc: i < tf.cast(n, tf.int32), body, (0, x))
    return tf.reduce_sum(z)


def python_if(x, n):
    if tf.reduce_sum(x) > 0:
        y = x * x
    else:
        y = -x * n
    return tf.reduce_sum(y * x)


def python_while_data_dependent(x, n):
    # The trip count depends on x's values.
    while tf.reduce_sum(x * x) < 10.0:
        x = x * 1.5 + 0.1
    return tf.reduce_sum(x)


def python_for_range(x, n):
    acc = x
    for i in tf.range(tf.cast(n, tf.int32)):
        acc = tf.math.sin(acc) * x + tf.cast(i, tf.float64)
    return tf.reduce_sum(acc)


def python_for_break(x, n):
    acc = x
    for _ in tf.range(20):
        if tf.reduce_sum(acc) > n:
            break
        acc = acc * (x + 1.0)
    return tf.reduce_sum(acc)


def python_return_in_loop(x, n):
    acc = x
    i = tf.constant(0)
    while i < 10:
        acc = acc * x + 1.0
        if tf.reduce_max(acc) > n:
            return tf.reduce_sum(acc * acc)
        i += 1
    return tf.reduce_sum(acc)


def nested_loops(x, n):
    total = tf.zeros_like(x)
    for i in tf.range(tf.cast(n, tf.int32)):
        inner = x
        for _ in tf.range(i):
            inner = tf.tanh(inner) * x
        total = total + inner
    return tf.reduce_sum(total)


def cond_inside_while(x, n):
    acc = x
    i = tf.constant(0)
    while i < tf.cast(n, tf.int32):
        if tf.reduce_sum(acc) > 1.0:
            acc = acc * 0.5
        else:
            acc = acc * x + 1.0
        i += 1
    return tf.reduce_sum(acc)


CASES = [cond_fn, while_loop_fn, python_if, python_while_data_dependent, python_for_range,
         python_for_break, python_return_in_loop, nested_loops, cond_inside_while]
INPUTS = [np.array([0.3, 0.5]), np.array([-0.4, 0.1]), np.array([0.9, 0.7, 1.1])]
COUNTS = [0.0, 1.0, 3.0]


def _check(fn, x0, n):
    loss = tf.function(fn)
    n_t = tf.constant(n, tf.float64)

    @tf.function
    def grad(x, n):
        with tf.GradientTape() as tape:
            tape.watch(x)
            value = fn(x, n)
        return tape.gradient(value, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)

    eps = 1e-6
    expected = np.zeros_like(x0)
    for i in range(x0.size):
        plus, minus = x0.copy(), x0.copy()
        plus[i] += eps
        minus[i] -= eps
        expected[i] = (float(loss(tf.constant(plus), n_t)) -
                       float(loss(tf.constant(minus), n_t))) / (2 * eps)
    got = grad(tf.constant(x0), n_t).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    # Eagerly the same function runs its control flow in Python, recorded op by op.
    x = tf.constant(x0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        value = fn(x, n_t)
    eager = tape.gradient(value, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    np.testing.assert_allclose(eager.numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("x0", INPUTS, ids=["pos", "mixed", "three"])
@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_gradient_through_control_flow(fn, x0, n):
    _check(fn, x0, n)


def test_variables_read_in_a_loop_get_gradients():
    v = tf.Variable(np.array([0.5, -0.2]))
    w = tf.Variable(1.5, dtype=tf.float64)

    def loss_fn(n):
        acc = tf.ones_like(v)
        for _ in tf.range(n):
            acc = tf.tanh(acc * v) * w
        return tf.reduce_sum(acc)

    @tf.function
    def grads(n):
        with tf.GradientTape() as tape:
            loss = loss_fn(n)
        return tape.gradient(loss, [v, w])

    loss = tf.function(loss_fn)
    gv, gw = grads(tf.constant(3))
    eps = 1e-6
    base_v = v.numpy().copy()
    expected_v = np.zeros(2)
    for i in range(2):
        d = np.zeros(2)
        d[i] = eps
        v.assign(base_v + d)
        hi = float(loss(tf.constant(3)))
        v.assign(base_v - d)
        lo = float(loss(tf.constant(3)))
        expected_v[i] = (hi - lo) / (2 * eps)
    v.assign(base_v)
    w.assign(1.5 + eps)
    hi = float(loss(tf.constant(3)))
    w.assign(1.5 - eps)
    lo = float(loss(tf.constant(3)))
    w.assign(1.5)
    np.testing.assert_allclose(gv.numpy(), expected_v, rtol=1e-5)
    np.testing.assert_allclose(float(gw), (hi - lo) / (2 * eps), rtol=1e-5)


def test_backward_loop_is_staged_and_forward_pushes_once_per_iteration():
    @tf.function
    def grad(x, n):
        with tf.GradientTape() as tape:
            tape.watch(x)
            _, z = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * x), (0, x))
        return tape.gradient(z, x)

    graph = grad.get_concrete_function(tf.TensorSpec([], tf.float64),
                                       tf.TensorSpec([], tf.int32)).graph
    loops = [node for node in graph.nodes if node.op == "while"]
    assert len(loops) == 2  # the forward loop and the staged backward loop
    body_ops = [node.op for node in loops[0].attrs["body_graph"].nodes]
    assert body_ops.count("loop_stack_push") == 1
    for n in (0, 1, 5):
        assert float(grad(tf.constant(1.1, tf.float64), tf.constant(n))) == pytest.approx(
            (n + 1) * 1.1 ** n)


def test_backward_loop_computes_only_the_gradients_asked_for():
    # x is read inside the loop but not watched: the backward loop must not build its
    # gradient (a scatter into a zeros array of x's shape at every iteration).
    v = tf.Variable(np.array([0.5, -0.2]))

    @tf.function
    def grad(x, n):
        with tf.GradientTape() as tape:
            acc = tf.zeros([2], tf.float64)
            t = 0
            while t < n:
                acc = tf.tanh(acc + x[t] * v)
                t += 1
            loss = tf.reduce_sum(acc)
        return tape.gradient(loss, v)

    x0 = np.array([[0.3, 0.1], [0.2, -0.4], [0.5, 0.6]])
    graph = grad.get_concrete_function(tf.constant(x0), tf.constant(3)).graph

    def ops(g):
        for node in g.get_operations():
            yield node.op
            for _, sub in node.subgraphs():
                yield from ops(sub)

    assert "getitem_grad" not in set(ops(graph))

    def loss(vv):
        acc = np.zeros(2)
        for t in range(3):
            acc = np.tanh(acc + x0[t] * vv)
        return acc.sum()

    v0 = v.numpy()
    expected = [(loss(v0 + e) - loss(v0 - e)) / 2e-6 for e in np.eye(2) * 1e-6]
    got = grad(tf.constant(x0), tf.constant(3)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_backward_loop_reads_saved_forward_values_instead_of_recomputing():
    # The forward loop pushes the values the vector-Jacobian products read (tanh's output);
    # after optimisation the backward loop body computes no tanh of its own.
    from runtime.executor import optimize

    @tf.function
    def grad(x, n):
        with tf.GradientTape() as tape:
            tape.watch(x)
            acc = x
            t = 0
            while t < n:
                acc = tf.tanh(acc * x + 1.0)
                t += 1
            loss = tf.reduce_sum(acc)
        return tape.gradient(loss, x)

    x0 = np.array([0.3, -0.6])
    graph = optimize.optimize(grad.get_concrete_function(tf.constant(x0),
                                                         tf.constant(3)).graph)
    loops = [node for node in graph.get_operations() if node.op == "while"]
    assert len(loops) == 2  # forward, backward
    forward_body, backward_body = (loop.attrs["body_graph"] for loop in loops)
    assert [n.op for n in forward_body.get_operations()].count("tanh") == 1
    assert "tanh" not in [n.op for n in backward_body.get_operations()]

    def loss(v):
        acc = v
        for _ in range(3):
            acc = np.tanh(acc * v + 1.0)
        return acc.sum()

    expected = [(loss(x0 + e) - loss(x0 - e)) / 2e-6 for e in np.eye(2) * 1e-6]
    np.testing.assert_allclose(grad(tf.constant(x0), tf.constant(3)).numpy(), expected,
                               rtol=1e-6)
