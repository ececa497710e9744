"""The optimiser folds, fuses and prunes without changing results or side effects."""
import numpy as np
import pytest

import runtime as tf
from runtime.errors import InvalidArgumentError
from runtime.executor import interpret
from runtime.executor import optimize as opt
from runtime.ops import math_ops
from tests.runtime.op_cases import trace_graph


def _run(graph, *feeds):
    return interpret(graph, graph.inputs, graph.outputs)(*feeds)


def straight(x):
    tf.exp(x)  # unused: pruned
    c = tf.constant(2.0) * 3.0 + 1.0  # folded to 7.0
    tf.print("x", x)  # stateful: kept
    y = tf.identity(tf.identity(x)) * c  # identities fused
    z = tf.cast(tf.cast(tf.cast(x, tf.float64), tf.int32), tf.float32)  # exact first cast
    return y, z, tf.shape(x)  # static shape folded


STRAIGHT_BEFORE = """graph f(%x: float32[3]) {
  %exp = exp(%x) : float32[3]
  %Const = constant() {value=2.0} : float32[]
  %Const_1 = constant() {value=3.0} : float32[]
  %multiply = multiply(%Const, %Const_1) : float32[]
  %Const_2 = constant() {value=1.0} : float32[]
  %add = add(%multiply, %Const_2) : float32[]
  print(%x) {template=('x',$0), sep=' ', end='\\n', stream='stdout', summarize=3}
  %identity = identity(%x) : float32[3]
  %identity_1 = identity(%identity) : float32[3]
  %multiply_1 = multiply(%identity_1, %add) : float32[3]
  %cast = cast(%x) {dtype=float64} : float64[3]
  %cast_1 = cast(%cast) {dtype=int32} : int32[3]
  %cast_2 = cast(%cast_1) {dtype=float32} : float32[3]
  %shape = shape(%x) {out_type=int32} : int32[1]
  return (%multiply_1, %cast_2, %shape)
}"""


def test_optimize_golden(capsys):
    graph = trace_graph("f", [("x", tf.float32, (3,))], straight)
    assert str(graph) == STRAIGHT_BEFORE
    optimized = opt.optimize(graph)
    assert str(optimized) == """graph f(%x: float32[3]) {
  %add = constant() {value=7.0} : float32[]
  print(%x) {template=('x',$0), sep=' ', end='\\n', stream='stdout', summarize=3}
  %multiply_1 = multiply(%x, %add) : float32[3]
  %cast_1 = cast(%x) {dtype=int32} : int32[3]
  %cast_2 = cast(%cast_1) {dtype=float32} : float32[3]
  %shape = constant() {value=[3]} : int32[1]
  return (%multiply_1, %cast_2, %shape)
}"""
    assert str(graph) == STRAIGHT_BEFORE  # the input graph is left unchanged
    x = np.array([1.5, -2.5, 3.0], np.float32)
    expected = _run(graph, x)
    actual = _run(optimized, x)
    assert capsys.readouterr().out == "x [1.5 -2.5 3]\nx [1.5 -2.5 3]\n"
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype and a.tolist() == e.tolist()
    assert actual[1].tolist() == [1.0, -2.0, 3.0]


def test_single_passes_golden():
    graph = trace_graph("f", [("x", tf.float32, (3,))], straight)
    pruned = str(opt.prune(graph))
    assert "%exp" not in pruned and "%Const_1 = constant" in pruned
    folded = str(opt.fold_constants(graph))
    assert "  %add = constant() {value=7.0} : float32[]\n" in folded
    assert "  %exp = exp(%x) : float32[3]\n" in folded  # folding alone prunes nothing
    fused = str(opt.fuse_identities(graph))
    assert "  %multiply_1 = multiply(%x, %add) : float32[3]\n" in fused
    assert "  %cast_1 = cast(%x) {dtype=int32} : int32[3]\n" in fused


def loops(x, n):
    def body(i, a, b, c):
        return i + 1, a + x, b * 2.0, c + 1

    init = (tf.constant(0), tf.zeros([3]), tf.ones([3]), tf.constant(0))
    _, a, _, _ = tf.while_loop(lambda i, a, b, c: i < n, body, init)
    r = tf.cond(n > 0, lambda: (a * 2.0, tf.constant(1.0) + 1.0),
                lambda: (a, tf.constant(3.0)))
    return r[0]


LOOP_SIGNATURE = "(%loop_var: int32[], %loop_var_1: float32[3], %n: int32[], %x: float32[3])"


