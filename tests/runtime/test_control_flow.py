"""Tests for runtime.control_flow: eager and graph cond/while_loop, structures and errors."""
import collections
import sys
import tracemalloc

import numpy as np
import pytest

import runtime as tf
from runtime import context
from runtime.executor import compile as compile_graph
from runtime.executor import interpret
from runtime.graph import Graph

Pair = collections.namedtuple("Pair", "a b")


def trace(fn, *specs):
    """Traces fn on placeholders of the given (dtype, shape) specs; returns a runner."""
    graph = Graph(getattr(fn, "__name__", "f"))
    with context.graph_scope(graph):
        args = [graph.placeholder(d, s, name=f"a{i}") for i, (d, s) in enumerate(specs)]
        out = fn(*args)
    flat = tf.control_flow.flatten(out) if out is not None else []
    graph.outputs = flat
    run = interpret(graph, args, flat)
    return graph, out, lambda *vals: run(*[np.asarray(v) for v in vals])


# -- eager ------------------------------------------------------------------------------------

def test_eager_cond_runs_only_the_chosen_branch():
    calls = []
    out = tf.cond(tf.constant(False), lambda: calls.append("t") or 1, lambda: calls.append("f")
                  or 2)
    assert out == 2 and calls == ["f"]


def test_eager_while_loop_is_a_python_loop():
    i, total = tf.while_loop(lambda i, t: i < 5, lambda i, t: (i + 1, t + i),
                             (tf.constant(0), tf.constant(0)))
    assert (i.numpy(), total.numpy()) == (5, 10)
    assert tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0]) == [3]


def test_eager_while_loop_returns_tensors_for_python_numbers():
    y = tf.constant(1.0)
    i, z = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2), (0, y))
    assert isinstance(i, tf.Tensor) and i.dtype is tf.int32 and i.numpy() == 3
    assert z.numpy() == 8.0
    # Also when the body never runs.
    (j,) = tf.while_loop(lambda i: i < 0, lambda i: i + 1, [0])
    assert isinstance(j, tf.Tensor) and j.numpy() == 0


def test_eager_while_loop_maximum_iterations():
    (i,) = tf.while_loop(lambda i: True, lambda i: (i + 1,), (0,), maximum_iterations=4)
    assert i == 4


# -- graph cond -------------------------------------------------------------------------------

def test_graph_cond_both_paths():
    def f(x):
        return tf.cond(x > 0, lambda: x * 10, lambda: -x)
    graph, _, run = trace(f, (tf.int32, ()))
    assert run(3) == (30,)
    assert run(-4) == (4,)
    assert [n.op for n in graph.nodes].count("cond") == 1


def test_graph_cond_nested_structures_and_shape_merge():
    def f(x):
        return tf.cond(x[0] > 0,
                       lambda: Pair(x, {"k": tf.zeros([2])}),
                       lambda: Pair(x * 2.0, {"k": tf.ones([3])}))
    _, out, run = trace(f, (tf.float32, (2,)))
    assert isinstance(out, Pair) and out.b["k"].shape == (None,)
    a, k = run(np.array([1, 2], np.float32))
    assert a.tolist() == [1, 2] and k.tolist() == [0, 0]
    a, k = run(np.array([-1, 2], np.float32))
    assert a.tolist() == [-2, 4] and k.tolist() == [1, 1, 1]


def test_graph_cond_only_executed_branch_has_side_effects(capsys):
    v = tf.Variable(0)

    def f(x):
        def yes():
            v.assign_add(1)
            tf.print("yes", x)
            return x
        return tf.cond(x > 0, yes, lambda: x)
    _, _, run = trace(f, (tf.int32, ()))
    run(-1)
    run(5)
    assert v.numpy() == 1
    assert capsys.readouterr().out == "yes 5\n"


def test_graph_nested_cond_captures_from_two_levels_up():
    def f(x, y):
        return tf.cond(x > 0, lambda: tf.cond(y > 0, lambda: x + y, lambda: x - y),
                       lambda: tf.constant(0))
    _, _, run = trace(f, (tf.int32, ()), (tf.int32, ()))
    assert run(2, 3) == (5,)
    assert run(2, -3) == (5,)
    assert run(-2, 3) == (0,)


def test_graph_cond_dtype_mismatch_names_both_dtypes():
    def f(x):
        return tf.cond(x > 0, lambda: x, lambda: tf.constant(1.0))
    with pytest.raises(TypeError, match="different dtypes for output #0: int32 and float32"):
        trace(f, (tf.int32, ()))


def test_graph_cond_structure_mismatch():
    def f(x):
        return tf.cond(x > 0, lambda: (x, x), lambda: x)
    with pytest.raises(ValueError, match="must return the same nested structure"):
        trace(f, (tf.int32, ()))


def test_graph_cond_requires_bool_scalar():
    with pytest.raises(TypeError, match="scalar bool predicate, found int32 tensor"):
        trace(lambda x: tf.cond(x, lambda: x, lambda: x), (tf.int32, ()))


def test_graph_cond_python_predicate_runs_one_branch():
    graph, out, run = trace(lambda x: tf.cond(True, lambda: x + 1, lambda: x - 1),
                            (tf.int32, ()))
    assert run(1) == (2,)
    assert "cond" not in [n.op for n in graph.nodes]


