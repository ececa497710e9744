"""Rank-0 float64 values are Python floats in the generated code (runtime.executor.scalars,
python_rules._float_rule), computing exactly what numpy's float64 scalars compute.

The expected values come from the same plain Python functions run on numpy float64 scalars
(numpy's semantics, not the runtime's); `same` compares bits (sign of zero, nan).
"""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

import runtime as tf
from runtime.executor import codegen

# Warnings these tests trigger on purpose: each case traces a new function; the expected values
# overflow and divide by zero as numpy's float64 scalars do, on purpose.
pytestmark = [pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning")]

EXECUTORS = ("compiled", "interpreter")
F64 = np.float64
EDGES = [0.3, -0.0, 1e308, -1e308, 5e-324, np.inf, -np.inf, np.nan, 2.0 ** 52 + 0.5]


def same(got, want):
    """Whether `got` (a tensor) holds float64 `want` bit for bit (any nan is nan)."""
    value = got.numpy()
    assert got.dtype == tf.float64 and type(value) is np.float64
    if np.isnan(want):
        return bool(np.isnan(value))
    return value == want and np.signbit(value) == np.signbit(want)


def steps(x, d, n):
    """Every float op with a Python float rule, and division by a variable (numpy's)."""
    i = 0
    zeros = 0
    while i < n:
        y = x * 1.5 - 0.25
        if y > x:  # false for nan
            x = y / 3.0
        else:
            x = -y + x / d  # d == 0.0: inf or nan as numpy gives, no ZeroDivisionError
        if x != x or x == 0.0 or x <= -1e300 or x >= 1e300:
            zeros += 1
        i += 1
    return x, zeros, x < 0.0


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("x", EDGES)
@pytest.mark.parametrize("d", [0.0, -0.0, 7.0])
def test_float64_loops_compute_as_numpy_float64(executor, x, d):
    fn = tf.function(steps, executor=executor)
    got = fn(tf.constant(x, tf.float64), tf.constant(d, tf.float64), tf.constant(3))
    with np.errstate(all="ignore"):
        want = steps(F64(x), F64(d), 3)
    assert same(got[0], want[0]), (got, want)
    assert int(got[1].numpy()) == want[1] and bool(got[2].numpy()) == bool(want[2])


def casts(big, flag, x):
    """Casts into and out of float64, and constants without a Python literal."""
    inf = tf.constant(np.inf, tf.float64)
    nan = tf.constant(np.nan, tf.float64)
    total = tf.cast(big, tf.float64) + tf.cast(flag, tf.float64)
    return (total, tf.cast(x, tf.bool), tf.cast(x, tf.int32), x * inf, x + nan,
            tf.maximum(x, nan), tf.minimum(nan, x))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("x", [0.0, -2.5, np.nan, 3e9])
def test_casts_and_non_finite_constants_follow_numpy(executor, x):
    big = np.int64(2 ** 53 + 1)  # rounds to even in float64
    fn = tf.function(casts, executor=executor)
    got = fn(tf.constant(big), tf.constant(True), tf.constant(x, tf.float64))
    with np.errstate(all="ignore"):
        want = (F64(big) + F64(True), bool(x), F64(x).astype(np.int32), F64(x) * np.inf,
                F64(x) + np.nan, np.maximum(F64(x), np.nan), np.minimum(np.nan, F64(x)))
    assert same(got[0], want[0]) and bool(got[1].numpy()) == want[1]
    assert got[2].dtype == tf.int32 and got[2].numpy() == want[2]
    assert all(same(g, w) for g, w in zip(got[3:], want[3:])), (got, want)


def running_sum(xs):
    total = tf.constant(0.0, tf.float64)
    for i in tf.range(tf.shape(xs)[0]):
        if xs[i] > 0.0:
            total += xs[i]
    return total


@pytest.mark.parametrize("executor", EXECUTORS)
def test_float64_elements_read_in_a_loop(executor):
    xs = np.array([0.1, 0.2, -1.0, 1e308, 1e308, -np.inf, 0.3], np.float64)
    got = tf.function(running_sum, executor=executor)(xs)
    want = F64(0.0)
    for v in xs:
        if v > 0.0:
            want = want + v
    assert same(got, want)


def _source(fn, *specs):
    graph = tf.function(fn).get_concrete_function(*specs).graph
    return codegen.generate(graph).source


def test_float64_loop_is_python_float_arithmetic():
    source = _source(steps, tf.TensorSpec((), tf.float64), tf.TensorSpec((), tf.float64),
                     tf.TensorSpec((), tf.int32))
    assert "x_1 = float(x)" in source
    assert "(x_2 * 1.5) - 0.25" in source and "subtract / 3.0" in source  # Python literals
    # division by a variable computes on numpy float64 (inf where Python would raise)
    assert "_float64(x_2) / _float64(d_1)" in source
    assert source.count("_float64(") == 3  # that division's operands and the result


def test_float64_elements_are_read_from_a_memoryview():
    source = _source(running_sum, tf.TensorSpec((None,), tf.float64))
    assert "memoryview(xs)" in source and source.count(" = xs_view[i_index]") == 2
    assert "total = total + getitem_2" in source  # a Python float sum
    assert "_float64(" not in source.split("return")[0]


def scaled(x, s, n):
    for _ in tf.range(n):
        x = x * s - 0.5 / s  # s: a loop-invariant Python float meeting an array
    return x, s - x


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("s", [0.5, 0.0, -np.inf])
def test_python_floats_meet_float64_arrays_as_numpy_float64(executor, s):
    x = np.array([1.0, -2.5, 1e300], np.float64)
    got = tf.function(scaled, executor=executor)(x, F64(s), np.int32(3))
    with np.errstate(all="ignore"):
        want_x = x
        for _ in range(3):
            want_x = want_x * F64(s) - F64(0.5) / F64(s)
        want = (want_x, F64(s) - want_x)
    for g, w in zip(got, want):
        assert g.dtype == tf.float64 and g.shape == w.shape
        np.testing.assert_array_equal(g.numpy(), w)  # nan == nan here


def test_python_floats_reach_array_ufuncs_unconverted():
    source = _source(scaled, tf.TensorSpec((3,), tf.float64), tf.TensorSpec((), tf.float64),
                     tf.TensorSpec((), tf.int32))
    assert "s_1 = float(s)" in source and "x_1 * s_1" in source and "s_1 - x_1" in source
    assert source.count("_float64(s_1)") == 1  # only where it is divided by (numpy's / 0)


# Random float64 loops: each step one op with a Python float rule or without one, run by the
# unconverted function on numpy float64 scalars (numpy's semantics) and staged.
_STEPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "neg": lambda a, b: -a, "div_const": lambda a, b: a / 3.0, "div": lambda a, b: a / b,
    "max": lambda a, b: tf.maximum(a, b), "select": lambda a, b: tf.where(a < b, a, b),
    "bool_cast": lambda a, b: tf.cast(tf.cast(a, tf.bool), tf.float64),
}
_EDGES = st.sampled_from([0.0, -0.0, 1.0, -1.5, 1e308, -1e308, 5e-324, np.inf, -np.inf,
                          np.nan])


def _program(steps):
    def fn(a, b, n):
        i = 0
        while i < n:
            for name, swap in steps:
                a, b = (b, _STEPS[name](a, b)) if swap else (_STEPS[name](a, b), b)
            i += 1
        return a, b
    return fn


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(sorted(_STEPS)), st.booleans()), min_size=1,
                      max_size=6),
       a=_EDGES | st.floats(), b=_EDGES)
def test_random_float64_loops_equal_the_unconverted_function(steps, a, b):
    fn = _program(steps)
    with np.errstate(all="ignore"):
        want = fn(F64(a), F64(b), 2)
        got = tf.function(fn)(tf.constant(a, tf.float64), tf.constant(b, tf.float64),
                              tf.constant(2))
    assert all(same(g, np.float64(w)) for g, w in zip(got, want)), (steps, got, want)
