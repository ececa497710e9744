"""Tests for the raise statements of converters/asserts.py."""

import pytest

import autograph as ag
from autograph.converters import asserts
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform


def f_raise(x):
    if x < 0:
        raise ValueError(f'x is {x!r:>4}', x)
    if x == 0:
        raise KeyError from ValueError('zero')
    try:
        return 10 // (x - 1)
    except ZeroDivisionError:
        raise


def test_golden():
    assert source(transform(f_raise, asserts)) == golden('''
        def f_raise(x):
            if (x < 0):
                raise ag__.raising(ValueError(ag__.fstring('x is ', (x, 114, f'>4')), x))
            if (x == 0):
                raise ag__.raising(KeyError) from ValueError('zero')
            try:
                return (10 // (x - 1))
            except ZeroDivisionError:
                raise
    ''')


@pytest.mark.parametrize('x', [-3, 0, 1, 2])
def test_python_semantics(x):
    converted = ag.convert(f_raise)
    try:
        expected = f_raise(x), None
    except Exception as e:  # noqa: BLE001 - compared below
        expected = None, e
    try:
        actual = converted(x), None
    except Exception as e:  # noqa: BLE001 - compared below
        actual = None, e
    assert actual[0] == expected[0]
    if expected[1] is not None:
        assert type(actual[1]) is type(expected[1])
        assert actual[1].args == expected[1].args
        assert repr(actual[1].__cause__) == repr(expected[1].__cause__)
        assert actual[1].__suppress_context__ == expected[1].__suppress_context__
        assert type(actual[1].__context__) is type(expected[1].__context__)


def raise_not_an_exception(x):
    raise x


def test_raising_a_non_exception_is_pythons_type_error():
    with pytest.raises(TypeError) as plain:
        raise_not_an_exception(3)
    with pytest.raises(TypeError) as converted:
        ag.convert(raise_not_an_exception)(3)
    assert converted.value.args == plain.value.args


def f_message_first(n):
    # the style linters ask for (ruff's EM102), as TheAlgorithms writes it
    if n <= 0:
        msg = f"{n}: Invalid input, please enter a positive integer."
        raise ValueError(msg)
    note = f"{n} is fine"
    total = n + 1
    return note, total


def test_golden_message_assigned_before_the_raise_is_an_fstring():
    assert source(transform(f_message_first, asserts)) == golden('''
        def f_message_first(n):
            if (n <= 0):
                msg = ag__.fstring((n, -1, ''), ': Invalid input, please enter a positive integer.')
                raise ag__.raising(ValueError(msg))
            note = f'{n} is fine'
            total = (n + 1)
            return (note, total)
    ''')


@pytest.mark.parametrize('n', [-2, 0, 3])
def test_message_assigned_before_the_raise_with_python_values(n):
    try:
        expected = f_message_first(n)
    except ValueError as e:
        with pytest.raises(ValueError) as staged:
            ag.convert(f_message_first)(n)
        assert staged.value.args == e.args and type(staged.value.args[0]) is str
    else:
        assert ag.convert(f_message_first)(n) == expected


def test_message_assigned_before_the_raise_shows_the_staged_value_when_run():
    import runtime as tf  # pylint: disable=import-outside-toplevel
    # it showed the symbolic tensor: 'Tensor("n:0", shape=(), dtype=int32): Invalid input...'
    with pytest.raises(ValueError) as staged:
        tf.function(f_message_first)(tf.constant(-2))
    assert str(staged.value) == '-2: Invalid input, please enter a positive integer.'