# -- graph while ------------------------------------------------------------------------------

def test_graph_while_sum():
    def f(n):
        return tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), (0, 0))
    _, out, run = trace(f, (tf.int32, ()))
    assert run(5) == (5, 10)
    assert run(0) == (0, 0)
    assert isinstance(out, tuple)


def test_graph_while_nested_loop_vars():
    def f(x):
        def body(i, state):
            return i + 1, {"p": Pair(state["p"].a + x, state["p"].b * 2), "l": [state["l"][0]]}
        return tf.while_loop(lambda i, state: i < 3, body,
                             (0, {"p": Pair(tf.zeros([2]), 1), "l": [tf.constant(7)]}))
    _, out, run = trace(f, (tf.float32, (2,)))
    i, state = out
    assert isinstance(state["p"], Pair) and isinstance(state["l"], list)
    values = run(np.array([1, 2], np.float32))
    assert values[0] == 3
    assert values[1] == 7          # dict leaves are ordered by key: "l" before "p"
    assert values[2].tolist() == [3, 6]
    assert values[3] == 8


def test_graph_while_dtype_change_names_position_and_types():
    def f(x):
        return tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.cast(y, tf.float32)),
                             (0, x))
    with pytest.raises(TypeError, match=r"loop variable #1 \(loop_vars\[1\]\).*int32 tensor "
                                        r"of shape \(\).*float32"):
        trace(f, (tf.int32, ()))


def test_graph_while_structure_change_is_an_error():
    def f(x):
        return tf.while_loop(lambda i: i < 3, lambda i: (i + 1, i), (x,))
    with pytest.raises(ValueError, match="must return the same structure as loop_vars"):
        trace(f, (tf.int32, ()))


def test_graph_while_rank_change_is_an_error():
    def f(x):
        return tf.while_loop(lambda v: tf.size(v) < 4, lambda v: (tf.reshape(v, [1, -1]),), (x,))
    with pytest.raises(ValueError, match=r"changes the rank of loop variable #0"):
        trace(f, (tf.float32, (2,)))


def test_graph_while_relaxes_changing_shapes():
    def f(n):
        return tf.while_loop(lambda i, acc: i < n,
                             lambda i, acc: (i + 1, tf.concat([acc, [i]], 0)),
                             (0, tf.zeros([0], tf.int32)))
    graph, out, run = trace(f, (tf.int32, ()))
    assert out[1].shape == (None,)
    body = [n for n in graph.nodes if n.op == "while"][0].attrs["body_graph"]
    assert body.inputs[1].shape == (None,)
    assert run(4)[1].tolist() == [0, 1, 2, 3]


def test_graph_while_maximum_iterations():
    def f(n):
        return tf.while_loop(lambda i: i < n, lambda i: (i + 1,), (0,), maximum_iterations=3)
    _, _, run = trace(f, (tf.int32, ()))
    assert run(10) == (3,)
    assert run(2) == (2,)


def test_graph_while_with_tensor_array_loop_var():
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

        def body(i, ta):
            return i + 1, ta.write(i, x * tf.cast(i, tf.float32))
        _, ta = tf.while_loop(lambda i, ta: i < 3, body, (0, ta))
        return ta.stack(), ta.size()
    _, out, run = trace(f, (tf.float32, (2,)))
    assert out[0].shape == (None, 2)
    stacked, size = run(np.array([1, 2], np.float32))
    assert stacked.tolist() == [[0, 0], [1, 2], [2, 4]] and size == 3


def test_graph_while_cond_must_return_bool():
    with pytest.raises(TypeError, match="must return a scalar bool, found int32 tensor"):
        trace(lambda x: tf.while_loop(lambda i: i, lambda i: (i - 1,), (x,)), (tf.int32, ()))


def _counting_loop():
    graph = Graph("count")
    with context.graph_scope(graph):
        n = graph.placeholder(tf.int32, (), name="n")
        out = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 2), (0, 0))
    return graph, n, list(out)


def test_graph_while_runs_without_recursion_in_the_interpreter():
    graph, n, out = _counting_loop()
    run = interpret(graph, [n], out)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # a recursive implementation could not get far
    try:
        assert run(np.int32(100_000)) == (100_000, 200_000)
    finally:
        sys.setrecursionlimit(limit)


def test_graph_while_million_iterations():
    graph, n, out = _counting_loop()
    run = compile_graph(graph, [n], out)
    assert run(np.int32(1_000_000)) == (1_000_000, 2_000_000)


def test_graph_while_memory_does_not_grow_with_iterations():
    def f(n):
        return tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s * 1.0), (0, tf.zeros([64])))
    _, _, run = trace(f, (tf.int32, ()))
    peaks = []
    for n in (500, 5_000):
        tracemalloc.start()
        run(n)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < peaks[0] + 20_000


def test_graph_nested_while_loops_capture_outer_loop_vars():
    def f(n):
        def outer_body(i, total):
            _, inner = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + j), (0, total))
            return i + 1, inner
        return tf.while_loop(lambda i, t: i < n, outer_body, (0, 0))
    _, _, run = trace(f, (tf.int32, ()))
    # sum over i < 4 of (0 + 1 + ... + i-1) = 0 + 0 + 1 + 3 = 4
    assert run(4) == (4, 4)
