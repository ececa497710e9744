"""Tests for compare, in_, not_in, is_ and is_not on Python and staged values (the fake
backend, the runtime and JAX)."""

import itertools

import jax.numpy as jnp
import numpy as np
import pytest

import autograph as ag
import runtime as tf
from autograph.backends import jax as ag_jax
from autograph.backends.jax_values import enable_x64
from autograph.errors import StagingError
from autograph.operators import compare
from autograph.operators import in_
from autograph.operators import is_
from autograph.operators import is_not
from autograph.operators import not_in
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import SymError
from tests.autograph.fake_backend import unwrap


def _logged(value, log, name):
    def fn():
        log.append(name)
        return value
    return fn


class _Cmp:
    """An operand whose comparisons return strings (truthy or empty), as objects may."""

    def __init__(self, name):
        self.name = name

    def __lt__(self, other):
        return '' if self.name == 'x' else self.name + '<' + other.name


@pytest.mark.parametrize('a, b, c', list(itertools.product((0, 1, 2), repeat=3)))
def test_python_chain_is_python(a, b, c):
    log = []
    assert compare(a, '<', b, '<=', _logged(c, log, 'c')) is (a < b <= c)
    assert log == (['c'] if a < b else [])
    assert compare(a, '==', b, '!=', lambda: c, 'is', lambda: a) is (a == b != c is a)


def test_python_chain_returns_the_deciding_link_result():
    a, x, b = _Cmp('a'), _Cmp('x'), _Cmp('b')
    assert compare(a, '<', b, '<', lambda: a) == (a < b < a) == 'b<a'
    assert compare(x, '<', a, '<', lambda: b) == (x < a < b) == ''


def test_python_chain_with_membership_and_identity():
    for value in (1, 3, None):
        assert compare(0, '<', value or 0, 'in', lambda: (1, 2)) is (0 < (value or 0) in (1, 2))
        assert compare(value, 'is not', None, 'not in', lambda: [None]) is (
            value is not None not in [None])


@pytest.mark.parametrize('value', [1, 3, 1.0, True, 'a', None, (1,)])
@pytest.mark.parametrize('container', [(1, 2), [1, 2], {1, 2}, frozenset({2}), [], 'abc',
                                       {1: 'x'}, range(3), [(1,), 'a']])
def test_python_membership_is_python(value, container):
    try:
        expected = value in container
    except TypeError as e:
        with pytest.raises(type(e)):
            in_(value, container)
        with pytest.raises(type(e)):
            not_in(value, container)
        return
    assert in_(value, container) is expected
    assert not_in(value, container) is (not expected)


def test_staged_chain_is_a_lazy_and(fake):
    for x in (0, 1, 2, 3):
        log = []
        result = compare(1, '<=', Sym(x), '<', _logged(3, log, 'hi'))
        assert unwrap(result) == (1 <= x < 3)
        # A staged link makes the rest a staged branch: traced once whatever x is.
        assert log == ['hi']
    assert fake.calls == ['cond'] * 4


def test_staged_chain_after_a_python_false_link_stops(fake):
    log = []
    assert compare(3, '<', 1, '<', _logged(Sym(2), log, 'x')) is False
    assert log == [] and fake.calls == []


def test_staged_membership(fake):
    for x in (1, 2, 5):
        for container in ((1, 2), [1, 2, 3], {1, 2}, frozenset({5})):
            assert unwrap(in_(Sym(x), container)) == (x in container)
            assert unwrap(not_in(Sym(x), container)) == (x not in container)
    # With staged elements of the same backend too.
    assert unwrap(in_(Sym(2), [1, Sym(2)])) is True


def test_staged_membership_of_one_element_is_one_equality(fake):
    assert unwrap(in_(Sym(2), [2])) is True
    assert fake.calls == []
    assert unwrap(in_(Sym(2), (1, 2, 3))) is True
    assert fake.calls == ['cond', 'cond']


def test_staged_membership_in_an_empty_container_is_python_false(fake):
    assert in_(Sym(1), []) is False and not_in(Sym(1), ()) is True


def test_staged_membership_in_non_numbers_stays_python(fake):
    # Python's `in` runs, and raises what it raises (the Sym refuses strings, and being a bool).
    with pytest.raises(TypeError, match="cannot convert 'a'"):
        in_(Sym(1), ['a', 1])
    with pytest.raises(SymError):
        in_(1, [Sym(1), 'a'])


def test_python_number_in_a_tuple_of_staged_values(fake):
    # `0 in (n, r)` (TheAlgorithms' binomial_coefficient): `0 == n or 0 == r`, staged; Python's
    # own test asked the staged `0 == n` for a Python bool
    for n, r in ((0, 3), (3, 0), (2, 3), (0, 0)):
        assert unwrap(in_(0, (Sym(n), Sym(r)))) is (0 in (n, r))
        assert unwrap(not_in(0, [Sym(n), 1, Sym(r)])) is (0 not in (n, 1, r))
    assert fake.calls.count('cond') == 4 * (1 + 2)  # an or_ per element after the first
    # a Python value in a container of Python values stays Python's test
    assert in_(0, (1, 0)) is True and fake.calls.count('cond') == 12


def first_true_sieve(n):
    # TheAlgorithms' prime_sieve tests a staged list's element with `is True`: Python's own
    # identity test gave False for the tensor standing for True, and the sieve found no prime
    sieve = [True] * (n + 1)
    found = []
    for i in range(2, n + 1):
        if sieve[i] is True:
            found.append(i)
            for j in range(i * i, n + 1, i):
                sieve[j] = False
    return found


def identities(flag, number):
    return (flag is True, flag is not True, flag is False, True is flag, number is True,
            number is not False)


def test_identity_with_a_bool_is_read_through_ag_is():
    code = ag.to_code(identities)
    assert 'ag__.is_(flag, True)' in code and 'ag__.is_not(flag, True)' in code
    assert 'ag__.is_(True, flag)' in code


@pytest.mark.parametrize('value', [True, False, 1, 0, 1.0, None, 'True'])
def test_identity_with_a_bool_of_python_values_is_pythons(value):
    for constant in (True, False):
        assert is_(value, constant) is (value is constant)
        assert is_(constant, value) is (constant is value)
        assert is_not(value, constant) is (value is not constant)
    assert ag.convert(identities)(value, value) == identities(value, value)


def test_identity_with_a_bool_of_a_staged_value_without_the_overload_says_so(fake):
    del fake  # registered: its call_builtin has no comparisons.identical
    with pytest.raises(StagingError, match='`x is True` of a staged value'):
        is_(Sym(True), True)
    assert is_(Sym(True), None) is False  # not a bool constant: Python's own test


@pytest.mark.parametrize('executor', ['compiled', 'interpreter'])
def test_identity_with_a_bool_staged_on_the_runtime(executor):
    f = tf.function(identities, executor=executor)
    for flag, number in ((True, 1), (False, 0)):
        got = f(tf.constant(flag), tf.constant(number, tf.int64))
        assert tuple(bool(np.asarray(g)) for g in got) == identities(flag, number)
    sieve = tf.function(first_true_sieve, executor=executor)
    assert list(np.asarray(sieve(tf.constant(20, tf.int64)))) == first_true_sieve(20)


def test_identity_with_a_bool_staged_under_jax():
    with enable_x64():
        f = ag_jax.jit(identities)
        for flag, number in ((True, 1), (False, 0)):
            got = f(jnp.asarray(flag), jnp.asarray(number))
            assert tuple(bool(g) for g in got) == identities(flag, number)
