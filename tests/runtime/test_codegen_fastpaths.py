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
from runtime.executor import scalars
from tests.runtime.codegen_helpers import both as _both
from tests.runtime.codegen_helpers import errors_agree as _errors_agree
from tests.runtime.codegen_helpers import graph_of as _graph
from tests.runtime.op_cases import trace_graph

# Warnings these tests trigger on purpose: each case traces a new function; float32 edge cases
# overflow as numpy's do, on purpose.
pytestmark = [pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning"),
              pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")]


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
    assert "x_view[i_index]" in codegen.generate(graph).source
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
    assert (" = x[i]" in source or " = x_view[i]" in source)
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
    assert "_view" not in source and " = x[i_index]" in source
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
    assert " = x_view[i_index]" in source and " < 0.0:" in source
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
