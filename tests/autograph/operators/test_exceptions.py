"""Tests for assert_stmt."""

import pytest

from autograph.errors import StagingError
from autograph.operators import assert_stmt
from autograph.backends import Backend
from tests.autograph.fake_backend import FakeBackend
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import registered


def test_python_assert_passes():
    assert assert_stmt(1, lambda: 'never') is None
    assert assert_stmt([0], None) is None


def test_python_assert_message_is_lazy():
    assert_stmt(True, lambda: 1 // 0)


def test_python_assert_failure_matches_plain_assert():
    with pytest.raises(AssertionError) as e:
        assert_stmt(0, lambda: ('message', 3))
    assert e.value.args == (('message', 3),)
    with pytest.raises(AssertionError) as e:
        assert_stmt('', None)
    assert e.value.args == ()


def test_message_must_be_callable():
    with pytest.raises(TypeError):
        assert_stmt(True, 'not callable')


def test_staged_assert(fake):
    assert_stmt(Sym(True), lambda: 'unused')
    with pytest.raises(AssertionError) as e:
        assert_stmt(Sym(False), lambda: 'x must be positive')
    assert e.value.args == ('x must be positive',)
    with pytest.raises(AssertionError) as e:
        assert_stmt(Sym(False), None)
    assert e.value.args == ()
    assert fake.calls == ['assert'] * 3


def test_staged_assert_without_hook():
    class NoAssert(FakeBackend):
        assert_ = Backend.assert_

    with registered(NoAssert()):
        with pytest.raises(StagingError):
            assert_stmt(Sym(True), None)
