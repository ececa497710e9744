"""Tests for runtime.tensor_array: functional writes, eager and in graphs."""
import numpy as np
import pytest

import runtime as tf
from runtime import context
from runtime.executor import interpret
from runtime.graph import Graph


def test_eager_write_read_stack_size():
    ta = tf.TensorArray(tf.int32, size=2)
    ta = ta.write(0, 5).write(1, tf.constant(7))
    assert ta.read(1).numpy() == 7
    assert ta.stack().numpy().tolist() == [5, 7]
    assert ta.size().numpy() == 2 and ta.size().dtype is tf.int32


def test_eager_dynamic_size_grows_and_fixed_size_rejects():
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    for i in range(3):
        ta = ta.write(i, [float(i), 1.0])
    assert ta.stack().numpy().tolist() == [[0, 1], [1, 1], [2, 1]]
    fixed = tf.TensorArray(tf.float32, size=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tried to write to index 1 but "
                                                            "array is not resizeable"):
        fixed.write(1, 1.0)


def test_unstack_and_gather():
    ta = tf.TensorArray(tf.int32, size=3).unstack(tf.constant([[1, 2], [3, 4], [5, 6]]))
    assert ta.read(2).numpy().tolist() == [5, 6]
    assert ta.gather([2, 0]).numpy().tolist() == [[5, 6], [1, 2]]


def test_empty_stack_uses_element_shape():
    ta = tf.TensorArray(tf.float32, size=0, element_shape=(3,))
    assert ta.stack().shape == (0, 3)


def test_element_shape_and_dtype_errors():
    ta = tf.TensorArray(tf.float32, size=2).write(0, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"Inconsistent shapes: saw \(3,\) but expected \(2,\)"):
        ta.write(1, [1.0, 2.0, 3.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="TensorArray dtype is float32"):
        ta.write(1, tf.constant([1, 2]))


def test_graph_tensor_array_and_fresh_storage_per_run():
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.int32, (), name="x")
        ta = tf.TensorArray(tf.int32, size=2).write(0, x).write(1, x * 2)
        out, size, first = ta.stack(), ta.size(), ta.read(0)
    assert out.shape == (None,) and first.shape == ()
    run = interpret(graph, [x], [out, size, first])
    stacked, n, v = run(np.int32(3))
    assert stacked.tolist() == [3, 6] and n == 2 and v == 3
    assert run(np.int32(5))[0].tolist() == [5, 10]


def test_eager_array_cannot_be_used_in_a_graph():
    ta = tf.TensorArray(tf.int32, size=1)
    with context.graph_scope(Graph("g")):
        with pytest.raises(TypeError, match="TensorArray created eagerly cannot be used"):
            ta.write(0, 1)


def test_pop_back_eager_and_in_a_graph():
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True).write(0, 4).write(1, 9)
    ta, last = ta._pop_back()
    assert last.numpy() == 9 and ta.size().numpy() == 1 and ta.stack().numpy().tolist() == [4]
    ta, _ = ta._pop_back()
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        ta._pop_back()
    assert "Tried to pop from an empty list (a TensorArray of size 0)." in str(e.value)

    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.float32, (2,))
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(0, x).write(1, x * 2)
        ta, last = ta._pop_back()
        assert last.shape == (2,) and last.dtype is tf.float32
        stacked = tf.stack(ta)
    run = interpret(graph, [x], [last, stacked])
    last_value, stacked_value = run(np.array([1.0, 2.0], np.float32))
    assert last_value.tolist() == [2.0, 4.0] and stacked_value.tolist() == [[1.0, 2.0]]
