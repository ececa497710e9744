"""Tests for the builtin overloads on Python and staged values."""

import builtins
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograph.errors import StagingError
from autograph.operators import py_builtins
from tests.autograph.fake_backend import FakeBackend
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import SymError
from tests.autograph.fake_backend import SymRange
from tests.autograph.fake_backend import SymVec
from tests.autograph.fake_backend import registered
from tests.autograph.fake_backend import unwrap

OVERLOADS = {
    'abs': py_builtins.abs_, 'all': py_builtins.all_, 'any': py_builtins.any_,
    'enumerate': py_builtins.enumerate_, 'float': py_builtins.float_, 'int': py_builtins.int_,
    'len': py_builtins.len_, 'max': py_builtins.max_, 'min': py_builtins.min_,
    'print': py_builtins.print_, 'range': py_builtins.range_, 'sum': py_builtins.sum_,
    'zip': py_builtins.zip_,
}


def test_map_covers_every_overload():
    assert py_builtins.BUILTIN_FUNCTIONS_MAP == {
        getattr(builtins, name): fn for name, fn in OVERLOADS.items()}
    assert py_builtins.overload_of(len) is py_builtins.len_
    assert py_builtins.overload_of(sorted) is sorted

    class Unhashable:
        __hash__ = None

        def __call__(self):
            return 1

    obj = Unhashable()
    assert py_builtins.overload_of(obj) is obj


CALLS = [
    ('abs', (-3,), {}, 3), ('abs', (2.5,), {}, 2.5),
    ('float', (), {}, 0.0), ('float', ('1.5',), {}, 1.5),
    ('int', (), {}, 0), ('int', ('ff',), {'base': 16}, 255), ('int', (2.9,), {}, 2),
    ('len', ({'a': 1},), {}, 1),
    ('min', ([3, 1, 2],), {}, 1), ('min', (3, 1), {'key': lambda v: -v}, 3),
    ('max', ([],), {'default': 7}, 7), ('sum', ([1, 2],), {'start': 10}, 13),
    ('any', ([0, ''],), {}, False), ('all', (iter([1, 'a']),), {}, True),
]


@pytest.mark.parametrize('name, args, kwargs, expected', CALLS)
def test_python_values_match_the_builtin(name, args, kwargs, expected):
    assert OVERLOADS[name](*args, **kwargs) == expected
    assert type(OVERLOADS[name](*args, **kwargs)) is type(expected)


def test_python_iterators_match_the_builtin():
    assert py_builtins.range_(2, 10, 3) == range(2, 10, 3)
    assert list(py_builtins.enumerate_('ab', start=5)) == [(5, 'a'), (6, 'b')]
    assert list(py_builtins.zip_([1, 2, 3], 'ab')) == [(1, 'a'), (2, 'b')]


ERRORS = [
    ('int', ('x',), {}), ('len', (3,), {}), ('min', ([],), {}), ('range', (1.5,), {}),
    ('abs', ('a',), {}), ('float', (), {'x': 1}), ('zip', (1,), {}), ('sum', (['a'],), {}),
]


@pytest.mark.parametrize('name, args, kwargs', ERRORS)
def test_python_errors_match_the_builtin(name, args, kwargs):
    with pytest.raises(Exception) as expected:
        getattr(builtins, name)(*args, **kwargs)
    with pytest.raises(type(expected.value)) as actual:
        OVERLOADS[name](*args, **kwargs)
    assert str(actual.value) == str(expected.value)


@given(st.lists(st.integers(), min_size=1), st.integers())
def test_python_reductions_match_the_builtins(values, start):
    assert py_builtins.min_(values) == min(values)
    assert py_builtins.max_(*values, start) == max(*values, start)
    assert py_builtins.sum_(values, start) == sum(values, start)
    assert py_builtins.any_(values) is any(values)
    assert py_builtins.all_(values) is all(values)


def test_print_matches_builtin_print(capsys):
    buffer = io.StringIO()
    py_builtins.print_(1, 'a', [2], sep='-', end='!\n', file=buffer, flush=True)
    assert buffer.getvalue() == '1-a-[2]!\n'
    py_builtins.print_('x', None, sep=None, end=None)
    py_builtins.print_()
    assert capsys.readouterr().out == 'x None\n\n'
    # The message of a bad keyword differs between Python versions (3.13 rewords it): the
    # overload must raise exactly what this interpreter's print raises.
    with pytest.raises(TypeError) as expected:
        print('x', colour='red')  # pylint: disable=unexpected-keyword-arg
    assert 'colour' in str(expected.value)
    with pytest.raises(TypeError) as e:
        py_builtins.print_('x', colour='red')
    assert str(e.value) == str(expected.value)


def test_staged_print(fake, capsys):
    py_builtins.print_('x =', Sym(3), sep=':', end=';\n')
    py_builtins.print_(Sym(1.5))
    assert capsys.readouterr().out == 'x =:3;\n1.5\n'
    assert fake.printed == ['x =:3;\n', '1.5\n']
    assert fake.calls == ['print', 'print']


def test_staged_print_to_file_is_an_error(fake):
    with pytest.raises(StagingError) as e:
        py_builtins.print_(Sym(1), file=io.StringIO())
    assert 'staged printing writes to standard output' in str(e.value)


def test_staged_print_without_hook():
    class NoPrint(FakeBackend):
        print_ = None

    with registered(NoPrint()):
        with pytest.raises(StagingError):
            py_builtins.print_(Sym(1))


def test_staged_builtins(fake):
    vec = SymVec([3, -1, 2])
    assert unwrap(py_builtins.len_(vec)) == 3
    assert unwrap(py_builtins.abs_(Sym(-2))) == 2
    assert py_builtins.int_(Sym(2.7)).value == 2 and py_builtins.int_(Sym(2.7)).dtype == 'int32'
    assert py_builtins.float_(Sym(2)).dtype == 'float32'
    assert unwrap(py_builtins.min_(vec)) == -1 and unwrap(py_builtins.max_(vec)) == 3
    assert unwrap(py_builtins.max_(Sym(1), 4)) == 4
    assert unwrap(py_builtins.sum_(vec)) == 4
    assert unwrap(py_builtins.any_(SymVec([False, True]))) is True
    assert unwrap(py_builtins.all_(SymVec([False, True]))) is False
    staged_range = py_builtins.range_(Sym(1), 7, 2)
    assert isinstance(staged_range, SymRange) and unwrap(staged_range) == [1, 3, 5]
    assert fake.calls[0] == 'builtin:len'


def test_staged_builtin_without_overload_falls_back_to_python(fake):
    # The fake backend has no zip overload: the builtin runs and the Sym refuses iteration.
    with pytest.raises(SymError):
        py_builtins.zip_(Sym(1))


def test_backend_without_call_builtin_uses_the_values_dunders():
    class NoBuiltins(FakeBackend):
        call_builtin = None

    with registered(NoBuiltins()) as backend:
        result = py_builtins.abs_(Sym(-1))
    assert isinstance(result, Sym) and result.value == 1 and backend.calls == []


def test_staged_keyword_argument_is_seen(fake):
    # A staged value passed by keyword reaches the backend (which declines kwargs here), and the
    # builtin's own error results.
    with pytest.raises(TypeError):
        py_builtins.int_(x=Sym(1))
    assert fake.calls == ['builtin:int']
