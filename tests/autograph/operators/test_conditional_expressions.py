"""Tests for if_exp on Python and staged conditions."""

import pytest

from autograph.errors import UndefinedVariableError
from autograph.operators import BranchVariableError
from autograph.operators import Undefined
from autograph.operators import if_exp
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import unwrap


def test_python_condition_evaluates_one_side():
    log = []
    assert if_exp(1, lambda: log.append('t') or 't', lambda: log.append('f') or 'f', 'e') == 't'
    assert if_exp([], lambda: log.append('t') or 't', lambda: log.append('f') or 'f', 'e') == 'f'
    assert log == ['t', 'f']


def test_staged_condition(fake):
    assert unwrap(if_exp(Sym(True), lambda: Sym(1), lambda: Sym(2), '1 if c else 2')) == 1
    assert unwrap(if_exp(Sym(False), lambda: Sym(1), lambda: 2, '1 if c else 2')) == 2
    assert unwrap(if_exp(Sym(False), lambda: (Sym(1), Sym(2.0)), lambda: (Sym(3), Sym(4.0)),
                         'e')) == (3, 4.0)
    assert fake.calls == ['cond'] * 3


def test_staged_type_mismatch_names_the_expression(fake):
    with pytest.raises(BranchVariableError) as e:
        if_exp(Sym(True), lambda: Sym(1), lambda: Sym(2.0), 'a if c else b')
    assert str(e.value).startswith(
        "'a if c else b' has type int32 in the if branch, but type float32 in the else branch")


def test_staged_undefined_value(fake):
    with pytest.raises(UndefinedVariableError) as e:
        if_exp(Sym(True), lambda: Sym(1), lambda: Undefined('b'), 'a if c else b')
    assert str(e.value).startswith("'a if c else b' must also be initialized in the else branch")
