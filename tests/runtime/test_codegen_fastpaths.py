"""The executor's fast paths: neutral-op fusion, select-conds and direct integer indexing.

Each fast path must give exactly what the reference interpreter gives, errors included.
"""
import numpy as np
import pytest

import runtime as tf
from runtime.errors import InvalidArgumentError
from runtime.executor import codegen
from runtime.executor import interpret
from runtime.executor import optimize as opt
from tests.runtime.op_cases import trace_graph


def _both(graph, *feeds):
    expected = interpret(graph, graph.inputs, graph.outputs)(*feeds)
    actual = codegen.compile(graph)(*feeds)
    assert len(expected) == len(actual)
    for e, a in zip(expected, actual):
        assert np.asarray(e).dtype == np.asarray(a).dtype
        np.testing.assert_array_equal(np.asarray(e), np.asarray(a))
    return actual


def _ops(graph):
    return [n.op for n in graph.nodes]


def test_neutral_constants_fuse_away():
    graph = trace_graph("f", [("x", tf.int32, (3,))], lambda x: ((x * 1) + 0 - 0, 1 * x))
    optimized = opt.optimize(graph)
    assert "multiply" not in _ops(optimized)
    assert "add" not in _ops(optimized) and "subtract" not in _ops(optimized)
    _both(graph, np.array([1, -2, 3], np.int32))


def test_neutral_constant_that_broadcasts_is_kept():
    # x * ones(3) changes x's shape from () to (3,): it is not a no-op.
    graph = trace_graph("f", [("x", tf.int32, ())], lambda x: x * tf.ones([3], tf.int32))
    assert "multiply" in _ops(opt.optimize(graph))
    assert _both(graph, np.int32(4))[0].tolist() == [4, 4, 4]


def test_float_add_zero_is_kept():
    # -0.0 + 0.0 is +0.0: adding a float zero is not an identity.
    graph = trace_graph("f", [("x", tf.float32, ())], lambda x: x + 0.0)
    assert "add" in _ops(opt.optimize(graph))
    (result,) = _both(graph, np.float32(-0.0))
    assert not np.signbit(result)


def test_select_cond_becomes_a_conditional_expression():
    def fn(p, a, b):
        return tf.cond(p, lambda: (a, tf.constant(True)), lambda: (b, tf.constant(False)))

    graph = trace_graph("f", [("p", tf.bool, ()), ("a", tf.int32, ()), ("b", tf.int32, ())], fn)
    source = codegen.generate(graph).source
    assert " if " in source and "else" in source and "\n    if " not in source
    for p in (True, False):
        picked, flag = _both(graph, np.bool_(p), np.int32(1), np.int32(2))
        assert int(picked) == (1 if p else 2) and bool(flag) is p


def test_integer_indexing_matches_the_kernel_and_its_error():
    graph = trace_graph("f", [("x", tf.int32, (None, 3)), ("i", tf.int32, ())],
                   lambda x, i: (x[i], x[i, 2], x[-1, 0]))
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    row, item, last = _both(graph, x, np.int32(1))
    assert row.tolist() == [3, 4, 5] and int(item) == 5 and int(last) == 3
    with pytest.raises(InvalidArgumentError) as interpreted:
        interpret(graph, graph.inputs, graph.outputs)(x, np.int32(5))
    with pytest.raises(InvalidArgumentError) as compiled:
        codegen.compile(graph)(x, np.int32(5))
    assert str(compiled.value) == str(interpreted.value)
