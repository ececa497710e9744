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


# --- raise ------------------------------------------------------------------------------------

from autograph.operators import fstring  # noqa: E402 - the raise tests' imports
from autograph.operators import if_stmt  # noqa: E402
from autograph.operators import raising  # noqa: E402
from autograph.operators.exceptions import is_staged_raise  # noqa: E402


class Custom(Exception):
    """A user-defined exception class."""


def test_raising_instantiates_a_class_and_marks_it():
    error = raising(Custom)
    assert type(error) is Custom and error.args == ()
    assert is_staged_raise(error)
    instance = ValueError('x')
    assert raising(instance) is instance and is_staged_raise(instance)
    assert not is_staged_raise(ValueError('not raised by a converted raise'))
    assert raising(3) == 3  # `raise 3` then gives Python's TypeError


def _staged_if_raising(cond, make_error, log):
    """`if cond: log.append('before'); raise make_error()` with the operator, and `log`."""
    def body():
        log.append('before')
        raise raising(make_error())

    def orelse():
        log.append('else')

    if_stmt(cond, body, orelse, lambda: (), lambda _: None, (), 0)


def test_staged_raise_only_when_the_branch_runs(fake):
    log = []
    _staged_if_raising(Sym(False), lambda: Custom('never'), log)
    assert log == ['before', 'else']  # both branches staged, no error
    assert 'raise_unless' in fake.calls
    with pytest.raises(Custom) as e:
        _staged_if_raising(Sym(True), lambda: Custom('taken'), [])
    assert e.value.args == ('taken',)
    assert not is_staged_raise(e.value)  # a fresh exception, made when the check runs


def test_staged_raise_formats_staged_values_at_run_time(fake):
    n = Sym(-4)
    with pytest.raises(ValueError) as e:
        _staged_if_raising(n < 0, lambda: ValueError(fstring('n is ', (n, -1, '>3')), n), [])
    assert e.value.args == ('n is  -4', -4)


def test_staged_raise_keeps_the_cause(fake):
    def body():
        raise raising(KeyError('k')) from ValueError('cause')

    with pytest.raises(KeyError) as e:
        if_stmt(Sym(True), body, lambda: None, lambda: (), lambda _: None, (), 0)
    assert repr(e.value.__cause__) == "ValueError('cause')"
    assert e.value.__suppress_context__


def test_staged_raise_in_both_branches(fake):
    def body():
        raise raising(ValueError('if'))

    def orelse():
        raise raising(KeyError('else'))

    for cond, error in ((Sym(True), ValueError), (Sym(False), KeyError)):
        with pytest.raises(error):
            if_stmt(cond, body, orelse, lambda: (), lambda _: None, (), 0)


def test_other_errors_of_a_staged_branch_fail_the_trace(fake):
    def body():
        raise ValueError('not a converted raise: a staging error')

    with pytest.raises(ValueError):
        if_stmt(Sym(False), body, lambda: None, lambda: (), lambda _: None, (), 0)


def test_backend_without_raise_unless_raises_while_staging():
    class NoRaise(FakeBackend):
        raise_unless = Backend.raise_unless
        check_defined = Backend.check_defined

    with registered(NoRaise()):
        with pytest.raises(ValueError) as e:
            _staged_if_raising(Sym(False), lambda: ValueError('staged'), [])
    notes = getattr(e.value, '__notes__', [''])
    assert 'cannot raise it only when that code runs' in notes[0]


def test_default_raise_unless_uses_check_defined_for_constant_messages():
    class CheckOnly(FakeBackend):
        raise_unless = Backend.raise_unless

    with registered(CheckOnly()) as backend:
        _staged_if_raising(Sym(False), lambda: ValueError('constant'), [])
        assert 'check_defined' in backend.calls
        with pytest.raises(ValueError):
            _staged_if_raising(Sym(True), lambda: ValueError('constant'), [])
        n = Sym(1)
        with pytest.raises(ValueError) as e:  # a staged message: raised while staging
            _staged_if_raising(Sym(False), lambda: ValueError(fstring('n=', (n, -1, ''))), [])
        assert e.value.__notes__
