"""The executor's fast paths: neutral-op fusion, select-conds and direct integer indexing.

Each fast path must give exactly what the reference interpreter gives, errors included.
"""
import itertools

import numpy as np
import pytest

import runtime as tf
from runtime.errors import InvalidArgumentError
from runtime.executor import codegen
from runtime.executor import interpret
from runtime.executor import optimize as opt
from runtime.executor import scalars
from tests.runtime.op_cases import trace_graph

# Warnings these tests trigger on purpose: each case traces a new function; float32 edge cases
# overflow as numpy's do, on purpose.
pytestmark = [pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning"),
              pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")]


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
        "        steps = 0\n"
        "        n_2 = n_1\n"
        "        while n_2 > 1:\n"
        "            if (n_2 % 2) == 0:\n"
        "                n_2 = n_2 // 2\n"
        "            else:\n"
        "                n_2 = (3 * n_2) + 1\n"
        "                if n_2 > 2147483647:\n"  # n > 1 here: only the top can overflow
        "                    n_2 = _wrap_int32(n_2)\n"
        "            steps = steps + 1\n"  # a counter: wrapped once, after the loop
        "        if steps > 2147483647 or steps < -2147483648:\n"
        "            steps = _wrap_int32(steps)\n"
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
    assert source.count("_wrap_int32(total)") == 1  # at each step: it is not a counter
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
    assert "while i_2 < n_1:" in source and "_wrap_int32(i_2)" not in source
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


# -- element reads in loops: from a memoryview, as Python scalars ------------------------------

def _weighted_walk(x, flags, steps):
    # x: [rows, cols] int; flags: [cols] bool; reads single elements at computed indices,
    # negative ones included, in the loop test, the body and an inner loop's body
    i = 0
    total = tf.zeros((), x.dtype)
    while x[i % 2, -1] != 7 and i < steps:
        for j in tf.range(tf.shape(x)[1]):
            if flags[j]:
                total += x[i % tf.shape(x)[0], j] * tf.cast(i + 1, x.dtype)
        total -= x[-1, -(i % 3) - 1]
        i += 1
    return i, total


def _weighted_walk_python(x, flags, steps):
    i, total = 0, 0
    while x[i % 2][-1] != 7 and i < steps:
        for j in range(len(x[0])):
            if flags[j]:
                total += x[i % len(x)][j] * (i + 1)
        total -= x[-1][-(i % 3) - 1]
        i += 1
    return i, total


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
@pytest.mark.parametrize("order", ["C", "transposed"])
def test_loops_read_int_and_bool_elements_from_a_memoryview(dtype, order):
    graph = _graph(_weighted_walk, tf.TensorSpec((None, None), dtype),
                   tf.TensorSpec((None,), tf.bool), tf.TensorSpec((), tf.int32))
    source = codegen.generate(graph).source
    assert "x_view = memoryview(x)" in source and "flags_view = memoryview(flags)" in source
    assert source.count("_view[") == 4  # the test's read, the two in the body, the flag
    rng = np.random.default_rng(3)
    x = rng.integers(-50, 50, (4, 3)).astype(dtype.as_numpy_dtype)
    if order == "transposed":  # a strided view of another array
        x = np.ascontiguousarray(x.T).T
    flags = np.array([True, False, True])
    for steps in (0, 1, 5, 40):
        got = _both(graph, x, flags, np.int32(steps))
        assert [int(v) for v in got] == list(_weighted_walk_python(x.tolist(), flags.tolist(),
                                                                   steps))
    x[1, -1] = 7  # the loop test stops at the second step
    assert [int(v) for v in _both(graph, x, flags, np.int32(40))] == [1, _weighted_walk_python(
        x.tolist(), flags.tolist(), 40)[1]]


def _read_past_the_end(x, n):
    total = 0
    for i in tf.range(n):
        total += x[i]
    return total


def test_element_read_out_of_range_raises_the_kernels_error():
    graph = _graph(_read_past_the_end, tf.TensorSpec((None,), tf.int32),
                   tf.TensorSpec((), tf.int32))
    assert "x_view[i_index,]" in codegen.generate(graph).source
    x = np.arange(4, dtype=np.int32)
    assert int(_both(graph, x, np.int32(4))[0]) == 6
    message = _errors_agree(graph, x, np.int32(5))
    assert "4" in message  # the index, in the kernel's words


def _float_read_past_the_end(x, n):
    total = tf.constant(0.5)
    for i in tf.range(n):
        total += x[i, -1]
    return total


def test_float_element_read_out_of_range_raises_the_kernels_error():
    graph = _graph(_float_read_past_the_end, tf.TensorSpec((None, 2), tf.float32),
                   tf.TensorSpec((), tf.int32))
    assert ("x_view[i_index, -1,]" in codegen.generate(graph).source) is \
        scalars.WEAK_PYTHON_FLOATS  # added: NEP 50 only
    x = np.array([[9.0, 0.25], [9.0, 2.0 ** -25], [9.0, -0.0]], np.float32)
    (total,) = _both(graph, x, np.int32(3))
    assert total.dtype == np.float32 and total == np.float32(0.5) + np.float32(0.25)
    message = _errors_agree(graph, x, np.int32(4))
    assert "3" in message  # the index, in the kernel's words


def _walk_from(start):
    def walk(x):
        total = tf.constant(0.5)
        i = tf.constant(start)
        while i < 3:
            total += x[i] * 2.0
            i += 1
        return total
    return walk


@pytest.mark.parametrize("start, in_range", [(-3, True), (0, True), (-4, False)])
def test_reads_known_in_range_need_no_fallback(start, in_range):
    # The counter counts up from `start` while i < 3: with a static shape (3,), every index
    # from -3 is in range, and the read cannot raise.
    graph = _graph(_walk_from(start), tf.TensorSpec((3,), tf.float32))
    source = codegen.generate(graph).source
    assert (" = x[i,]" in source or " = x_view[i,]" in source)
    assert ("except IndexError" not in source) is in_range
    x = np.array([1.0, 2.0 ** -24, -0.0], np.float32)
    if not in_range:
        assert "index -4" in _errors_agree(graph, x)  # the kernel's error
        return
    want = np.float32(0.5)
    for i in range(start, 3):
        want = want + x[i] * np.float32(2.0)
    (total,) = _both(graph, x)
    assert total.dtype == np.float32 and total == want


def test_reads_of_unknown_shape_or_start_keep_the_fallback():
    dynamic = _graph(_walk_from(0), tf.TensorSpec((None,), tf.float32))
    assert "except IndexError" in codegen.generate(dynamic).source
    graph = _graph(_read_past_the_end, tf.TensorSpec((4,), tf.int32),
                   tf.TensorSpec((), tf.int32))  # from 0, but to an unknown bound
    assert "except IndexError" in codegen.generate(graph).source
    assert "4" in _errors_agree(graph, np.arange(4, dtype=np.int32), np.int32(5))


def _doubled_sum(x, n):
    y = x * 2
    total = 0
    for i in tf.range(n):
        total += y[i]
    return total


def test_large_arrays_read_by_element_are_released_with_their_view():
    graph = _graph(_doubled_sum, tf.TensorSpec((None,), tf.int32), tf.TensorSpec((), tf.int32))
    source = codegen.generate(graph).source
    assert "del multiply, multiply_view" in source  # the view would keep the array's memory alive
    assert int(_both(graph, np.ones(2000, np.int32), np.int32(2000))[0]) == 4000


def _dimensions(x):
    total = 0
    for i in tf.range(tf.shape(x)[0]):
        total += tf.shape(x)[-1] * i + tf.cast(tf.shape(x, out_type=tf.int64)[1], tf.int32)
    both = tf.shape(x)  # read twice: stays an array
    return total, both[0] + both[1], tf.shape(x)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (4, 5)])
