"""Tests for converters/asserts.py."""

import pytest

import autograph as ag
from autograph.converters import asserts
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform


def f_assert(x):
    assert x > 0, 'x is %d' % x
    assert x


def test_golden():
    assert source(transform(f_assert, asserts)) == golden('''
        def f_assert(x):
            ag__.assert_stmt((x > 0), (lambda: ('x is %d' % x)))
            ag__.assert_stmt(x, None)
    ''')


def test_python_semantics():
    converted = ag.convert(f_assert)
    assert converted(3) is None
    with pytest.raises(AssertionError) as info:
        converted(-2)
    assert info.value.args == ('x is -2',)


def no_message(x):
    assert x


def test_assert_without_message_has_no_args():
    with pytest.raises(AssertionError) as info:
        ag.convert(no_message)(0)
    assert info.value.args == ()
