"""Tests for and_, or_, not_ on Python and staged values."""

import pytest

from autograph.errors import StagingError
from autograph.operators import and_
from autograph.operators import not_
from autograph.operators import or_
from autograph.backends import Backend
from tests.autograph.fake_backend import FakeBackend
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import registered
from tests.autograph.fake_backend import unwrap


def _logged(value, log, name):
    def fn():
        log.append(name)
        return value
    return fn


@pytest.mark.parametrize('a, b', [(0, 5), (3, 5), ('', 'x'), ('y', ''), ([], None),
                                  (None, 0), ([1], [2])])
def test_python_operands_are_returned_like_python(a, b):
    log = []
    assert and_(_logged(a, log, 'a'), _logged(b, log, 'b')) is (a and b)
    assert log == (['a', 'b'] if a else ['a'])
    log = []
    assert or_(_logged(a, log, 'a'), _logged(b, log, 'b')) is (a or b)
    assert log == (['a'] if a else ['a', 'b'])
    assert not_(a) is (not a)


def test_right_operand_not_evaluated_when_short_circuited():
    def boom():
        raise AssertionError('evaluated')

    assert and_(lambda: False, boom) is False
    assert or_(lambda: True, boom) is True


def test_staged_and_or(fake):
    for a in (True, False):
        for b in (True, False):
            assert unwrap(and_(lambda: Sym(a), lambda: Sym(b))) == (a and b)
            assert unwrap(or_(lambda: Sym(a), lambda: Sym(b))) == (a or b)
    assert fake.calls == ['cond'] * 8


def test_staged_and_with_python_right_operand(fake):
    result = and_(lambda: Sym(True), lambda: False)
    assert isinstance(result, Sym) and result.value is False


def test_staged_not(fake):
    assert unwrap(not_(Sym(True))) is False
    assert unwrap(not_(Sym(False))) is True
    assert fake.calls == ['logical_not', 'logical_not']


def test_staged_not_without_hook_is_a_cond():
    class NoNot(FakeBackend):
        logical_not = Backend.logical_not

    with registered(NoNot()) as backend:
        assert unwrap(not_(Sym(True))) is False
        assert unwrap(not_(Sym(False))) is True
    assert backend.calls == ['cond', 'cond']
