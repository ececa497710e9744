"""Variables built on a tf.function's first call (the two layers of the traced-twice thread)."""
import numpy as np
import pytest

import runtime as tf

SPEC = [tf.TensorSpec(shape=(None, 5), dtype=tf.float32)]


class Dense(tf.Module):
    """The thread's layer that builds its variables in __init__."""

    def __init__(self, neurons_in, neurons_out):
        super().__init__()
        self.traces = 0
        self.W = tf.Variable(np.random.RandomState(0).normal(size=(neurons_in, neurons_out))
                             .astype(np.float32), name="dense_weights")
        self.b = tf.Variable(np.zeros(neurons_out, np.float32), name="dense_bias")

    @tf.function(input_signature=SPEC)
    def __call__(self, x_in):
        self.traces += 1
        return tf.matmul(x_in, self.W) + self.b


class KerasDense(tf.Module):
    """The thread's Keras-style layer that builds its variables on the first call."""

    def __init__(self, neurons):
        super().__init__()
        self.traces = 0
        self._neurons = neurons
        self.W = None
        self.b = None
        self._is_built = False

    @tf.function(input_signature=SPEC)
    def __call__(self, x_in):
        self.traces += 1
        if not self._is_built:
            self.W = tf.Variable(tf.random.normal((x_in.shape[-1], self._neurons)),
                                 trainable=True, name="dense_weights", dtype=tf.float32)
            self.b = tf.Variable(tf.random.normal((self._neurons,)), trainable=True,
                                 name="dense_bias", dtype=tf.float32)
            self._is_built = True
        return tf.matmul(x_in, self.W) + self.b


def _x(rows=4):
    return tf.constant(np.random.RandomState(1).uniform(size=(rows, 5)).astype(np.float32))


def test_variables_in_init_trace_once():
    layer = Dense(5, 3)
    x = _x()
    first = layer(x).numpy()
    second = layer(x).numpy()
    assert layer.traces == 1
    assert layer.__call__.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(first, x.numpy() @ layer.W.numpy() + layer.b.numpy(), rtol=1e-6)


def test_variables_on_first_call_trace_twice_and_keep_their_values():
    layer = KerasDense(3)
    x = _x()
    first = layer(x).numpy()
    assert layer.traces == 2
    assert layer.__call__.experimental_get_tracing_count() == 2
    second = layer(x).numpy()
    assert layer.traces == 2
    np.testing.assert_array_equal(first, second)
    assert len(layer.trainable_variables) == 2
    assert layer.W.shape == (5, 3) and layer.b.shape == (3,)
    np.testing.assert_allclose(first, x.numpy() @ layer.W.numpy() + layer.b.numpy(), rtol=1e-6)
    # Another batch size reuses the signature's trace and the same variables.
    np.testing.assert_allclose(layer(_x(7)).numpy(),
                               _x(7).numpy() @ layer.W.numpy() + layer.b.numpy(), rtol=1e-6)
    assert layer.traces == 2


def test_initial_value_from_the_inputs_values_is_the_first_calls():
    state = {}

    @tf.function
    def f(x):
        if "v" not in state:
            state["v"] = tf.Variable(x * 2.0 + tf.reduce_sum(x))
        return state["v"] + x

    x = tf.constant([1.0, 2.0, 3.0])
    np.testing.assert_allclose(f(x).numpy(), [1 * 2 + 6 + 1, 2 * 2 + 6 + 2, 3 * 2 + 6 + 3])
    np.testing.assert_allclose(state["v"].numpy(), [8.0, 10.0, 12.0])
    y = tf.constant([0.0, 0.0, 1.0])
    np.testing.assert_allclose(f(y).numpy(), [8.0, 10.0, 13.0])
    assert f.experimental_get_tracing_count() == 2


def test_initializer_runs_only_the_initial_values_nodes():
    state = {}
    printed = []

    @tf.function
    def f(x):
        if "v" not in state:
            state["v"] = tf.Variable(tf.ones_like(x))
        tf.py_function(lambda: printed.append(1), [], [])
        return state["v"] * x

    np.testing.assert_allclose(f(tf.constant([2.0, 3.0])).numpy(), [2.0, 3.0])
    assert printed == [1]


def test_one_initial_value_may_read_another_variable():
    state = {}

    @tf.function
    def f(x):
        if not state:
            state["a"] = tf.Variable(x + 1.0)
            state["b"] = tf.Variable(state["a"] * 10.0)
        return state["b"]

    np.testing.assert_allclose(f(tf.constant(1.0)).numpy(), 20.0)


def test_creating_a_variable_on_a_later_call_raises_the_guides_error():
    @tf.function
    def f(x):
        return tf.Variable(tf.zeros_like(x)) + x

    with pytest.raises(ValueError, match="only supports singleton tf.Variables created on the "
                                         "first call"):
        f(tf.constant([1.0]))


def test_input_dependent_initial_value_needs_a_call():
    holder = []

    @tf.function
    def f(x):
        if not holder:
            holder.append(tf.Variable(x))
        return holder[0] + x

    with pytest.raises(ValueError, match="depends on the function's arguments"):
        f.get_concrete_function(tf.TensorSpec([2], tf.float32))


def test_variable_from_a_symbolic_value_outside_a_function_still_raises():
    from runtime.graph import Graph
    graph = Graph("g")
    with graph.as_default():
        x = graph.placeholder(tf.float32, (2,))
        with pytest.raises(ValueError, match="must be computable eagerly"):
            tf.Variable(x * 2.0)


def test_uninitialised_variable_cannot_be_read_eagerly_mid_trace():
    seen = []

    @tf.function
    def f(x):
        if not seen:
            v = tf.Variable(x)
            seen.append(v)
            with tf.init_scope():
                with pytest.raises(tf.errors.FailedPreconditionError, match="not initialised"):
                    v.numpy() if False else v.read_value()
        return seen[0] + 0.0

    np.testing.assert_allclose(f(tf.constant(3.0)).numpy(), 3.0)