def test_one_dimension_of_a_shape_is_a_python_int(shape):
    graph = _graph(_dimensions, tf.TensorSpec((None, None), tf.float32))
    source = codegen.generate(graph).source
    assert source.count(" = x.shape\n") == 3  # the loop bound and the two reads in the body
    assert source.count("_k_shape(x") == 2  # `both` and the returned shape
    x = np.zeros(shape, np.float32)
    total, pair, whole = _both(graph, x)
    rows, cols = shape
    assert int(total) == sum(cols * i + cols for i in range(rows))
    assert int(pair) == rows + cols and whole.tolist() == [rows, cols]


def _first_crossing(x, threshold):
    total = tf.constant(0.0)
    found = -1
    for i in tf.range(tf.shape(x)[0]):
        for j in tf.range(tf.shape(x)[1]):
            value = x[i, j]
            if value < 0.0:
                continue
            total += value
            if total > threshold:
                found = i * tf.shape(x)[1] + j
                break
        if found >= 0:
            break
    return found, total


def _first_crossing_numpy(x, threshold):
    total = np.float32(0.0)
    with np.errstate(over="ignore"):
        for k, value in enumerate(x.ravel()):  # numpy float32 scalars
            if not value < 0.0:
                total = total + value
                if total > threshold:
                    return k, total
    return -1, total


