"""Tests for converters/logical_expressions.py."""

import autograph as ag
from autograph.converters import logical_expressions
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform


def f_logic(a, b, c):
    return a and b or not c


def test_golden():
    assert source(transform(f_logic, logical_expressions)) == golden('''
        def f_logic(a, b, c):
            return ag__.or_((lambda: ag__.and_((lambda: a), (lambda: b))), (lambda: ag__.not_(c)))
    ''')


def chain(a, b, c):
    return a and b and c, a or b or c


def test_python_values_keep_operand_results():
    converted = ag.convert(chain)
    for a in (0, 1, '', 'x'):
        for b in (0, 2, None):
            for c in ([], [1]):
                assert converted(a, b, c) == chain(a, b, c)


def short_circuit(log):
    return log.append(1) and log.append(2)


def test_short_circuit():
    log = []
    assert ag.convert(short_circuit)(log) is None
    assert log == [1]