def test_dead_loop_vars_and_cond_outputs_pruned_golden():
    graph = trace_graph("w", [("x", tf.float32, (3,)), ("n", tf.int32, ())], loops)
    assert str(opt.optimize(graph)) == """graph w(%x: float32[3], %n: int32[]) {
  %Const = constant() {value=0} : int32[]
  %zeros = constant() {value=[0.,0.,0.]} : float32[3]
  %while:0, %while:1 = while(%Const, %zeros, %n, %x) {num_loop_vars=2} : int32[], float32[3]
    cond_graph while_condSIG {
      %less = less(%loop_var, %n) : bool[]
      return (%less)
    }
    body_graph while_bodySIG {
      %Const = constant() {value=1} : int32[]
      %add = add(%loop_var, %Const) : int32[]
      %add_1 = add(%loop_var_1, %x) : float32[3]
      return (%add, %add_1)
    }
  %Const_4 = constant() {value=0} : int32[]
  %greater = greater(%n, %Const_4) : bool[]
  %cond = cond(%greater, %while:1) : float32[3]
    true_graph cond_true(%while: float32[3]) {
      %Const = constant() {value=2.0} : float32[]
      %multiply = multiply(%while, %Const) : float32[3]
      return (%multiply)
    }
    false_graph cond_false(%while: float32[3]) {
      return (%while)
    }
  return (%cond)
}""".replace("SIG", LOOP_SIGNATURE)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    for n in (0, 3):
        feeds = (x, np.array(n, np.int32))
        assert _run(opt.optimize(graph), *feeds)[0].tolist() == _run(graph, *feeds)[0].tolist()
    assert _run(opt.optimize(graph), x, np.array(3, np.int32))[0].tolist() == [6.0, 12.0, 18.0]


def test_stateless_unused_loop_removed_stateful_loop_kept(capsys):
    def build(n):
        tf.while_loop(lambda i: i < n, lambda i: (i + 1,), (tf.constant(0),))

        def noisy(i):
            tf.print("i", i)
            return (i + 1,)

        tf.while_loop(lambda i: i < n, noisy, (tf.constant(0),))
        return n

    graph = trace_graph("s", [("n", tf.int32, ())], build)
    text = str(opt.optimize(graph))
    assert text.count("= while(") == 1 and "print(%loop_var)" in text
    _run(opt.optimize(graph), np.array(2, np.int32))
    assert capsys.readouterr().out == "i 0\ni 1\n"


def test_constants_propagate_into_subgraphs():
    def build(x):
        k = tf.constant(4)
        return tf.cond(x > 0, lambda: x + k * 2, lambda: x - k)

    graph = trace_graph("p", [("x", tf.int32, ())], build)
    text = str(opt.optimize(graph))
    # `k * 2` inside the branch is folded once k is known there; k is no longer an operand.
    assert "%cond = cond(%greater, %x) : int32[]" in text
    assert "%multiply = constant() {value=8} : int32[]" in text
    assert _run(opt.optimize(graph), np.array(1, np.int32))[0] == 9
    assert _run(opt.optimize(graph), np.array(-1, np.int32))[0] == -5


def test_failing_op_is_not_folded():
    def build(x):
        bad = tf.constant(1) // tf.constant(0)
        return tf.cond(x > 0, lambda: x + bad, lambda: x)

    graph = trace_graph("e", [("x", tf.int32, ())], build)
    optimized = opt.optimize(graph)
    assert "%floordiv = floordiv(%Const, %Const_1)" in str(optimized)
    with pytest.raises(InvalidArgumentError, match="Integer division by zero"):
        _run(optimized, np.array(1, np.int32))


def test_lossy_cast_chain_not_fused():
    graph = trace_graph("c", [("x", tf.float32, (2,))],
                   lambda x: tf.cast(tf.cast(x, tf.int32), tf.float32))
    optimized = opt.optimize(graph)
    assert "%cast_1 = cast(%cast) {dtype=float32}" in str(optimized)
    out = _run(optimized, np.array([1.7, -2.5], np.float32))[0]
    assert out.tolist() == [1.0, -2.0]


@pytest.mark.parametrize("src, dst, expected", [
    (tf.int32, tf.int64, True), (tf.int64, tf.int32, False), (tf.int32, tf.float64, True),
    (tf.int32, tf.float32, False), (tf.uint8, tf.int16, True), (tf.uint8, tf.int8, False),
    (tf.float32, tf.float64, True), (tf.float64, tf.float32, False), (tf.bool, tf.int8, True),
    (tf.float32, tf.int64, False), (tf.int8, tf.float16, True), (tf.int16, tf.float16, False),
])
def test_is_lossless_cast(src, dst, expected):
    assert math_ops.is_lossless_cast(src, dst) is expected
