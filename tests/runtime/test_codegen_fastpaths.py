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


# -- code shape: loop tests, inlined temporaries, loop variables in locals ---------------------

def _collatz(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def test_collatz_source_is_the_hand_written_loop():
    fn = tf.function(_collatz)
    concrete = fn.get_concrete_function(tf.TensorSpec((), tf.int32))
    body = codegen.generate(concrete.graph).source.split("try:\n")[1].split("    except")[0]
    assert body == (
        "        n_1 = int(n)\n"
        "        loop_var = 0\n"
        "        loop_var_1 = n_1\n"
        "        while loop_var_1 > 1:\n"
        "            if (loop_var_1 % 2) == 0:\n"
        "                loop_var_1 = loop_var_1 // 2\n"
        "            else:\n"
        "                loop_var_1 = (3 * loop_var_1) + 1\n"
        "                if loop_var_1 > 2147483647:\n"  # n > 1 here: only the top can overflow
        "                    loop_var_1 = _wrap_int32(loop_var_1)\n"
        "            loop_var = loop_var + 1\n"
        "            if loop_var > 2147483647:\n"
        "                loop_var = _wrap_int32(loop_var)\n"
        "        return (_int32(loop_var),)\n")
    for n, steps in [(27, 111), (1, 0), (6, 8)]:
        out = fn(tf.constant(n))
        assert int(out.numpy()) == steps and out.dtype == tf.int32


def _fib_and_old_values(n):
    a, b = 0, 1
    olds = 0
    for _ in tf.range(n):
        a, b = b, a + b  # each new value reads the other's old one
        olds += a - b  # read after both were replaced
    return a, b, olds


@pytest.mark.parametrize("n", [0, 1, 2, 10, 50])
def test_loop_variables_written_in_place_keep_old_values(n):
    graph = tf.function(_fib_and_old_values).get_concrete_function(
        tf.TensorSpec((), tf.int32)).graph
    got = _both(graph, np.array(n, np.int32))
    a, b, olds = 0, 1, 0
    for _ in range(n):
        a, b = b, (a + b + 2 ** 31) % 2 ** 32 - 2 ** 31
        olds = (olds + a - b + 2 ** 31) % 2 ** 32 - 2 ** 31
    assert [int(v) for v in got] == [a, b, olds]


def test_counted_loop_needs_no_wrap_of_its_counter():
    def count(n):
        total = 0
        for i in tf.range(n):
            total += i % 3
        return total

    source = codegen.generate(tf.function(count).get_concrete_function(
        tf.TensorSpec((), tf.int32)).graph).source
    assert "while loop_var < " in source  # the test is the loop's own condition
    assert "loop_var = loop_var + 1\n" in source
    assert "if loop_var > " not in source  # i < n bounds i + 1: no wrap
    assert "if loop_var_1 > 2147483647:" in source  # the running total may leave int32
    assert " = loop_var, " not in source  # no tuple shuffle of loop variables
