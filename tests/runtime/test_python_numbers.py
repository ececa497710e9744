"""Python numbers that staged control flow carries by themselves: floats are float64 (Python's
float is a double), ints int32 (int64 with runtime.config.enable_x64), each adopting the dtype
of a tensor it meets; round(x, n) rounds the exact decimal value as Python does."""
import math
import random

import jax.numpy as jnp
import numpy as np
import pytest

import runtime as tf
from autograph.backends import jax as ag_jax
from autograph.backends.jax_values import enable_x64
from tests.realcode.roots_search import golden_section_min

EXECUTORS = ["compiled", "interpreter"]


def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def total_of(x):
    total = 0.0
    for v in x:
        total += v
    return total


def scaled(p, x):
    r = 0.5 if p > 0 else 1.5
    return r * x


def tenths(n):
    x = 0.1
    for _ in range(n):
        x = x + 0.1
    return x


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_float_loop_halved_by_a_staged_if_converges_bit_for_bit(executor):
    # In float32 `hi - lo` never gets under 1e-8 near 2 (the loop would not end).
    staged = tf.function(golden_section_min, executor=executor)
    assert staged(tf.constant(2.0, tf.float64)).numpy().item() == golden_section_min(2.0)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_python_floats_carried_alone_are_doubles(executor):
    got = tf.function(tenths, executor=executor)(tf.constant(9))
    assert got.dtype is tf.float64 and got.numpy().item() == tenths(9)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_python_number_adopts_the_dtype_of_the_tensor_it_meets(executor):
    x = tf.constant([0.1, 0.2, 0.3])
    got = tf.function(total_of, executor=executor)(x)
    assert got.dtype is tf.float32
    assert got.numpy().item() == np.float32(np.float32(np.float32(0.1) + np.float32(0.2))
                                            + np.float32(0.3)).item()
    got = tf.function(scaled, executor=executor)(tf.constant(1), x)
    assert got.dtype is tf.float32 and got.numpy().tolist() == (np.float32(0.5) * x.numpy()).tolist()


@pytest.mark.parametrize("executor", EXECUTORS)
def test_python_ints_carried_alone_are_int32_unless_x64_is_enabled(executor):
    assert tf.function(fibonacci, executor=executor)(tf.constant(10)).dtype is tf.int32
    assert not tf.config.x64_enabled()
    tf.config.enable_x64(True)
    try:
        got = tf.function(fibonacci, executor=executor)(tf.constant(50))
    finally:
        tf.config.enable_x64(False)
    assert got.dtype is tf.int64 and got.numpy().item() == fibonacci(50) == 12586269025
    with pytest.raises(TypeError, match="enable_x64 expected a Python bool, found int: 1"):
        tf.config.enable_x64(1)


def _decimals():
    rng = random.Random(20261127)
    values = [2.675, -2.675, 1.005, 0.125, 0.375, 2.5, -0.5, 1e300, 1e-300, float("inf"),
              -float("inf")]
    for _ in range(2000):
        value = round(rng.uniform(-1000, 1000), rng.randint(1, 6))
        values.append(value + rng.choice([0.0, 5e-7, -5e-7]))
    return values


def _same(expected, got):
    return [e for e, g in zip(expected, got) if not (e == g or (math.isnan(e) and math.isnan(g)))]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("ndigits", [0, 1, 2, 3])
def test_round_to_digits_is_pythons_on_the_runtime(executor, ndigits):
    values = _decimals()
    got = tf.function(lambda x: round(x, ndigits), executor=executor)(
        tf.constant(values, tf.float64)).numpy().tolist()
    assert round(2.675, 2) == 2.67 and np.round(2.675, 2) == 2.68  # numpy's differs
    assert not _same([round(v, ndigits) for v in values], got)


@pytest.mark.parametrize("ndigits", [1, 2, 3])
def test_round_to_digits_is_pythons_under_jax(ndigits):
    values = _decimals()
    with enable_x64():
        got = ag_jax.jit(lambda x: round(x, ndigits))(jnp.asarray(values)).tolist()
        scalar = ag_jax.jit(lambda x: round(x, 2))(jnp.asarray(2.675)).item()
    assert not _same([round(v, ndigits) for v in values], got)
    assert scalar == 2.67


@pytest.mark.parametrize("executor", EXECUTORS)
def test_round_to_a_staged_number_of_digits_is_pythons(executor):
    fn = tf.function(lambda x, n: round(x, n), executor=executor)
    for x, n in [(2.675, 2), (1.005, 2), (0.125, 2), (1234.5, -2), (2.5, 0), (1.5, 30)]:
        got = fn(tf.constant(x, tf.float64), tf.constant(n)).numpy().item()
        assert got == round(x, n), (x, n)
    with enable_x64():
        jitted = ag_jax.jit(lambda x, n: round(x, n))
        got = [jitted(jnp.asarray(x), jnp.asarray(n)).item()
               for x, n in [(2.675, 2), (1234.5, -2), (1.5, 30)]]
    assert got == [2.67, 1200.0, 1.5]


def checked_factorial(n):
    if not isinstance(n, int):
        raise TypeError("factorial() only accepts integers")
    result = 1
    for i in range(2, n + 1):
        result *= i
    return result


def test_an_isinstance_guard_that_raises_while_tracing_says_why():
    # isinstance(tensor, int) stays False, as in TensorFlow and JAX; the error gets a note.
    assert checked_factorial(5) == tf.function(checked_factorial)(5).numpy() == 120
    line = checked_factorial.__code__.co_firstlineno + 1
    for run in (lambda: tf.function(checked_factorial)(tf.constant(5)),
                lambda: ag_jax.jit(checked_factorial)(jnp.asarray(5))):
        with pytest.raises(TypeError, match="only accepts integers") as error:
            run()
        assert error.value.__notes__[0].startswith(
            "Note: isinstance(..., int) at test_python_numbers.py:%d was False because the "
            "value is staged: while tracing, a tensor stands for the number" % line)
    with pytest.raises(ZeroDivisionError) as error:  # a guard that is True adds nothing
        tf.function(lambda n: isinstance(n, tf.Tensor) and 1 / 0)(tf.constant(1))
    assert not [n for n in getattr(error.value, "__notes__", []) if "isinstance" in n]


def quarter_until_odd(number):
    while number > 0 and number % 4 == 0:
        number /= 4  # Python's `number` becomes a float
    return number


@pytest.mark.parametrize("executor", EXECUTORS)
def test_an_int_loop_variable_that_the_body_makes_a_float_is_a_float(executor):
    f = tf.function(quarter_until_odd, executor=executor)
    for n in (64, 48, 7, 0):
        staged = f(tf.constant(n, tf.int64))
        assert staged.dtype == tf.float64  # the float of the int when no iteration runs
        assert staged.numpy() == quarter_until_odd(n)  # 1.0, 3.0, 7, 0
    # tf.while_loop keeps TensorFlow's fixed dtypes
    with pytest.raises(TypeError, match="changes the dtype"):
        tf.function(lambda x: tf.while_loop(lambda v: v < 3, lambda v: (v / 2,), (x,)))(
            tf.constant(1))