@pytest.mark.parametrize("order", ["C", "transposed"])
def test_loops_read_float32_elements_from_a_memoryview_as_python_floats(order):
    graph = _graph(_first_crossing, tf.TensorSpec((None, None), tf.float32),
                   tf.TensorSpec((), tf.float32))
    source = codegen.generate(graph).source
    if scalars.WEAK_PYTHON_FLOATS:  # NEP 50 (else see the next test)
        assert "x_view = memoryview(x)" in source and "x[" not in source
        assert " = x_view[i_index, j_index,]" in source
        assert " = float(_k_getitem(x, " in source  # the kernel's error, or its element
        assert " < 0.0):" in source  # the constant compared as a Python float
        assert "add = total_1 + getitem_" in source  # a numpy float32 state: a float32 add
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (4, 6)).astype(np.float32)
    x[0, :3] = [1.0, 2.0 ** -24, 2.0 ** -24]  # ties: float32 keeps 1.0
    x[1, 0] = np.nan
    x[2, :2] = [3e38, 3e38]  # overflow to inf
    if order == "transposed":
        x = np.ascontiguousarray(x.T).T
    for threshold in (1.0, 2.5, 1e38, np.inf):
        found, total = _both(graph, x, np.float32(threshold))
        want_found, want_total = _first_crossing_numpy(x, np.float32(threshold))
        assert found.dtype == np.int32 and int(found) == want_found
        assert total.dtype == np.float32
        np.testing.assert_array_equal(total, want_total)  # nan == nan here


# -- arrays of static shape: one flat view, read at a linear index ---------------------------

@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
@pytest.mark.parametrize("order", ["C", "transposed", "strided"])
def test_static_shapes_read_elements_from_a_flat_view(dtype, order):
    graph = _graph(_weighted_walk, tf.TensorSpec((4, 3), dtype), tf.TensorSpec((3,), tf.bool),
                   tf.TensorSpec((), tf.int32))
    source = codegen.generate(graph).source
    assert "x_view = memoryview(x.ravel())" in source  # C order: a copy when not contiguous
    assert "flags_view = memoryview(flags)" in source  # one dimension: already flat
    assert "_view[" in source and "x[" not in source and ", j_index,]" not in source
    rng = np.random.default_rng(4)
    x = rng.integers(-50, 50, (4, 3)).astype(dtype.as_numpy_dtype)
    if order == "transposed":  # Fortran order: ravel() copies in C order
        x = np.ascontiguousarray(x.T).T
    elif order == "strided":
        x = np.repeat(x, 2, axis=1)[:, ::2]
    assert x.flags.c_contiguous is (order == "C")
    flags = np.array([True, False, True])
    for steps in (0, 1, 5, 40):
        got = _both(graph, x, flags, np.int32(steps))
        assert [int(v) for v in got] == list(_weighted_walk_python(x.tolist(), flags.tolist(),
                                                                   steps))


