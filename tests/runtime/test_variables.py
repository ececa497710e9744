"""Tests for runtime.variables: eager state, ordered graph reads/writes, errors."""
import numpy as np
import pytest

import runtime as tf
from runtime import context
from runtime.executor import interpret
from runtime.graph import Graph
from runtime.variables import observe_creation


def test_eager_assign_family():
    v = tf.Variable([1.0, 2.0], name="w")
    assert v.name == "w:0" and v.dtype is tf.float32 and v.shape == (2,)
    assert v.assign([3.0, 4.0]).numpy().tolist() == [3.0, 4.0]
    v.assign_add([1.0, 1.0])
    v.assign_sub(tf.constant([0.5, 0.5]))
    assert v.numpy().tolist() == [3.5, 4.5]
    assert v.read_value().numpy().tolist() == [3.5, 4.5]
    assert (v * 2).numpy().tolist() == [7.0, 9.0]
    assert np.asarray(v).tolist() == [3.5, 4.5]


def test_initial_value_callable_and_dtype():
    v = tf.Variable(lambda: 3, dtype=tf.float64)
    assert v.dtype is tf.float64 and v.numpy() == 3.0
    assert tf.Variable(1).dtype is tf.int32


def test_initial_value_is_copied():
    array = np.array([1, 2], np.int32)
    v = tf.Variable(array)
    array[0] = 99
    assert v.numpy().tolist() == [1, 2]


def test_earlier_reads_keep_their_value():
    v = tf.Variable(1)
    before = v.read_value()
    v.assign_add(5)
    assert before.numpy() == 1 and v.numpy() == 6


def test_assign_errors_name_the_variable():
    v = tf.Variable([1.0, 2.0], name="w")
    with pytest.raises(tf.errors.InvalidArgumentError, match="a int32 value to the variable "
                                                            "'w' of dtype float32"):
        v.assign(tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \(3,\) to the variable 'w' "
                                                            r"of shape \(2,\)"):
        v.assign([1.0, 2.0, 3.0])


def test_graph_reads_and_writes_run_in_program_order():
    v = tf.Variable(10)
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.int32, (), name="x")
        r1 = v.read_value()
        w = v.assign(x)
        r2 = v + 1
        a = v.assign_add(x)
        r3 = v.read_value()
    assert v.numpy() == 10  # nothing ran while building
    run = interpret(graph, [x], [r1, w, r2, a, r3])
    assert run(np.int32(3)) == (10, 3, 4, 6, 6)
    assert v.numpy() == 6
    assert run(np.int32(1)) == (6, 1, 2, 2, 2)


def test_symbolic_initial_value_is_rejected():
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.int32, (), name="x")
        with pytest.raises(ValueError, match="initial value must be computable eagerly"):
            tf.Variable(x)


def test_variable_created_while_tracing_is_eager():
    graph = Graph("g")
    with context.graph_scope(graph):
        v = tf.Variable(lambda: tf.constant(2.0) * 3.0)  # the callable runs eagerly
    assert v.numpy() == 6.0
    assert graph.nodes == []


def test_numpy_while_tracing_is_an_error():
    v = tf.Variable(1)
    with context.graph_scope(Graph("g")):
        with pytest.raises(NotImplementedError, match="only available eagerly"):
            v.numpy()


def test_observe_creation():
    seen = []
    with observe_creation(seen.append):
        v = tf.Variable(0)
    tf.Variable(1)
    assert seen == [v]
