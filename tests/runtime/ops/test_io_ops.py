"""Tests for runtime.ops.io_ops: tf.print formatting and timing, py_function, assert."""
import sys

import numpy as np
import pytest

import runtime as tf
from runtime import context
from runtime.executor import interpret
from runtime.graph import Graph
from runtime.ops.io_ops import format_value


@pytest.mark.parametrize("value, text", [
    (np.int32(3), "3"),
    (np.float32(1.0), "1"),
    (np.float32(2.5), "2.5"),
    (np.array([1, 2, 3], np.int32), "[1 2 3]"),
    (np.array([[1, 2], [3, 4]], np.int32), "[[1 2]\n [3 4]]"),
    (np.arange(10, dtype=np.int32), "[0 1 2 ... 7 8 9]"),
    (np.array(["ab", "c"], dtype=object), "[ab c]"),
    (np.array("hi", dtype=object), "hi"),
    (np.array([True, False]), "[1 0]"),
    (np.zeros((0,), np.float32), "[]"),
    (np.arange(16, dtype=np.int32).reshape(8, 2),
     "[[0 1]\n [2 3]\n [4 5]\n ...\n [10 11]\n [12 13]\n [14 15]]"),
])
def test_format_value_like_tf_print(value, text):
    assert format_value(value) == text


def test_summarize_minus_one_prints_everything():
    assert format_value(np.arange(8, dtype=np.int32), summarize=-1) == "[0 1 2 3 4 5 6 7]"


def test_eager_print_to_current_stdout(capsys):
    tf.print("x =", tf.constant([1, 2]), 3, sep=" ", end="!\n")
    assert capsys.readouterr().out == "x = [1 2] 3!\n"


def test_print_to_stderr(capsys):
    tf.print("oops", output_stream=sys.stderr)
    assert capsys.readouterr().err == "oops\n"


def test_graph_print_runs_at_every_execution_not_at_trace(capsys):
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.int32, (None,), name="x")
        assert tf.print("value:", x) is None
    assert capsys.readouterr().out == ""
    run = interpret(graph, [x], [])
    run(np.array([1, 2], np.int32))
    run(np.array([3], np.int32))
    assert capsys.readouterr().out == "value: [1 2]\nvalue: [3]\n"


def test_py_function_eager_and_graph():
    calls = []

    def double(t):
        calls.append(t.numpy().tolist())
        return t * 2

    assert tf.py_function(double, [tf.constant([1, 2])], tf.int32).numpy().tolist() == [2, 4]
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.int32, (2,), name="x")
        y = tf.py_function(double, [x], tf.int32)
        assert y.shape is None and y.dtype is tf.int32
    assert calls == [[1, 2]]
    assert interpret(graph, [x], [y])(np.array([5, 6], np.int32))[0].tolist() == [10, 12]
    assert calls == [[1, 2], [5, 6]]


def test_py_function_multiple_and_no_outputs():
    a, b = tf.py_function(lambda x: (x, x + 1), [1], [tf.int32, tf.float32])
    assert a.dtype is tf.int32 and b.dtype is tf.float32 and b.numpy() == 2.0
    assert tf.py_function(lambda: None, [], None) is None


def test_py_function_wrong_output_count():
    with pytest.raises(tf.errors.InvalidArgumentError, match="returned 1 values but Tout lists 2"):
        tf.py_function(lambda: 1, [], [tf.int32, tf.int32])


def test_assert_eager_and_graph():
    tf.debugging.Assert(tf.constant(True), ["fine"])
    with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive"):
        tf.debugging.Assert(tf.constant(False), ["x must be positive"])
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.int32, (), name="x")
        tf.debugging.Assert(x > 0, ["x must be positive:", x])
    run = interpret(graph, [x], [])
    run(np.int32(1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive: -3"):
        run(np.int32(-3))


def test_ops_on_unknown_rank_py_function_outputs():
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.float32, (2, 2), name="x")
        y = tf.py_function(lambda t: t * 2, [x], tf.float32)
        y1 = y + 1.0
        z = tf.reshape(y1, [4])
        total = tf.reduce_sum(z)
    assert y1.shape is None and z.shape is None and total.shape == ()
    out = interpret(graph, [x], [z, total])(np.ones((2, 2), np.float32))
    assert out[0].tolist() == [3, 3, 3, 3] and out[1] == 12


def test_print_nested_structures(capsys):
    tf.print({"a": tf.constant(1), "b": [tf.constant([1, 2]), "s"]}, (tf.constant(2.5),))
    assert capsys.readouterr().out == "{'a': 1, 'b': [[1 2], s]} (2.5,)\n"