def test_flat_reads_hoist_the_row_offset_out_of_the_inner_loop():
    graph = _graph(_first_crossing, tf.TensorSpec((4, 6), tf.float32),
                   tf.TensorSpec((), tf.float32))
    source = codegen.generate(graph).source
    assert "x_view = memoryview(x.ravel())" in source
    assert "x_view_row = i_index * 6\n" in source  # before the inner loop
    assert "= x_view[x_view_row + j_index]\n" in source  # in range: no test, no fallback
    assert "_k_getitem" not in source
    rng = np.random.default_rng(6)
    x = rng.uniform(-1, 1, (4, 6)).astype(np.float32)
    x[0, :3] = [1.0, 2.0 ** -24, 2.0 ** -24]
    x[2, :2] = [3e38, 3e38]  # overflow to inf
    for layout in (x, np.asfortranarray(x)):
        for threshold in (1.0, 2.5, 1e38, np.inf):
            found, total = _both(graph, layout, np.float32(threshold))
            want_found, want_total = _first_crossing_numpy(x, np.float32(threshold))
            assert int(found) == want_found
            np.testing.assert_array_equal(total, want_total)


def _middle_plane(x, n):
    # x[i, 1, j] and x[-1, i, 2]: a literal index in the middle, negative ones, and a counter
    # that may run past the end (n is not bounded)
    total = tf.zeros((), x.dtype)
    for i in tf.range(n):
        for j in tf.range(4):
            total += x[i, 1, j]
        total += x[-1, i % 3, -2] * 3
    return total


def _middle_plane_python(x, n):
    total = 0
    for i in range(n):
        for j in range(4):
            total += x[i][1][j]
        total += x[-1][i % 3][-2] * 3
    return total


def test_flat_reads_of_three_dimensions_test_indices_not_known_in_range():
    graph = _graph(_middle_plane, tf.TensorSpec((2, 3, 4), tf.int32),
                   tf.TensorSpec((), tf.int32))
    source = codegen.generate(graph).source
    assert "x_view = memoryview(x.ravel())" in source
    assert "x_view_row = i_index * 12 + 4\n" in source  # i * 12 + 1 * 4, before the j loop
    assert "if 0 <= i_index < 2:" in source  # i is not known below n: tested
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 7
    for n in (0, 1, 2):
        (total,) = _both(graph, x, np.int32(n))
        assert int(total) == _middle_plane_python(x.tolist(), n)
    message = _errors_agree(graph, x, np.int32(3))  # x[2, 1, 0]: past the end
    assert "2" in message


def _read_row(x, i, n):
    total = tf.zeros((), x.dtype)
    for j in tf.range(n):
        total += x[i, j]
    return total


@pytest.mark.parametrize("i, n", [(0, 3), (1, 3), (-1, 3), (-2, 2), (2, 1), (-3, 1), (0, 4)])
def test_flat_reads_at_negative_or_out_of_range_indices_agree_with_the_kernel(i, n):
    graph = _graph(_read_row, tf.TensorSpec((2, 3), tf.int64), tf.TensorSpec((), tf.int32),
                   tf.TensorSpec((), tf.int32))
    source = codegen.generate(graph).source
    assert "if 0 <= i_1 < 2 and 0 <= j_index < 3:" in source  # neither is bounded
    x = np.array([[1, 2, 3], [40, 50, 60]], np.int64)
    if -2 <= i < 2 and n <= 3:  # a negative index counts from the end, as in the kernel
        (total,) = _both(graph, x, np.int32(i), np.int32(n))
        assert int(total) == sum(x.tolist()[i][:n])
    else:
        assert str(i if i >= 2 or i < -2 else n - 1) in _errors_agree(graph, x, np.int32(i),
                                                                      np.int32(n))


