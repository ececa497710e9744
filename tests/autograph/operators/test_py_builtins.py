"""Tests for the builtin overloads on Python and staged values."""

import builtins
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

import autograph
from autograph.errors import StagingError
from autograph.operators import filters
from autograph.operators import py_builtins
from autograph.operators import staged_loops
from autograph.backends import Backend
from tests.autograph.fake_backend import FakeBackend
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import SymRange
from tests.autograph.fake_backend import SymVec
from tests.autograph.fake_backend import registered
from tests.autograph.fake_backend import unwrap

OVERLOADS = {
    'abs': py_builtins.abs_, 'all': py_builtins.all_, 'any': py_builtins.any_,
    'enumerate': py_builtins.enumerate_, 'filter': filters.filter_, 'float': py_builtins.float_, 'int': py_builtins.int_,
    'len': py_builtins.len_, 'max': py_builtins.max_, 'min': py_builtins.min_,
    'print': py_builtins.print_, 'range': py_builtins.range_, 'sum': py_builtins.sum_,
    'zip': py_builtins.zip_,
}


def test_map_covers_every_overload():
    numeric = {f: py_builtins.BUILTIN_FUNCTIONS_MAP[f] for f in py_builtins.NUMERIC_FUNCTIONS}
    assert py_builtins.BUILTIN_FUNCTIONS_MAP == {
        **{getattr(builtins, name): fn for name, fn in OVERLOADS.items()},
        builtins.str: py_builtins.str_, builtins.isinstance: py_builtins.isinstance_, **numeric}
    assert all(fn.__name__ == f.__name__ + '_' for f, fn in numeric.items())
    assert py_builtins.overload_of(len) is py_builtins.len_
    assert py_builtins.overload_of(sorted).__name__ == "sorted_"  # a staged list's sorted()
    assert py_builtins.overload_of(reversed) is reversed

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
        print_ = Backend.print_

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


def test_staged_zip_over_a_value_the_backend_cannot_iterate(fake):
    # zip of a staged value is what a staged loop iterates; the fake backend cannot iterate a
    # scalar Sym, and says so (the builtin would have failed inside the Sym instead).
    with pytest.raises(StagingError) as e:
        py_builtins.zip_(Sym(1))
    assert "backend 'fake' cannot iterate over Sym(1, int32)" in str(e.value)


def test_backend_without_call_builtin_uses_the_values_dunders():
    class NoBuiltins(FakeBackend):
        call_builtin = Backend.call_builtin

    with registered(NoBuiltins()) as backend:
        result = py_builtins.abs_(Sym(-1))
    assert isinstance(result, Sym) and result.value == 1 and backend.calls == []


def test_staged_keyword_argument_is_seen(fake):
    # A staged value passed by keyword reaches the backend (which declines kwargs here), and the
    # builtin's own error results.
    with pytest.raises(TypeError):
        py_builtins.int_(x=Sym(1))
    assert fake.calls == ['builtin:int']


# enumerate and zip of staged values, iterated by staged for loops.

def _weighted(xs, ys):
    total = 0
    for i, x in enumerate(xs):
        total = total + i * x
    for k, x in enumerate(xs, 10):
        total = total + k - x
    for x, y in zip(xs, ys):
        total = total + x * y
    for i, (x, y) in enumerate(zip(ys, xs)):
        total = total + i * (x - y)
    return total


@pytest.mark.parametrize('xs, ys', [([1, 2, 3], [4, 5, 6, 7]), ([5, 1], [2]), ([], [3])])
def test_enumerate_and_zip_in_staged_loops(xs, ys):
    expected = _weighted(xs, ys)
    converted = autograph.convert(_weighted)
    assert converted(xs, ys) == expected
    with registered() as backend:
        result = converted(SymVec(xs, 'int32'), SymVec(ys, 'int32'))
    assert unwrap(result) == expected
    assert backend.calls.count('while_loop') == 4


def test_staged_enumerate_and_zip_values(fake):
    xs, ys = SymVec([7, 8, 9]), SymVec([1, 2])
    sequence = py_builtins.enumerate_(xs, start=Sym(2))
    assert isinstance(sequence, staged_loops.StagedSequence) and unwrap(sequence.length) == 3
    assert unwrap(sequence.getitem(Sym(1))) == (3, 8)
    pairs = py_builtins.zip_(xs, ys)
    assert pairs.length.value == 2 and unwrap(pairs.getitem(Sym(1))) == (8, 2)
    assert fake.calls == ['builtin:min']  # the lengths are staged: min goes to the backend


def test_staged_sequence_iterated_in_python_is_an_error(fake):
    with pytest.raises(TypeError) as e:
        list(py_builtins.zip_(SymVec([1])))
    assert str(e.value) == (
        'zip() of a staged value can only be iterated by a for loop in converted code: its '
        'length is known only when the staged computation runs. Iterate over it with a for '
        'loop, or use a staged loop (tf.while_loop).')


def test_zip_of_staged_and_python_values_is_an_error(fake):
    with pytest.raises(StagingError) as e:
        py_builtins.zip_(SymVec([1]), [1, 2])
    assert str(e.value) == (
        'zip() of staged values and a Python list (argument 2) cannot be staged: the staged '
        'loop index cannot index a Python value. Convert it to a staged value (e.g. '
        'tf.constant) or zip only staged values.')
    with pytest.raises(StagingError) as e:
        py_builtins.zip_(SymVec([1]), strict=True)
    assert str(e.value) == (
        'zip(strict=...) of staged values is not supported: the lengths of staged values are '
        'known only when the staged computation runs. Drop the keyword arguments.')


def test_enumerate_keeps_python_errors(fake):
    with pytest.raises(TypeError) as e:
        py_builtins.enumerate_()
    with pytest.raises(TypeError) as expected:
        enumerate()
    assert str(e.value) == str(expected.value)


@pytest.mark.parametrize('items', [(True, True), (True, False), (False, False)])
@pytest.mark.parametrize('python', [(), (1,), (0,), (1, 'a')])
def test_all_and_any_of_a_tuple_holding_staged_values(fake, items, python):
    # TheAlgorithms' geometric_series: `if not all((nth_term, start_term_a, common_ratio_r))`;
    # the builtin asked each staged item for a Python bool
    values = tuple(Sym(v, 'bool') for v in items) + python
    plain = items + python
    for builtin, overload in ((all, py_builtins.all_), (any, py_builtins.any_)):
        assert unwrap(overload(values)) is builtin(plain)
        assert unwrap(overload(list(values))) is builtin(plain)
    assert py_builtins.all_((1, 'a')) is True and py_builtins.any_([0, '']) is False


def test_all_of_a_tuple_decided_by_a_python_item_stages_nothing(fake):
    assert py_builtins.all_((Sym(True, 'bool'), 0)) is False
    assert py_builtins.any_([Sym(False, 'bool'), 'x']) is True
    assert fake.calls == []
