"""Tests for runtime.ops.slicing: numpy basic indexing, tensor indices, static shapes."""
import numpy as np
import pytest

import runtime as tf
from runtime import context
from runtime.executor import interpret
from runtime.graph import Graph

M = np.arange(12, dtype=np.int32).reshape(3, 4)


@pytest.mark.parametrize("key", [
    (1,), (slice(1, None),), (slice(None, None, -1),), (Ellipsis, 1), (None, 0),
    (slice(0, 2), slice(1, 3)), (-1, -1), (slice(5, 9),),
], ids=lambda k: repr(k))
def test_eager_and_graph_match_numpy(key):
    expected = M[key]
    assert tf.constant(M)[key].numpy().tolist() == expected.tolist()
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.int32, (3, 4), name="x")
        y = x[key]
    assert tuple(y.shape) == expected.shape
    assert interpret(graph, [x], [y])(M)[0].tolist() == expected.tolist()


def test_symbolic_index_and_bounds():
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.int32, (3, 4), name="x")
        i = graph.placeholder(tf.int32, (), name="i")
        row = x[i]
        part = x[0, i:]
    assert row.shape == (4,) and part.shape == (None,)
    out = interpret(graph, [x, i], [row, part])(M, np.int32(2))
    assert out[0].tolist() == [8, 9, 10, 11] and out[1].tolist() == [2, 3]


def test_static_out_of_range_index_is_caught_while_tracing():
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.int32, (3,), name="x")
        with pytest.raises(tf.errors.InvalidArgumentError, match="slice index 3 of dimension 0 "
                                                                "out of bounds"):
            x[3]


def test_too_many_indices_and_bad_index_types():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Too many indices"):
        graph = Graph("g")
        with context.graph_scope(graph):
            graph.placeholder(tf.int32, (3,), name="x")[0, 0]
    with pytest.raises(TypeError, match="Only scalar integer tensors can be used as indices"):
        tf.constant([1, 2])[tf.constant(1.0)]
    with pytest.raises(TypeError, match="are valid indices, found str"):
        tf.constant([1, 2])["a"]


def test_list_index_gathers():
    assert tf.constant([10, 20, 30])[[2, 0]].numpy().tolist() == [30, 10]
