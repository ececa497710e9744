"""Tests for converters/continue_statements.py."""

import autograph as ag
from autograph.converters import continue_statements
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform


def f_continue(xs):
    s = 0
    for x in xs:
        if x < 0:
            continue
        s += x
    return s


def test_golden():
    assert source(transform(f_continue, continue_statements)) == golden('''
        def f_continue(xs):
            s = 0
            for x in xs:
                continue_ = False
                if (x < 0):
                    continue_ = True
                if (not continue_):
                    s += x
            return s
    ''')


def while_continue(n):
    i = 0
    out = []
    while i < n:
        i += 1
        if i % 2:
            continue
        if i % 3 == 0:
            out.append(-i)
            continue
        out.append(i)
    return out


def test_python_semantics():
    assert ag.convert(f_continue)([1, -2, 3]) == 4
    assert ag.convert(while_continue)(10) == while_continue(10) == [2, 4, -6, 8, 10]
