"""Scalar state in staged loops keeps int32/float32 semantics exactly, on both executors.

These pin what any fast path (Python scalars, peephole rewrites, in-place buffers) must keep:
int32 wrap-around at the limits, float32 rounding after every operation, and result dtypes.
The expected values are worked out independently of the runtime: int32 by Python ints reduced
modulo 2**32, float32 by numpy float32 scalars.
"""
import numpy as np
import pytest

import runtime as tf

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
