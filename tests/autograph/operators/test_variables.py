"""Tests for Undefined, UndefinedReturnValue, ld and ldu."""

import sys

import pytest

from autograph.operators import Undefined
from autograph.operators import UndefinedReturnValue
from autograph.operators import ld
from autograph.operators import ldu
from autograph.operators.variables import is_undefined


def _python_unbound_message():
    def f():
        print(value)  # noqa: F821
        value = 1  # noqa: F841
    with pytest.raises(UnboundLocalError) as e:
        f()
    return str(e.value).replace("'value'", "'x'")


def test_ld_of_undefined_raises_python_message():
    with pytest.raises(UnboundLocalError) as e:
        ld(Undefined('x'))
    assert str(e.value) == _python_unbound_message()
    if sys.version_info >= (3, 11):
        expected = "cannot access local variable 'x' where it is not associated with a value"
    else:
        expected = "local variable 'x' referenced before assignment"
    assert str(e.value) == expected


def test_ld_passes_values_through():
    marker = object()
    assert ld(marker) is marker
    assert ld(None) is None
    assert ld(0) == 0


def test_ldu():
    assert ldu(lambda: 3, 'x') == 3
    for failing in (lambda: undefined_global_name_for_ldu,  # noqa: F821
                    lambda: {}['k'],
                    lambda: object().missing):
        result = ldu(failing, 'a.b')
        assert isinstance(result, Undefined) and result.symbol_name == 'a.b'


def test_ldu_lets_other_errors_through():
    with pytest.raises(ZeroDivisionError):
        ldu(lambda: 1 // 0, 'x')


def test_undefined_composite_access_stays_undefined():
    u = Undefined('a')
    assert u.b is u
    assert u[0].c is u
    assert repr(u) == 'a'
    assert u.symbol_name == 'a'


def test_is_undefined():
    assert is_undefined(Undefined('x'))
    assert is_undefined(UndefinedReturnValue())
    assert not is_undefined(None)
    assert not is_undefined(0)


def test_iterating_undefined_raises_instead_of_looping():
    with pytest.raises(UnboundLocalError):
        for _ in Undefined('xs'):
            break
