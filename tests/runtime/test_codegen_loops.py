"""The shape of the generated code of loops: tests as `while` conditions, counted loops as
`for ... in range`, inlined temporaries, loop variables in locals, breaks where the flag is set.

Each shape must give exactly what the reference interpreter gives (`both`).
"""
import itertools

import numpy as np
import pytest

import runtime as tf
from runtime.executor import codegen
from tests.runtime.codegen_helpers import both as _both
from tests.runtime.codegen_helpers import graph_of as _graph

# Warnings these tests trigger on purpose: each case traces a new function.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")


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
        "        steps = 0\n"
        "        n_2 = n_1\n"
        "        while n_2 > 1:\n"
        "            if (n_2 % 2) == 0:\n"
        "                n_2 = n_2 // 2\n"
        "            else:\n"
        "                n_2 = (3 * n_2) + 1\n"
        "                if n_2 > 2147483647:\n"  # n > 1 here: only the top can overflow
        "                    n_2 = ((n_2 + 2147483648) & 4294967295) - 2147483648\n"
        "            steps = steps + 1\n"  # a counter: wrapped once, after the loop
        "        if steps > 2147483647 or steps < -2147483648:\n"
        "            steps = ((steps + 2147483648) & 4294967295) - 2147483648\n"
        "        return (_int32(steps),)\n")
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


def test_counted_loop_is_a_python_range():
    def count(n):
        total = 0
        for i in tf.range(n):
            total += i % 3
        return total

    source = codegen.generate(_graph(count, tf.TensorSpec((), tf.int32))).source
    assert "for i_index in range(i_index, " in source  # increment and test in C
    assert "if i_index > " not in source  # i < n bounds i + 1: no wrap
    assert "if total > 2147483647:" in source  # the running total may leave int32
    # wrapped at each step: it is not a counter
    assert source.count("total = ((total + 2147483648) & 4294967295)") == 1
    assert " = i_index, " not in source  # no tuple shuffle of loop variables


def _counter_after_loop(i, n, m):
    total = 0
    while i < n:
        total += i * m
        i += 1
    return i, total


@pytest.mark.parametrize("i, n", [(0, 5), (3, 3), (7, 2), (-4, -1),
                                  (2 ** 31 - 3, 2 ** 31 - 1)])
def test_counted_loop_leaves_its_counter_where_the_while_loop_does(i, n):
    graph = _graph(_counter_after_loop, *[tf.TensorSpec((), tf.int32)] * 3)
    assert "in range(" in codegen.generate(graph).source
    got = _both(graph, np.int32(i), np.int32(n), np.int32(3))
    want_total = sum(k * 3 for k in range(i, n))
    assert [int(v) for v in got] == [max(i, n), (want_total + 2 ** 31) % 2 ** 32 - 2 ** 31]


def _one_based(n):
    total = 0
    for i in range(1, n + 1):
        total += i % 3 + i // 4
    return total


def _one_based_while(i, n):
    total = 0
    while i < n:
        total += (i + 1) % 7
        i += 1
    return total  # the counter itself is not read after the loop


