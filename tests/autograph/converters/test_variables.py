"""Tests for converters/variables.py."""

import pytest

import autograph as ag
from autograph.converters import control_flow
from autograph.converters import functions
from autograph.converters import variables
from tests.autograph.converters.conftest import ANALYSE
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform


def f_var(c):
    if c:
        x = 1
    x += 1
    return x


def test_golden_only_possibly_undefined_names_are_checked():
    node = transform(f_var, functions, ANALYSE, control_flow, variables)
    assert source(node) == golden('''
        def tf__f_var(c):
            with ag__.FunctionScope('f_var', 'fscope') as fscope:

                def get_state():
                    return (x,)

                def set_state(vars_):
                    nonlocal x
                    (x,) = vars_

                def if_body():
                    nonlocal x
                    x = 1

                def else_body():
                    nonlocal x
                    pass
                x = ag__.Undefined('x')
                ag__.if_stmt(c, if_body, else_body, get_state, set_state, ('x',), 1)
                x = ag__.ld(x)
                x += 1
                return ag__.ld(x)
    ''')


def test_augmented_assignment_of_undefined_raises_unbound_local_error():
    assert ag.convert(f_var)(True) == 2
    with pytest.raises(UnboundLocalError) as converted_info:
        ag.convert(f_var)(False)
    with pytest.raises(UnboundLocalError) as original_info:
        f_var(False)
    assert str(converted_info.value) == str(original_info.value)
    assert "'x'" in str(original_info.value)
