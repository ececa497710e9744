"""Tests for runtime.executor.interpreter: results, node-naming errors, compile fallback."""
import numpy as np
import pytest

import runtime as tf
from runtime import context
from runtime.executor import Interpreter
from runtime.executor import compile as compile_graph
from runtime.executor import interpret
from runtime.graph import Graph


def _graph():
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.int32, (None,), name="x")
        y = graph.placeholder(tf.int32, (None,), name="y")
        q = x // y
        parts = tf.unstack(tf.stack([q, x]))
    return graph, x, y, q, parts


def test_runs_and_returns_a_tuple():
    graph, x, y, q, parts = _graph()
    out = interpret(graph, [x, y], [q, parts[1], x])(np.array([7, -7], np.int32),
                                                     np.array([2, 2], np.int32))
    assert isinstance(out, tuple)
    assert [o.tolist() for o in out] == [[3, -4], [7, -7], [7, -7]]


def test_errors_name_the_failing_node():
    graph, x, y, q, parts = _graph()
    run = interpret(graph, [x, y], [q])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^While executing floordiv = floordiv\(x, y\): Integer division"):
        run(np.array([1], np.int32), np.array([0], np.int32))


def test_errors_inside_subgraphs_name_the_inner_node_once():
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.int32, (), name="x")
        out = tf.cond(x > 0, lambda: x // (x - x), lambda: x)
    run = interpret(graph, [x], [out])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        run(np.int32(1))
    assert str(info.value).startswith("While executing floordiv = floordiv(x, subtract): ")
    assert str(info.value).count("While executing") == 1


def test_wrong_argument_count():
    graph, x, y, q, parts = _graph()
    with pytest.raises(TypeError, match="Graph 'g' takes 2 inputs, got 1"):
        interpret(graph, [x, y], [q])(np.array([1], np.int32))


def test_constant_outputs_and_passthrough():
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.float32, (), name="x")
        c = tf.constant(5)
    out = interpret(graph, [x], [c, x, tf.constant(2.0)])(np.float32(1.5))
    assert out == (5, 1.5, 2.0)


def test_compile_agrees_with_interpreter():
    graph, x, y, q, parts = _graph()
    args = (np.array([9, -9, 4], np.int32), np.array([4, 4, -3], np.int32))
    a = interpret(graph, [x, y], [q])(*args)
    b = compile_graph(graph, [x, y], [q])(*args)
    assert a[0].tolist() == b[0].tolist() == [2, -3, -2]


def test_interpreter_class_has_one_method_per_node_kind():
    assert all(callable(getattr(Interpreter, m)) for m in ("run_op", "run_structured"))


def test_outputs_must_belong_to_the_graph():
    graph, x, y, q, parts = _graph()
    other, ox, _, oq, _ = _graph()
    with pytest.raises(ValueError, match="Cannot return .*'floordiv:0'.* from graph 'g': it is "
                                         "not produced by a node of this graph"):
        interpret(graph, [x, y], [oq])