@pytest.mark.parametrize("n", [0, 1, 7, -3])
def test_counter_read_as_i_plus_one_iterates_that_value(n):
    graph = _graph(_one_based, tf.TensorSpec((), tf.int32))
    source = codegen.generate(graph).source
    assert "in range(int(i_index) + 1, int(" in source  # range(1, n + 1) as Python has it
    assert "1 + i_index" not in source and "if i_index < " not in source
    got = _both(graph, np.int32(n))
    assert int(got[0]) == sum(i % 3 + i // 4 for i in range(1, n + 1))


@pytest.mark.parametrize("i, n", [(0, 5), (5, 5), (9, 2), (-4, -1),
                                  (2 ** 31 - 4, 2 ** 31 - 1)])
def test_offset_counter_bounds_do_not_wrap(i, n):
    # int(...) + 1 on the bounds: a numpy int32 bound of 2**31 - 1 must not wrap to -2**31
    graph = _graph(_one_based_while, *[tf.TensorSpec((), tf.int32)] * 2)
    source = codegen.generate(graph).source
    assert "+ 1, int(" in source and "(1 + i)" not in source
    got = _both(graph, np.int32(i), np.int32(n))
    assert int(got[0]) == sum((k + 1) % 7 for k in range(i, n))


def _one_based_while_and_counter(i, n):
    total = 0
    while i < n:
        total += (i + 1) % 7
        i += 1
    return i, total


@pytest.mark.parametrize("i, n", [(0, 5), (9, 2)])
def test_counter_read_after_the_loop_keeps_its_range(i, n):
    # the counter is returned: the loop stays `for i in range(i, n)` and sets i after it
    graph = _graph(_one_based_while_and_counter, *[tf.TensorSpec((), tf.int32)] * 2)
    source = codegen.generate(graph).source
    assert "+ 1, int(" not in source and "if i_2 < n_1:" in source
    got = _both(graph, np.int32(i), np.int32(n))
    assert [int(v) for v in got] == [max(i, n), sum((k + 1) % 7 for k in range(i, n))]


def _first_over(x, limit):
    total = 0
    last = -1
    for i in tf.range(tf.shape(x)[0]):
        if x[i] < 0:
            continue
        total += x[i]
        if total > limit:
            last = i
            break
    return total, last


def _first_over_python(x, limit):
    total, last = 0, -1
    for i, v in enumerate(x.tolist()):
        if v < 0:
            continue
        total += v
        if total > limit:
            last = i
            break
    return total, last


@pytest.mark.parametrize("values, limit", [([], 0), ([5], 0), ([1, 2, 3], 100),
                                           ([1, -7, 2, 9, 4], 10), ([-1, -2], -5),
                                           ([3, 3, 3, 3], 5)])
def test_loop_with_break_is_a_python_break(values, limit):
    # `for i in tf.range(n): ... break` stages as `while i < n and not done`: the generated
    # loop is `for i in range(i, n): ...`, and the branch that sets the flag ends the
    # iteration and breaks (no flag test at the end of every iteration)
    graph = _graph(_first_over, tf.TensorSpec((None,), tf.int32), tf.TensorSpec((), tf.int32))
    source = codegen.generate(graph).source
    assert "for i_index in range(i_index, " in source
    assert ("last = i_index\n                    total = add\n                    break\n"
            in source)
    assert "if break_1" not in source and "not break_1" not in source
    x = np.array(values, np.int32)
    got = _both(graph, x, np.int32(limit))
    assert [int(v) for v in got] == list(_first_over_python(x, limit))


def _tail_breaks(x, a, b):
    # breaks at two depths of the loop's last statement, beside branches that go on
    total = 0
    hits = 0
    for i in tf.range(tf.shape(x)[0]):
        v = x[i]
        total += v
        if v > a:
            hits += 1
            if v > b:
                total += 100
                break
            elif hits >= 3:
                break
        elif v < -a:
            total -= 2 * v
            break
    return total, hits


def _tail_breaks_python(x, a, b):
    total = hits = 0
    for v in x:
        total += v
        if v > a:
            hits += 1
            if v > b:
                total += 100
                break
            elif hits >= 3:
                break
        elif v < -a:
            total -= 2 * v
            break
    return total, hits


def _break_then_more(x, a):
    # the statement after the `if` that breaks runs only while no break was taken: the flag
    # is tested at the end of the iteration
    total = 0
    for i in tf.range(tf.shape(x)[0]):
        if x[i] > a:
            break
        total += x[i]
    return total


def test_branches_that_set_the_break_flag_break_themselves():
    graph = _graph(_tail_breaks, tf.TensorSpec((None,), tf.int32), tf.TensorSpec((), tf.int32),
                   tf.TensorSpec((), tf.int32))
    source = codegen.generate(graph).source
    assert source.count("break\n") == 3 and "if break_" not in source
    rng = np.random.default_rng(8)
    for _ in range(60):
        x = rng.integers(-9, 10, rng.integers(0, 8)).astype(np.int32)
        a, b = (int(v) for v in sorted(rng.integers(0, 10, 2)))
        got = _both(graph, x, np.int32(a), np.int32(b))
        assert [int(v) for v in got] == list(_tail_breaks_python(x.tolist(), a, b))
    other = _graph(_break_then_more, tf.TensorSpec((None,), tf.int32),
                   tf.TensorSpec((), tf.int32))
    assert "if break_1:\n" in codegen.generate(other).source
    for values, a in (([], 0), ([1, 2, 3], 2), ([5, 1], 4), ([1, 1], 9)):
        x = np.array(values, np.int32)
        want = sum(itertools.takewhile(lambda v: v <= a, values))
        assert int(_both(other, x, np.int32(a))[0]) == want


def _scan_to_stop(x, stop):
    i = 0
    total = 0
    while x[i] != 0:  # reads x[i] only while no break was taken: i stays in range
        total += x[i]
        if total >= stop:
            break
        i += 1
    return i, total


def _scan_to_stop_python(x, stop):
    i, total = 0, 0
    while x[i] != 0:
        total += x[i]
        if total >= stop:
            break
        i += 1
    return i, total


@pytest.mark.parametrize("values, stop", [([0], 5), ([4, 0], 5), ([2, 3, 0], 5),
                                          ([9, 1, 1, 0], 5), ([1, 1, 7], 9), ([6], 6)])
def test_while_loop_with_break_tests_its_condition_as_python_does(values, stop):
    # `while test: ... break` stages as `while not done and test`: the generated loop is
    # `while test: ...; if done: break`, reading the test exactly when Python does
    graph = _graph(_scan_to_stop, tf.TensorSpec((None,), tf.int32), tf.TensorSpec((), tf.int32))
    source = codegen.generate(graph).source
    assert "if break_1:\n                break\n" in source and "not break_1" not in source
    x = np.array(values, np.int32)
    got = _both(graph, x, np.int32(stop))
    assert [int(v) for v in got] == list(_scan_to_stop_python(x.tolist(), stop))


def _count_while_below(i, n, limit):
    total = 0
    while i < n:
        total += i
        if total > limit:
            break
        i += 1
    return i, total


@pytest.mark.parametrize("i, n, limit", [(0, 10, 12), (0, 10, 1000), (5, 3, 0),
                                         (2 ** 31 - 3, 2 ** 31 - 1, 2 ** 40)])
def test_while_counter_bounded_by_its_test_needs_no_wrap(i, n, limit):
    graph = _graph(_count_while_below, *[tf.TensorSpec((), tf.int32)] * 3)
    source = codegen.generate(graph).source
    assert "while i_2 < n_1:" in source and "i_2 = ((i_2 + " not in source
    got = _both(graph, np.int32(i), np.int32(n), np.int32(min(limit, 2 ** 31 - 1)))
    want_i, want_total = i, 0
    while want_i < n:
        want_total = (want_total + want_i + 2 ** 31) % 2 ** 32 - 2 ** 31  # int32 wraps
        if want_total > min(limit, 2 ** 31 - 1):
            break
        want_i += 1
    assert [int(v) for v in got] == [want_i, want_total]


def test_loops_that_are_not_counted_stay_while_loops():
    def by_two(i, n):
        while i < n:
            i += 2  # not i + 1
        return i

    def moving_bound(i, n):
        while i < n:
            i += 1
            n -= 1  # the bound is a loop variable
        return i, n

    for fn in (by_two, moving_bound):
        graph = _graph(fn, *[tf.TensorSpec((), tf.int32)] * 2)
        assert "range(" not in codegen.generate(graph).source
        _both(graph, np.int32(0), np.int32(9))