def test_flat_reads_of_an_empty_array_raise_the_kernels_error():
    graph = _graph(_read_row, tf.TensorSpec((2, 0), tf.int32), tf.TensorSpec((), tf.int32),
                   tf.TensorSpec((), tf.int32))
    x = np.zeros((2, 0), np.int32)
    assert int(_both(graph, x, np.int32(1), np.int32(0))[0]) == 0
    _errors_agree(graph, x, np.int32(1), np.int32(1))


def _any_set(flags):
    found = False
    for i in tf.range(2):
        for j in tf.range(3):
            if flags[i, j]:
                found = True
    return found


def test_flat_reads_of_bool_arrays_give_python_bools():
    graph = _graph(_any_set, tf.TensorSpec((2, 3), tf.bool))
    assert "flags_view_row = i_index * 3" in codegen.generate(graph).source
    for bits in range(64):
        flags = np.array([(bits >> k) & 1 for k in range(6)], bool).reshape(2, 3)
        (found,) = _both(graph, flags)
        assert bool(found) is bool(flags.any())


def _count_negative(x):
    count = 0
    for i in tf.range(tf.shape(x)[0]):
        if x[i] < 0.0:
            count += 1
    return count


def _sum_above(x, bound):
    total = tf.constant(0.0)
    for i in tf.range(tf.shape(x)[0]):
        value = x[i]
        if value > bound:
            total += value
    return total


def _sum_above_numpy(x, bound):
    total = np.float32(0.0)
    with np.errstate(over="ignore"):
        for value in x:
            if value > bound:
                total = total + value
    return total


@pytest.mark.parametrize("bound", [0.25, -0.0, 0.0, np.nan, np.inf, -np.inf, 2.0 ** -24])
def test_a_loop_invariant_compared_with_python_floats_is_copied_to_one(bound):
    graph = _graph(_sum_above, tf.TensorSpec((None,), tf.float32), tf.TensorSpec((), tf.float32))
    source = codegen.generate(graph).source
    if scalars.WEAK_PYTHON_FLOATS:
        assert "bound_1_float = float(bound_1)" in source  # once, before the loop
        assert "if getitem_1 > bound_1_float:" in source
    x = np.array([0.5, 1.0 + 2.0 ** -23, 2.0 ** -24, np.nan, -0.0, 0.0, 3e38, 3e38, np.inf],
                 np.float32)
    (total,) = _both(graph, x, np.float32(bound))
    assert total.dtype == np.float32
    np.testing.assert_array_equal(total, _sum_above_numpy(x, np.float32(bound)))


def _sum_above_total(x):
    total = tf.constant(0.25)
    for i in tf.range(tf.shape(x)[0]):
        value = x[i]
        if value > total:
            total += value
    return total


def test_float_elements_stay_numpy_where_a_python_float_costs_more():
    # Compared with a numpy float32 loop variable and added to one: a Python float would save
    # the read (~28 ns) and cost ~57 ns in its two reads (scalars.READ_SAVES).
    graph = _graph(_sum_above_total, tf.TensorSpec((None,), tf.float32))
    source = codegen.generate(graph).source
    assert "_view" not in source and " = x[i_index,]" in source
    x = np.array([0.5, 1.0 + 2.0 ** -23, 2.0 ** -24, np.nan, 1.0], np.float32)
    (total,) = _both(graph, x)
    want = np.float32(0.25)
    for value in x:
        if value > want:
            want = want + value
    assert total.dtype == np.float32 and total == want


