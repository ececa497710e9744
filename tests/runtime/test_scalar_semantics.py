"""Scalar state in staged loops keeps int32/float32 semantics exactly, on both executors.

These pin what any fast path (Python scalars, peephole rewrites, in-place buffers) must keep:
int32 wrap-around at the limits, float32 rounding after every operation, and result dtypes.
The expected values are worked out independently of the runtime: int32 by Python ints reduced
modulo 2**32, float32 by numpy float32 scalars.
"""
import numpy as np
import pytest

import runtime as tf

# Warnings these tests trigger on purpose: new functions per case retrace on purpose; random
# float32 sums overflow to inf as numpy's do, on purpose.
pytestmark = [pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning"),
              pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")]

EXECUTORS = ("compiled", "interpreter")


def wrap32(value):
    """Python int -> the int32 it wraps to."""
    return (value + 2 ** 31) % 2 ** 32 - 2 ** 31


def times_three(x, n):
    i = 0
    while i < n:
        x = x * 3 + 1
        i += 1
    return x


def count_up(x, n):
    for _ in tf.range(n):
        x += 1
    return x


def collatz_steps(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
        if steps >= 5:
            break
    return n, steps


def accumulate(step, n):
    total = 0.0
    for _ in tf.range(n):
        total += step
    return total


def mixed(x):
    halves = 0
    while x > 1.0:
        x = x / 2.0
        halves += 1
    return x, halves, x > 0.25


@pytest.mark.parametrize("executor", EXECUTORS)
def test_int32_multiplication_wraps_in_a_loop(executor):
    fn = tf.function(times_three, executor=executor)
    got = fn(tf.constant(7), tf.constant(40))
    want = 7
    for _ in range(40):
        want = wrap32(want * 3 + 1)
    assert got.dtype == tf.int32
    assert int(got.numpy()) == want
    assert want != 7 * 3 ** 40  # the test really crosses the limit


@pytest.mark.parametrize("executor", EXECUTORS)
def test_int32_addition_wraps_at_the_limit(executor):
    fn = tf.function(count_up, executor=executor)
    got = fn(tf.constant(2 ** 31 - 3), tf.constant(5))
    assert got.dtype == tf.int32
    assert int(got.numpy()) == wrap32(2 ** 31 - 3 + 5) == -2 ** 31 + 2


@pytest.mark.parametrize("executor", EXECUTORS)
def test_collatz_step_overflowing_int32(executor):
    fn = tf.function(collatz_steps, executor=executor)
    start = 2 ** 30 + 1  # odd: 3n + 1 leaves int32 on the first step
    n, steps = fn(tf.constant(start))
    want, count = start, 0
    while want > 1 and count < 5:
        want = wrap32(want // 2 if want % 2 == 0 else 3 * want + 1)
        count += 1
    assert (n.dtype, steps.dtype) == (tf.int32, tf.int32)
    assert (int(n.numpy()), int(steps.numpy())) == (want, count)
    assert count < 5 and want < 0  # wrapped negative, so the loop stopped early


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("value", [-7, 7, -2 ** 31, 2 ** 31 - 1])
def test_int32_floor_division_and_modulo_follow_python(executor, value):
    fn = tf.function(lambda a: (a // 2, a % 2, a // -3, a % -3), executor=executor)
    got = [int(t.numpy()) for t in fn(tf.constant(value))]
    assert got == [wrap32(value // 2), value % 2, wrap32(value // -3), value % -3]


@pytest.mark.parametrize("executor", EXECUTORS)
def test_float32_rounding_after_every_add(executor):
    fn = tf.function(accumulate, executor=executor)
    got = fn(tf.constant(0.1), tf.constant(1000))
    want = np.float32(0.0)
    for _ in range(1000):
        want = np.float32(want + np.float32(0.1))
    assert got.dtype == tf.float32
    assert got.numpy().item() == want.item()
    assert want.item() != sum([0.1] * 1000)  # float64 accumulation would differ


@pytest.mark.parametrize("executor", EXECUTORS)
def test_float32_large_plus_small_is_lost(executor):
    fn = tf.function(accumulate, executor=executor)
    got = fn(tf.constant(2.0 ** -30), tf.constant(3))
    assert got.numpy().item() == np.float32(3 * 2.0 ** -30).item()
    big = tf.function(lambda x: x + 1.0 - x, executor=executor)
    assert big(tf.constant(2.0 ** 25)).numpy().item() == 0.0  # float64 would give 1.0


@pytest.mark.parametrize("executor", EXECUTORS)
def test_result_dtypes_of_scalar_loop_state(executor):
    fn = tf.function(mixed, executor=executor)
    x, halves, flag = fn(tf.constant(10.0))
    assert (x.dtype, halves.dtype, flag.dtype) == (tf.float32, tf.int32, tf.bool)
    assert (x.numpy().item(), int(halves.numpy()), bool(flag.numpy())) == (0.625, 4, True)
    assert x.numpy().dtype == np.float32 and halves.numpy().dtype == np.int32


# -- the Python-int fast path: every wrap point at the limits ---------------------------------
# The compiled executor holds rank-0 ints as Python ints and wraps where the exact value may
# leave the range (runtime.executor.codegen). Each case below crosses a limit through one of
# its paths; the expected values come from Python ints reduced by `wrap32`/`wrap64`.

INT32_MIN, INT32_MAX = -2 ** 31, 2 ** 31 - 1


def wrap64(value):
    """Python int -> the int64 it wraps to."""
    return (value + 2 ** 63) % 2 ** 64 - 2 ** 63


def step_past(i, n, step):
    """`i < n` bounds i below n in the body; `i + step` may still leave int32 for step > 1."""
    while i < n:
        i = i + step
        n = i
    return i


def count_down(x, n):
    for _ in tf.range(n):
        x -= 1
    return x


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("step", [1, 2, 7])
def test_loop_counter_bounded_by_its_test(executor, step):
    fn = tf.function(step_past, executor=executor)
    got = fn(tf.constant(INT32_MAX - 1), tf.constant(INT32_MAX), tf.constant(step))
    assert got.dtype == tf.int32
    assert int(got.numpy()) == wrap32(INT32_MAX - 1 + step)
    const_step = tf.function(lambda i, n: step_past(i, n, step), executor=executor)
    assert int(const_step(tf.constant(INT32_MAX - 1), tf.constant(INT32_MAX)).numpy()) == \
        wrap32(INT32_MAX - 1 + step)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_int32_subtraction_wraps_below_the_minimum(executor):
    fn = tf.function(count_down, executor=executor)
    got = fn(tf.constant(INT32_MIN + 2), tf.constant(5))
    assert got.dtype == tf.int32 and int(got.numpy()) == wrap32(INT32_MIN + 2 - 5)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("value", [INT32_MIN, INT32_MIN + 1, -1, 0, INT32_MAX])
def test_int32_unary_and_division_edge_values(executor, value):
    fn = tf.function(lambda a: (a // -1, -a, ~a, a % -1, tf.maximum(a, -5), tf.minimum(a, -5),
                                a * a, (a + 1) * 2 - a),
                     executor=executor)
    got = fn(tf.constant(value))
    assert all(t.dtype == tf.int32 for t in got)
    want = [wrap32(value // -1), wrap32(-value), ~value, 0, max(value, -5), min(value, -5),
            wrap32(value * value), wrap32((wrap32(value + 1) * 2) - value)]
    assert [int(t.numpy()) for t in got] == want


@pytest.mark.parametrize("executor", EXECUTORS)
def test_int64_wraps_at_its_own_limits(executor):
    fn = tf.function(lambda a: (a * 3, a + a, a - (-a)), executor=executor)
    value = 2 ** 62 + 5
    got = fn(tf.constant(value, tf.int64))
    assert all(t.dtype == tf.int64 for t in got)
    assert [int(t.numpy()) for t in got] == [wrap64(value * 3), wrap64(2 * value),
                                             wrap64(2 * value)]


def int_meets_float(n):
    total = tf.constant(0.0)
    i = 0
    while i < n:
        total += tf.cast(i * 16777215, tf.float32)  # above 2**24: float32 rounds
        i += 1
    return total, i > 2, tf.cast(n, tf.float32)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_python_ints_meet_float32_and_bools_exactly(executor):
    fn = tf.function(int_meets_float, executor=executor)
    total, flag, as_float = fn(tf.constant(5))
    want = np.float32(0.0)
    for i in range(5):
        want = np.float32(want + np.float32(wrap32(i * 16777215)))
    assert (total.dtype, flag.dtype, as_float.dtype) == (tf.float32, tf.bool, tf.float32)
    assert total.numpy().item() == want.item() and flag.numpy().item() is True
    assert type(flag.numpy()) is np.bool_ and type(total.numpy()) is np.float32
    assert as_float.numpy().item() == 5.0


def index_with_counter(x):
    total = 0
    for i in tf.range(tf.shape(x)[0]):
        if x[i] > 2:
            total += x[i]
        else:
            total -= 1
    return total


@pytest.mark.parametrize("executor", EXECUTORS)
def test_int_elements_read_inside_a_loop_are_int32(executor):
    fn = tf.function(index_with_counter, executor=executor)
    x = np.array([1, 5, INT32_MAX, 3], np.int32)
    got = fn(tf.constant(x))
    assert got.dtype == tf.int32
    assert int(got.numpy()) == wrap32(-1 + 5 + INT32_MAX + 3)


def branch_counters(n, start):
    """Counters stepped in branches: the compiled code wraps them once, after the loop."""
    evens = start
    odds = -start
    for i in tf.range(n):
        if i % 2 == 0:
            evens += 3
        else:
            odds -= 2
    return evens, odds


def counter_in_test(start):
    """A counter the loop test reads: it must be wrapped at every step."""
    count = start
    steps = 0
    while count > 0 and steps < 4:
        count += 1
        steps += 1
    return count, steps


@pytest.mark.parametrize("executor", EXECUTORS)
def test_counters_stepped_in_branches_wrap_like_int32(executor):
    fn = tf.function(branch_counters, executor=executor)
    evens, odds = fn(tf.constant(7), tf.constant(INT32_MAX - 5))
    assert (evens.dtype, odds.dtype) == (tf.int32, tf.int32)
    assert int(evens.numpy()) == wrap32(INT32_MAX - 5 + 3 * 4)
    assert int(odds.numpy()) == wrap32(-(INT32_MAX - 5) - 2 * 3)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_counter_read_by_the_loop_test_wraps_at_every_step(executor):
    fn = tf.function(counter_in_test, executor=executor)
    count, steps = fn(tf.constant(INT32_MAX - 1))
    assert (int(count.numpy()), int(steps.numpy())) == (INT32_MIN, 2)  # stops once negative


def step_while_positive(i, n, step):
    """`i < n and ok`: where the test holds, so does i < n (it bounds i as alone)."""
    ok = True
    while i < n and ok:
        i = i + step
        ok = i > 0
    return i, ok


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("step", [1, 2])
def test_conjunction_test_bounds_the_counter_exactly(executor, step):
    fn = tf.function(lambda i, n: step_while_positive(i, n, step), executor=executor)
    i, ok = fn(tf.constant(INT32_MAX - 1), tf.constant(INT32_MAX))
    assert int(i.numpy()) == wrap32(INT32_MAX - 1 + step)
    assert bool(ok.numpy()) is (step == 1) and ok.dtype == tf.bool


# -- random int32 programs near the limits: the compiled code agrees with the interpreter ------

from hypothesis import given, settings, strategies as st  # noqa: E402

_STEPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "neg": lambda a, b: -a, "floordiv3": lambda a, b: a // 3, "mod7": lambda a, b: a % 7,
    "floordiv_m1": lambda a, b: a // -1, "max": lambda a, b: tf.maximum(a, b),
    "and": lambda a, b: a & b, "xor": lambda a, b: a ^ b, "invert": lambda a, b: ~a,
    "const_add": lambda a, b: a + 2 ** 30, "const_mul": lambda a, b: a * 65537,
}
_EDGE = st.sampled_from([INT32_MIN, INT32_MIN + 1, -2, -1, 0, 1, 2, INT32_MAX - 1, INT32_MAX])


def _program(steps, loops):
    def body(i, a, b):
        for name, swap in steps:
            a, b = (b, _STEPS[name](a, b)) if swap else (_STEPS[name](a, b), b)
        return i + 1, a, b

    def fn(a, b):
        return tf.while_loop(lambda i, a, b: i < loops, body, (0, a, b))[1:]
    return fn


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(sorted(_STEPS)), st.booleans()), min_size=1,
                      max_size=6),
       loops=st.integers(0, 3), a=_EDGE | st.integers(INT32_MIN, INT32_MAX), b=_EDGE)
def test_random_int32_loops_agree_on_both_executors(steps, loops, a, b):
    fn = _program(steps, loops)
    args = (tf.constant(a), tf.constant(b))
    with np.errstate(over="ignore"):
        want = [int(t.numpy()) for t in tf.function(fn, executor="interpreter")(*args)]
        got = tf.function(fn, executor="compiled")(*args)
    assert [int(t.numpy()) for t in got] == want
    assert all(t.dtype == tf.int32 for t in got)


# -- float32 elements read in loops as Python floats -------------------------------------------
# The compiled executor reads a float32 element in a loop from a memoryview, as a Python float,
# where every read of it is a comparison, or float32 arithmetic with a numpy float32 operand
# (runtime.executor.scalars.python_float_reader). The expected values come from plain Python
# loops on numpy float32 scalars; `same_float32` compares bits (sign of zero, nan).

F32 = np.float32
_NAN, _INF = F32(np.nan), F32(np.inf)


def same_float32(got, want):
    """Whether tensor `got` is the float32 scalar `want` (nan: any nan; zeros: same sign)."""
    value = got.numpy()
    assert got.dtype == tf.float32 and type(value) is np.float32
    if np.isnan(want):
        return bool(np.isnan(value))
    return value == want and np.signbit(value) == np.signbit(want)


def float_reads(x, bound):
    """Each read of an element meets one kind of op (where a Python float pays)."""
    total = tf.constant(0.0)
    product = tf.constant(1.0)
    alternating = tf.constant(-0.0)
    quotient = tf.constant(1.0)
    special = 0
    for i in tf.range(tf.shape(x)[0]):
        v = x[i]
        if v >= -0.0 and v < bound:  # a constant, then a numpy float32 (`and`: a cond)
            total += x[i]  # numpy + Python float, inside a branch
        product = x[i] * product  # the Python float on the left
        alternating = x[i] - alternating
        quotient = quotient / x[i]
        w = x[i]
        if w == _INF or w != w:  # inf or nan
            special += 1
        if w <= _NAN:  # never true
            special += 100
    return total, product, alternating, quotient, special


def float_reads_numpy(x, bound):
    total, product, alternating, quotient, special = F32(0), F32(1), F32(-0.0), F32(1), 0
    with np.errstate(all="ignore"):
        for v in x:
            if v >= F32(-0.0) and v < bound:
                total = total + v
            product = v * product
            alternating = v - alternating
            quotient = quotient / v
            if v == _INF or v != v:
                special += 1
            if v <= _NAN:
                special += 100
    return total, product, alternating, quotient, special


_TIE = 2.0 ** -24  # half an ulp of 1.0 in float32
FLOAT_CASES = {
    "ties_to_even": [1.0, _TIE, _TIE, _TIE],  # 1 + tie stays 1.0 (float64 would not)
    "tie_rounds_up": [1.0 + 2.0 ** -23, _TIE, 3.0],  # odd last bit: up to 1 + 2**-22
    "overflow_to_inf": [3e38, 3e38, -3e38, 0.5],  # float64 would come back to 3e38
    "products_round": [1.0 + 2.0 ** -23, 1.0 + 2.0 ** -23, 1.0 + 2.0 ** -23],
    "underflow": [1e-45, 0.5, 0.5, -1e-45],  # the smallest subnormal, halved to 0
    "specials": [-0.0, 0.0, -0.0, np.inf, 1.0, -np.inf, np.nan, 2.0],
    "zeros_divide": [-0.0, 2.0, 0.0, -3.0],
}


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("case", sorted(FLOAT_CASES))
@pytest.mark.parametrize("bound", [np.inf, 0.75])
def test_float32_elements_read_in_loops_round_like_float32(executor, case, bound):
    x = np.array(FLOAT_CASES[case], np.float32)
    fn = tf.function(float_reads, executor=executor)
    with np.errstate(all="ignore"):
        got = fn(tf.constant(x), tf.constant(bound, tf.float32))
    want = float_reads_numpy(x, F32(bound))
    assert all(same_float32(g, w) for g, w in zip(got[:4], want[:4])), (got, want)
    assert got[4].dtype == tf.int32 and int(got[4].numpy()) == want[4]


def test_float_reads_take_the_python_float_path():
    from runtime.executor import codegen
    from runtime.executor import scalars
    graph = tf.function(float_reads).get_concrete_function(
        tf.TensorSpec((None,), tf.float32), tf.TensorSpec((), tf.float32)).graph
    source = codegen.generate(graph).source
    # numpy 1.x: only the two reads that are only compared (`v`, `w`)
    reads = 6 if scalars.WEAK_PYTHON_FLOATS else 2
    assert source.count(" = x_view[i_index]") == reads and source.count(" = x[") == 6 - reads


def test_float_cases_differ_from_float64():
    # The cases really tell float32 from float64 rounding.
    assert float_reads_numpy(np.array(FLOAT_CASES["ties_to_even"], F32), F32(np.inf))[0] == 1.0
    assert sum(FLOAT_CASES["ties_to_even"]) != 1.0
    assert np.isinf(float_reads_numpy(np.array(FLOAT_CASES["overflow_to_inf"], F32),
                                      F32(np.inf))[0])
    assert np.isfinite(sum(FLOAT_CASES["overflow_to_inf"]))
    product = float_reads_numpy(np.array(FLOAT_CASES["products_round"], F32), F32(np.inf))[1]
    assert float(product) != float(np.float32(1.0 + 2.0 ** -23)) ** 3


def two_elements(x):
    """Arithmetic on two elements (or one twice): no Python float may meet another."""
    grows = 0
    doubled = tf.constant(0.0)
    for i in tf.range(tf.shape(x)[0] - 1):
        a = x[i]
        b = x[i + 1]
        if a + b > a:  # float32: 1 + 2**-24 is 1, not more
            grows += 1
        doubled += (a + a) - a  # float32: 3e38 + 3e38 is inf
        if a > 0.0:
            c = x[i + 1]
            if a * c - a > c:  # a read in a branch meets one from outside it
                grows += 10
    return grows, doubled


def two_elements_numpy(x):
    grows, doubled = 0, F32(0)
    with np.errstate(all="ignore"):
        for a, b in zip(x[:-1], x[1:]):
            if a + b > a:
                grows += 1
            doubled = doubled + ((a + a) - a)
            if a > 0.0 and a * b - a > b:
                grows += 10
    return grows, doubled


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("values", [[1.0, _TIE, 3e38, 2.0], [3e38, 1.0 + 2.0 ** -23, 2.0 ** 100,
                                                              2.0 ** 30, -1.0]])
def test_float32_elements_meeting_each_other_compute_in_float32(executor, values):
    x = np.array(values, np.float32)
    with np.errstate(all="ignore"):
        grows, doubled = tf.function(two_elements, executor=executor)(tf.constant(x))
    want_grows, want_doubled = two_elements_numpy(x)
    assert grows.dtype == tf.int32 and int(grows.numpy()) == want_grows
    assert same_float32(doubled, want_doubled)


def pair_sums(x):
    """Two elements, each read where a Python float would pay (one add, one comparison with
    a constant), meet in one sum: two Python floats would add in float64."""
    count = 0
    last = tf.constant(0.0)
    for i in tf.range(tf.shape(x)[0] - 1):
        a = x[i]
        b = x[i + 1]
        last = a + b
        if a == 0.0:
            count += 10
        if b == 0.0:
            count += 100
    return count, last


def pair_sums_numpy(x):
    count, last = 0, F32(0)
    with np.errstate(all="ignore"):
        for a, b in zip(x[:-1], x[1:]):
            last = a + b
            count += 10 * (a == 0.0) + 100 * (b == 0.0)
    return count, last


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("last", [[1.0, _TIE], [3e38, 3e38], [-0.0, -0.0], [np.nan, 1.0]])
def test_two_float32_elements_add_in_float32(executor, last):
    x = np.array([0.0, 1.0 + 2.0 ** -23, 0.0] + last, np.float32)
    with np.errstate(all="ignore"):
        count, total = tf.function(pair_sums, executor=executor)(tf.constant(x))
    want_count, want_total = pair_sums_numpy(x)
    assert count.dtype == tf.int32 and int(count.numpy()) == want_count
    assert same_float32(total, want_total)


def element_kept(x):
    """An element that leaves the loop, or meets an op other than + - * / and comparisons."""
    last = tf.constant(0.0)
    roots = tf.constant(0.0)
    for i in tf.range(tf.shape(x)[0]):
        last = x[i]
        roots += tf.sqrt(tf.maximum(x[i], 0.0))
    return last, roots, -x[0]


@pytest.mark.parametrize("executor", EXECUTORS)
def test_float32_elements_kept_or_passed_on_stay_float32(executor):
    x = np.array([2.0, 0.1, -0.0], np.float32)
    last, roots, negated = tf.function(element_kept, executor=executor)(tf.constant(x))
    want = F32(0)
    for v in x:
        want = want + np.sqrt(np.maximum(v, F32(0)))
    assert same_float32(last, F32(-0.0)) and same_float32(negated, F32(-2.0))
    assert same_float32(roots, want)


# Random float32 values: any bit pattern (subnormals, nan, inf, -0.0), or values near 1.0 whose
# sums round at ties.
_FLOAT32_BITS = st.integers(0, 2 ** 32 - 1).map(lambda b: np.array(b, np.uint32).view(F32))
_NEAR_ONE = st.integers(-8, 8).map(lambda k: F32(1.0 + k * 2.0 ** -24))
_FLOAT32 = _FLOAT32_BITS | _NEAR_ONE | st.sampled_from([F32(v) for v in (0.0, -0.0, _TIE, 3e38)])
_PROGRAMS = {}


def _float_program(fn, executor):
    key = (fn, executor)
    if key not in _PROGRAMS:  # one trace per program: the inputs keep their shape
        _PROGRAMS[key] = tf.function(fn, executor=executor)
    return _PROGRAMS[key]


@settings(max_examples=80, deadline=None)
@given(values=st.lists(_FLOAT32, min_size=4, max_size=4), bound=_FLOAT32)
def test_random_float32_elements_agree_with_numpy_float32(values, bound):
    x = np.array(values, F32)
    want = float_reads_numpy(x, bound)
    want_grows, want_doubled = two_elements_numpy(x)
    for executor in EXECUTORS:
        with np.errstate(all="ignore"):
            got = _float_program(float_reads, executor)(tf.constant(x), tf.constant(bound))
            grows, doubled = _float_program(two_elements, executor)(tf.constant(x))
        assert all(same_float32(g, w) for g, w in zip(got[:4], want[:4])), (executor, got, want)
        assert int(got[4].numpy()) == want[4] and int(grows.numpy()) == want_grows
        assert same_float32(doubled, want_doubled)
        count, total = _float_program(pair_sums, executor)(tf.constant(x))
        want_count, want_total = pair_sums_numpy(x)
        assert int(count.numpy()) == want_count and same_float32(total, want_total)
