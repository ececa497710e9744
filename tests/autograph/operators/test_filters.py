"""`filter(function, iterable)` in converted code: Python's lazy filter for Python values (same
elements, same calls in the same order, same errors); list(), sorted(), sum(), any(), all(),
max() and min() of it staged when the function gives a staged bool (runtime, JAX)."""
import jax.numpy as jnp
import pytest

import autograph as ag
import runtime as tf
from autograph.backends import jax as ag_jax
from autograph.backends.jax_values import enable_x64
from autograph.errors import StagingError

XS = [1, 2, 3, 4, 5, 6]


def within(xs, lo, hi):  # keon/algorithms, array/limit.py
    return list(filter(lambda x: lo <= x <= hi, xs))


def multiples(xs, m):
    keep = filter(lambda v: v % m == 0, xs)
    return sum(keep), sorted(filter(lambda v: v % m == 0, xs), reverse=True)


def extremes(xs, m):
    return (max(filter(lambda v: v % m == 0, xs), default=-1),
            min(filter(lambda v: v % m != 0, xs), default=-1),
            any(filter(lambda v: v > m, xs)), all(filter(lambda v: v > m, xs)))


def truthy(xs):
    return list(filter(None, xs))


def looped(xs, m):
    out = []
    for v in filter(lambda v: v % m == 0, xs):
        out.append(v)
    return out


def logged(xs, log):
    def keep(v):
        log.append(('keep', v))
        return v % 2

    f = filter(keep, xs)
    first = next(f)
    log.append(('first', first))
    return first, sum(f), type(f).__name__, isinstance(f, filter), repr(f)[:14]


def evens_below(n):
    return list(filter(lambda v: v % 2 == 0, range(n)))


@pytest.mark.parametrize('fn, args', [
    (within, (XS, 2, 4)), (within, ([], 2, 4)), (multiples, (XS, 2)), (multiples, (XS, 7)),
    (extremes, (XS, 2)), (extremes, (XS, 9)), (truthy, ([0, 1, 0.0, 2, None, ''],)),
    (looped, (XS, 3)), (evens_below, (7,))])
def test_python_values_give_pythons_result(fn, args):
    assert ag.convert(fn)(*args) == fn(*args)


def test_python_values_call_the_function_as_pythons_filter_does():
    plain_log, converted_log = [], []
    assert ag.convert(logged)([2, 3, 4, 5, 7], converted_log) == logged([2, 3, 4, 5, 7], plain_log)
    assert converted_log == plain_log  # lazily, element by element, around next()
    assert plain_log[:3] == [('keep', 2), ('keep', 3), ('first', 3)]


def largest_positive(xs):
    return max(filter(lambda v: v > 0, xs))


@pytest.mark.parametrize('fn, args, error', [
    (within, (XS, 'a', 4), TypeError), (multiples, (None, 2), TypeError),
    (largest_positive, ([-1, 0],), ValueError), (truthy, (5,), TypeError)])
def test_python_values_raise_pythons_errors(fn, args, error):
    with pytest.raises(error) as plain:
        fn(*args)
    with pytest.raises(error) as converted:
        ag.convert(fn)(*args)
    assert converted.value.args == plain.value.args


@pytest.mark.parametrize('executor', ['compiled', 'interpreter'])
def test_staged_on_the_runtime(executor):
    before = tf.config.x64_enabled()
    tf.config.enable_x64(True)
    try:
        f = tf.function(within, executor=executor)
        for lo, hi in [(2, 4), (5, 1), (0, 9)]:
            got = f(XS, tf.constant(lo, tf.int64), tf.constant(hi, tf.int64))
            assert got.numpy().tolist() == within(XS, lo, hi)
        g = tf.function(multiples, executor=executor)
        for m in (2, 7):
            total, ordered = g(XS, tf.constant(m, tf.int64))
            assert (total.numpy().item(), ordered.numpy().tolist()) == multiples(XS, m)
        h = tf.function(extremes, executor=executor)
        for m in (2, 9):
            assert [v.numpy().item() for v in h(XS, tf.constant(m, tf.int64))] == list(
                extremes(XS, m))
        # over a staged range: a staged loop, a list of the run-time length
        got = tf.function(evens_below, executor=executor)(tf.constant(7, tf.int64))
        assert got.numpy().tolist() == evens_below(7)
        got = tf.function(truthy, executor=executor)(tf.constant([0.0, 1.5, 0.0, -2.0]))
        assert got.numpy().tolist() == [1.5, -2.0]
        largest = tf.function(largest_positive, executor=executor)
        assert largest(tf.constant([-1.0, 2.5, 0.5])).numpy().item() == 2.5
        with pytest.raises(ValueError, match='empty'):  # Python's, when it runs
            largest(tf.constant([-1.0, -2.0]))
    finally:
        tf.config.enable_x64(before)


def test_a_staged_predicate_in_a_for_loop_says_how_to_write_it():
    with pytest.raises(StagingError) as error:
        tf.function(looped)(XS, tf.constant(3))
    message = str(error.value)
    assert 'filter(<lambda>, ...) in looped at ' in message and 'test_filters.py' in message
    assert 'list(filter(...))' in message


def test_staged_under_jax_bounded_by_the_python_list():
    with enable_x64():
        f = ag_jax.jit(lambda lo, hi: within(XS, lo, hi))
        for lo, hi in [(2, 4), (5, 1), (0, 9)]:
            assert f(jnp.asarray(lo), jnp.asarray(hi)).tolist() == within(XS, lo, hi)
        total, ordered = ag_jax.jit(lambda m: multiples(XS, m))(jnp.asarray(2))
        assert (int(total), ordered.tolist()) == multiples(XS, 2)
        # over a traced range nothing bounds the list: JAX's error says how to bound it
        with pytest.raises(StagingError, match='set_list_options'):
            ag_jax.jit(evens_below)(jnp.asarray(7))