def test_python_floats_are_only_compared_before_nep_50(monkeypatch):
    # numpy 1.x computes float32 + Python float in float64: there, elements read as Python
    # floats may only meet comparisons.
    specs = (tf.TensorSpec((None, None), tf.float32), tf.TensorSpec((), tf.float32))
    assert ("x_view" in codegen.generate(_graph(_first_crossing, *specs)).source) is \
        scalars.WEAK_PYTHON_FLOATS
    monkeypatch.setattr(scalars, "WEAK_PYTHON_FLOATS", False)
    graph = _graph(_first_crossing, *specs)
    assert "x_view" not in codegen.generate(graph).source
    x = np.array([[0.5, 1.0], [2.0 ** -24, 3.0]], np.float32)
    assert int(_both(graph, x, np.float32(1.25))[0]) == 1
    graph = _graph(_count_negative, tf.TensorSpec((None,), tf.float32))
    source = codegen.generate(graph).source
    assert " = x_view[i_index,]" in source and " < 0.0:" in source
    x = np.array([np.nan, -0.0, 0.0, -1.0, np.inf, -np.inf, -1e-45], np.float32)
    assert int(_both(graph, x)[0]) == 3  # -1.0, -inf and the smallest subnormal


def _casts(a, b, p):
    narrow = tf.cast(a * 3, tf.int32)  # int64 -> int32 wraps
    wide = tf.cast(b, tf.int64) * 5  # int32 -> int64 widens first
    nonzero = tf.cast(b, tf.bool)
    one = tf.cast(p, tf.int64) + tf.cast(nonzero, tf.int64)
    return narrow, wide, nonzero, one


def _wrap(value, bits):
    return (value + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)


@pytest.mark.parametrize("a, b, p", [(0, 0, False), (2 ** 31, 7, True), (-2 ** 40 - 5, -1, False),
                                     (2 ** 62, 2 ** 31 - 1, True), (-2 ** 31, -2 ** 31, True)])
def test_casts_between_python_ints_and_bools_match_numpy(a, b, p):
    graph = _graph(_casts, tf.TensorSpec((), tf.int64), tf.TensorSpec((), tf.int32),
                   tf.TensorSpec((), tf.bool))
    assert "_k_cast" not in codegen.generate(graph).source and ".astype(" not in \
        codegen.generate(graph).source
    narrow, wide, nonzero, one = _both(graph, np.int64(a), np.int32(b), np.bool_(p))
    assert (narrow.dtype, wide.dtype, nonzero.dtype, one.dtype) == (
        np.int32, np.int64, np.bool_, np.int64)
    assert int(narrow) == _wrap(_wrap(a * 3, 64), 32) and int(wide) == _wrap(b * 5, 64)
    assert bool(nonzero) is (b != 0) and int(one) == int(p) + (b != 0)


# -- buffers: an elementwise result goes into a dead input's memory (out=) ----------------------

def _graph(fn, *specs):
    return tf.function(fn).get_concrete_function(*specs).graph


def test_elementwise_chain_reuses_dead_buffers_and_never_writes_inputs():
    def chain(x):
        for _ in range(3):
            x = tf.tanh(x * 0.5 + 0.25)
        return tf.maximum(x, -0.5)

    graph = _graph(chain, tf.TensorSpec((4, 5), tf.float32))
    source = codegen.generate(graph).source
    assert source.count("out=") == 9  # every op but the first writes over its dead input
    assert "out=x" not in source  # the caller's array is never written
    x = np.linspace(-2, 2, 20, dtype=np.float32).reshape(4, 5)
    before = x.copy()
    got = _both(graph, x)[0]
    np.testing.assert_array_equal(x, before)
    want = x
    for _ in range(3):
        want = np.tanh(want * np.float32(0.5) + np.float32(0.25))
    np.testing.assert_array_equal(got, np.maximum(want, np.float32(-0.5)))


