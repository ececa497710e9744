"""Staged checks carried as values: `autograph.backends.jax.jit` raises a failed assert,
definedness check or staged raise at the failing call, as Python raises it, and later calls
are unaffected."""

import traceback

import jax
import jax.numpy as jnp
import pytest

import autograph as ag
from autograph.backends import jax as ag_jax


def positive(x):
    assert x > 0, 'x must be positive'
    return x * 2


def test_a_failing_check_raises_at_that_call_and_the_next_call_is_right(capfd):
    jitted = ag_jax.jit(positive)
    assert float(jitted(1.5)) == 3.0
    with pytest.raises(AssertionError) as info:
        jitted(-1.0)
    assert str(info.value) == 'x must be positive'  # (its note: autograph's frames removed)
    assert float(jitted(2.0)) == 4.0
    jax.effects_barrier()
    err = capfd.readouterr().err
    assert 'jax.debug.callback failed' not in err and 'Traceback' not in err
    # the traceback ends at the assert's own line, in the user's function
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert (last.filename, last.lineno, last.name) == (
        __file__, positive.__code__.co_firstlineno + 1, 'positive')
    assert last.line == "assert x > 0, 'x must be positive'"


def test_the_computation_has_no_callback():
    jaxpr = jax.make_jaxpr(ag_jax.jit(positive).jitted)(1.0)
    assert 'callback' not in str(jaxpr)


def count_up(n):
    i = 0
    while i != n:
        assert i < 10, f'i went past 10: {i}'
        i += 2
        print('i =', i)
    return i


def test_a_failing_check_in_a_loop_stops_the_loop(capfd):
    # With an odd n, the loop would never end: the failing assert stops it, as in Python.
    jitted = ag_jax.jit(count_up)
    with pytest.raises(AssertionError) as info:
        jitted(jnp.int32(5))
    assert str(info.value) == 'i went past 10: 10'
    jax.effects_barrier()
    assert capfd.readouterr().out == ''.join('i = %d\n' % i for i in range(2, 11, 2))
    assert int(jitted(jnp.int32(6))) == 6
    jax.effects_barrier()
    assert capfd.readouterr().out == 'i = 2\ni = 4\ni = 6\n'


def checked_later(x, n):
    assert n >= 0, 'n must not be negative'
    while n != 0:  # never ends for a negative n: skipped once the assert failed
        n -= 1
        x = x * 2.0
    return x


def test_loops_after_a_failed_check_do_not_run():
    jitted = ag_jax.jit(checked_later)
    with pytest.raises(AssertionError, match='n must not be negative'):
        jitted(1.0, jnp.int32(-1))
    assert float(jitted(1.0, jnp.int32(3))) == 8.0


def branch_checks(x):
    if x > 0:
        assert x < 10, f'too big: {x}'
        y = x + 1
    else:
        assert x > -10, 'too small'
        y = -x
    for i in range(3):
        assert y > i - 5, f'y={y} at {i}'
        y = y - 2.0
    return y


@pytest.mark.parametrize('x', [3.0, -3.0, 12.0, -12.0, -0.5])
def test_checks_in_branches_and_counted_loops_equal_python(x):
    try:
        expected = branch_checks(x)
    except AssertionError as e:
        with pytest.raises(AssertionError) as info:
            ag_jax.jit(branch_checks)(jnp.float32(x))
        # (pytest's assert rewriting adds lines to the plain run's message)
        assert str(info.value) == str(e).split('\n')[0]
    else:
        assert float(ag_jax.jit(branch_checks)(jnp.float32(x))) == pytest.approx(expected)


def first_defined(xs, n):
    for i in range(n):
        u = xs[i]
    return u * 2


def test_unbound_local_raises_at_that_call_only():
    jitted = ag_jax.jit(first_defined)
    xs = jnp.arange(4.0)
    assert float(jitted(xs, 2)) == 2.0
    with pytest.raises(UnboundLocalError, match="'u'"):
        jitted(xs, 0)
    assert float(jitted(xs, 3)) == 4.0


def test_a_jitted_function_inside_another_passes_its_checks_on():
    inner = ag_jax.jit(positive)

    def outer(x):
        y = inner(x)
        if y > 100:
            y = y - 1
        return y

    jitted = ag_jax.jit(outer)
    assert float(jitted(3.0)) == 6.0
    with pytest.raises(AssertionError, match='x must be positive'):
        jitted(-3.0)
    assert float(jitted(60.0)) == 119.0


def test_grad_and_vmap_of_the_jitted_function():
    jitted = ag_jax.jit(positive)
    assert float(jax.grad(jitted)(2.0)) == 2.0
    assert jax.vmap(jitted)(jnp.array([1.0, 2.0])).tolist() == [2.0, 4.0]
    with pytest.raises(AssertionError, match='x must be positive'):
        jax.grad(jitted)(-2.0)


def test_plain_jax_jit_raises_jax_runtime_error_and_later_calls_work():
    jitted = jax.jit(ag.convert(positive))
    with pytest.raises(jax.errors.JaxRuntimeError, match='x must be positive'):
        jitted(-1.0)
    assert float(jitted(1.0)) == 2.0
