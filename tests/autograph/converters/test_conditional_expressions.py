"""Tests for converters/conditional_expressions.py."""

import autograph as ag
from autograph.converters import conditional_expressions
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform
from tests.autograph.fake_backend import Sym


def f_ifexp(x):
    return 1 if x > 0 else -1


def test_golden():
    assert source(transform(f_ifexp, conditional_expressions)) == golden('''
        def f_ifexp(x):
            return ag__.if_exp((x > 0), (lambda: 1), (lambda: (- 1)), 'x > 0')
    ''')


def lazy(x, log):
    return log.append('a') or 'a' if x else log.append('b') or 'b'


def test_only_the_taken_branch_runs():
    log = []
    assert ag.convert(lazy)(True, log) == 'a'
    assert ag.convert(lazy)(False, log) == 'b'
    assert log == ['a', 'b']


def test_staged_condition(fake):
    result = ag.convert(f_ifexp)(Sym(-3))
    assert result.value == -1 and fake.calls == ['cond']