def _shared(x, p):
    y = x * 2.0
    z = tf.cond(p, lambda: y, lambda: y + 1.0)  # z may be y's very array
    w = y + 3.0  # y's last read: but z shares it
    kept = x * 3.0
    out = kept + 1.0
    return z, w, kept, out  # kept is returned: its memory must survive


@pytest.mark.parametrize("p", [True, False])
def test_shared_or_returned_arrays_are_not_overwritten(p):
    graph = _graph(_shared, tf.TensorSpec((3,), tf.float32), tf.TensorSpec((), tf.bool))
    x = np.array([1.0, 2.0, 3.0], np.float32)
    z, w, kept, out = _both(graph, x, np.array(p))
    np.testing.assert_array_equal(z, x * 2 if p else x * 2 + 1)
    np.testing.assert_array_equal(w, x * 2 + 3)
    np.testing.assert_array_equal(kept, x * 3)
    np.testing.assert_array_equal(out, x * 3 + 1)


def _mixed_shapes_and_dtypes(x, m, i):
    y = x * 2.0
    wide = y + m  # broadcasts to m's shape: y's memory is too small
    n = i + 1
    flags = tf.cast(n, tf.float32) > y  # a bool result: no float buffer can hold it
    ta = tf.TensorArray(tf.float32, 1).write(0, wide)
    stored = ta.read(0)
    return wide * 1.5, flags, stored + 0.0, wide


def test_buffers_only_reused_for_the_same_shape_dtype_and_unshared_values():
    graph = _graph(_mixed_shapes_and_dtypes, tf.TensorSpec((3,), tf.float32),
                   tf.TensorSpec((2, 3), tf.float32), tf.TensorSpec((3,), tf.int32))
    x = np.array([1.0, 2.0, 3.0], np.float32)
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    i = np.array([1, 5, 7], np.int32)
    got = _both(graph, x, m, i)
    wide = x * 2 + m
    np.testing.assert_array_equal(got[0], wide * np.float32(1.5))
    np.testing.assert_array_equal(got[1], (i + 1).astype(np.float32) > x * 2)
    np.testing.assert_array_equal(got[2], wide)
    np.testing.assert_array_equal(got[3], wide)


# -- TensorArray writes: the index checked at run time, dtype and shape when the graph is built -

def _write_at(values, start, size, dynamic):
    ta = tf.TensorArray(tf.float32, size, dynamic_size=dynamic)
    i = start
    for k in tf.range(tf.shape(values)[0]):
        ta = ta.write(i, values[k])
        i += 1
    ta = ta.write(start, values[0] * 2.0)  # overwrites the first write
    return ta.stack(), ta.size()


def _errors_agree(graph, *feeds):
    with pytest.raises(InvalidArgumentError) as interpreted:
        interpret(graph, graph.inputs, graph.outputs)(*feeds)
    with pytest.raises(InvalidArgumentError) as compiled:
        codegen.compile(graph)(*feeds)
    assert str(compiled.value) == str(interpreted.value)
    return str(compiled.value)


@pytest.mark.parametrize("dynamic", [False, True])
def test_tensor_array_writes_agree_with_the_kernel(dynamic):
    graph = _graph(lambda v, s: _write_at(v, s, 3, dynamic), tf.TensorSpec((None, 2), tf.float32),
                   tf.TensorSpec((), tf.int32))
    source = codegen.generate(graph).source
    if dynamic:  # the in-range write is inline, into the kernels' list
        assert "items[" in source
    else:  # a buffer of the fixed size, written in place
        assert "_np_zeros((3, 2), _float32)" in source and "items[" not in source
    values = np.arange(6, dtype=np.float32).reshape(3, 2)
    stacked, size = _both(graph, values, np.int32(0))
    np.testing.assert_array_equal(stacked, np.stack([values[0] * 2, values[1], values[2]]))
    assert int(size) == 3
    assert "must be non-negative" in _errors_agree(graph, values, np.int32(-1))
    if dynamic:  # grows past its size, as the kernel does
        stacked, size = _both(graph, values, np.int32(2))
        assert int(size) == 5 and stacked.shape == (5, 2)
        np.testing.assert_array_equal(stacked[2:], np.stack([values[0] * 2, values[1],
                                                             values[2]]))
    else:
        assert "not resizeable" in _errors_agree(graph, values, np.int32(2))


