"""Tests for compare, in_ and not_in on Python and staged values."""

import itertools

import pytest

from autograph.operators import compare
from autograph.operators import in_
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
        in_(1, [Sym(1)])
