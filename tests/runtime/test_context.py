"""Tests for runtime.context: the graph stack and init_scope."""
import runtime as tf
from runtime import context
from runtime.graph import Graph
from runtime.tensor import EagerTensor
from runtime.tensor import SymbolicTensor


def test_eager_by_default():
    assert context.executing_eagerly() and tf.executing_eagerly()
    assert context.get_graph() is None


def test_graph_scope_nests_and_restores():
    outer, inner = Graph("outer"), Graph("inner")
    with context.graph_scope(outer):
        assert context.get_graph() is outer and not context.executing_eagerly()
        with context.graph_scope(inner):
            assert context.get_graph() is inner
        assert context.get_graph() is outer
    assert context.get_graph() is None


def test_init_scope_lifts_to_eager():
    graph = Graph("g")
    with context.graph_scope(graph):
        assert isinstance(tf.constant(1) + 1, SymbolicTensor)
        with tf.init_scope():
            assert context.executing_eagerly()
            assert isinstance(tf.constant(1) + 1, EagerTensor)
        assert context.get_graph() is graph
    assert len([n for n in graph.nodes if n.op == "add"]) == 1


def test_scope_is_restored_after_an_exception():
    try:
        with context.graph_scope(Graph("g")):
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert context.executing_eagerly()