def test_tensor_array_write_of_unknown_shape_keeps_the_kernel_check():
    def rows(x, n):
        ta = tf.TensorArray(tf.float32, 2, element_shape=(3,))
        ta = ta.write(0, x[:n])  # shape (None,): checked when it runs
        return ta.stack()

    graph = _graph(rows, tf.TensorSpec((5,), tf.float32), tf.TensorSpec((), tf.int32))
    assert "items[" not in codegen.generate(graph).source
    x = np.arange(5, dtype=np.float32)
    assert "not compatible" in _errors_agree(graph, x, np.int32(2))


def test_tensor_array_of_scalars_stores_numpy_values():
    def squares(n):
        ta = tf.TensorArray(tf.int32, n)
        for i in tf.range(n):
            ta = ta.write(i, i * i)
        return ta.stack(), ta.read(1)

    graph = _graph(squares, tf.TensorSpec((), tf.int32))
    stacked, second = _both(graph, np.int32(4))
    assert stacked.tolist() == [0, 1, 4, 9] and stacked.dtype == np.int32
    assert int(second) == 1 and np.asarray(second).dtype == np.int32


def _windows(x, n):
    ta = tf.TensorArray(tf.int32, n)
    for i in tf.range(n):
        ta = ta.write(i, tf.reduce_sum(x[i:i + 2]))  # a slice bounded by the Python-int counter
    total = 0
    for i in tf.range(n):
        total += ta.read(i)
    return ta.stack(), total, x[0][...], x[0][None], n[None]


def test_python_int_operands_reach_kernels_as_the_kernels_expect():
    graph = _graph(_windows, tf.TensorSpec((5,), tf.int32), tf.TensorSpec((), tf.int32))
    x = np.array([1, 2, 3, 4, 5], np.int32)
    stacked, total, item, lifted, n = _both(graph, x, np.int32(4))
    assert stacked.tolist() == [3, 5, 7, 9] and int(total) == 24
    assert int(item) == 1 and lifted.tolist() == [1] and n.tolist() == [4]
    assert np.asarray(item).dtype == np.int32 and n.dtype == np.int32


def _sets_its_own_predicate(b, x):
    f5 = x
    flag = False
    k = 0
    while k < b % 4:
        k += 1
        if flag:
            f5 = 2.0
        else:
            flag = True  # the select's predicate is one of its outputs
    return f5


def _reads_before_it_is_replaced(p, b):
    f5 = 2.0
    f8 = f5
    old = 0.0
    k = 0
    while k < b:
        k += 1
        if p:
            old = f8  # the old f8, which the same select also replaces
            f8 = 0.0
        f5 = old + f5
    return f5


@pytest.mark.parametrize("executor", ["compiled", "interpreter"])
def test_select_cond_outputs_are_assigned_in_parallel(executor):
    # Found by the 20,000-program fuzz run (seeds '20261125:12064' and '20261125:17932'): the
    # select-cond assigned its outputs one by one, so a later output read an earlier one's new
    # value (`flag = True if flag else True; f5 = 2.0 if flag else f5`): silently wrong.
    f = tf.function(_sets_its_own_predicate, executor=executor)
    for b in (0, 1, 2, 9):
        assert f(tf.constant(b), tf.constant(-0.25)).numpy() == _sets_its_own_predicate(
            b, -0.25)
    g = tf.function(_reads_before_it_is_replaced, executor=executor)
    for p in (True, False):
        for b in (1, 3, 11):
            assert g(tf.constant(p), tf.constant(b)).numpy() == _reads_before_it_is_replaced(
                p, b)
