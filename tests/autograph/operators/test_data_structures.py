"""Tests for list_append and list_pop."""

import collections

import pytest

import autograph
from autograph.errors import StagingError
from autograph.operators import list_append
from autograph.operators import list_pop
from autograph.backends import Backend
from tests.autograph.fake_backend import FakeBackend
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import SymArray
from tests.autograph.fake_backend import registered
from tests.autograph.fake_backend import unwrap


def test_python_append_in_place():
    target = [1]
    assert list_append(target, 2) is target
    assert target == [1, 2]
    queue = collections.deque()
    assert list_append(queue, 'a') is queue and list(queue) == ['a']


def test_python_pop():
    target = [1, 2, 3]
    assert list_pop(target) == (target, 3)
    assert list_pop(target, 0) == (target, 1)
    assert target == [2]
    with pytest.raises(IndexError):
        list_pop([])
    with pytest.raises(AttributeError):
        list_append(3, 1)


def test_staged_append_and_pop(fake):
    array = SymArray('int32')
    array = list_append(array, 4)
    array = list_append(array, 5)
    assert unwrap(array) == [4, 5]
    array, last = list_pop(array)
    assert unwrap(last) == 5 and unwrap(array) == [4]
    assert fake.calls == ['list_append', 'list_append', 'list_pop']


def test_staged_append_without_hook():
    class NoLists(FakeBackend):
        list_append = Backend.list_append

    with registered(NoLists()):
        with pytest.raises(StagingError) as e:
            list_append(SymArray('int32'), 1)
    assert 'does not override `list_append` of autograph.Backend' in str(e.value)


# Lists carried by staged loops: converted functions run with Python and with staged values.

def _doubles(n):
    l = []
    for i in range(n):
        l.append(i * 2)
    return l


def _drain(n):
    l = [1, 2, 3, 4]
    total = 0
    while n > 0:
        x = l.pop()
        total = total + x
        n = n - 1
    l.append(total)
    return l


def _triangle(n):
    l = []
    for i in range(n):
        for j in range(i):
            l.append(i * 10 + j)
    return l


def _fibonacci_pair(n):
    pair = [0, 1]  # a list loop variable that is rebuilt, never appended to: stays a list
    for _ in range(n):
        pair = [pair[1], pair[0] + pair[1]]
    return pair


def _append_in_try(n):
    l = []
    for i in range(n):
        try:
            l.append(i)
        except Exception:  # must not swallow the restaging signal
            l = [-1]
    return l


@pytest.mark.parametrize('fn, n', [(_doubles, 3), (_doubles, 0), (_drain, 3), (_triangle, 4),
                                   (_append_in_try, 3)],
                         ids=lambda v: getattr(v, '__name__', str(v)))
def test_list_changed_in_staged_loop_becomes_staged(fn, n):
    expected = fn(n)
    converted = autograph.convert(fn)
    assert converted(n) == expected
    with registered() as backend:
        result = converted(Sym(n))
    assert isinstance(result, SymArray) and unwrap(result) == expected
    assert backend.calls.count('new_list') == 1


def test_list_loop_variable_that_is_rebuilt_stays_a_python_list():
    converted = autograph.convert(_fibonacci_pair)
    with registered() as backend:
        result = converted(Sym(5))
    assert type(result) is list and unwrap(result) == _fibonacci_pair(5) == [5, 8]
    assert 'new_list' not in backend.calls


def test_list_of_an_enclosing_scope_is_appended_in_place(fake):
    log = []

    def log_steps(n):
        for i in range(n):
            log.append(i)
        return n

    autograph.convert(log_steps)(Sym(3))
    # `log` is not a local variable, so it is not a loop variable: the fake backend runs the
    # staged body once per iteration, and each run appends to the Python list.
    assert unwrap(log) == [0, 1, 2] and 'new_list' not in fake.calls


def test_list_argument_changed_in_staged_loop_is_not_mutated(fake):
    def log_steps(n, log):
        for i in range(n):
            log.append(i)
        return log

    log = []
    result = autograph.convert(log_steps)(Sym(3), log)
    # The local variable `log` becomes a staged list; the caller's Python list cannot hold
    # the staged elements and is left as it was (documented limitation).
    assert log == [] and unwrap(result) == [0, 1, 2]


def _pop_first(n):
    l = []
    for _ in range(n):
        l.pop()
    return l


def test_pop_from_list_empty_on_entry_is_an_error(fake):
    with pytest.raises(StagingError) as e:
        autograph.convert(_pop_first)(Sym(2))
    assert str(e.value).startswith(
        "'l' is an empty list on entry to a staged loop that pops from it before appending: a "
        'list that a staged loop changes becomes a staged list, whose element type must be '
        "known on entry. Append to 'l' before popping, or fill it before the loop.")


def test_backend_without_new_list_hook():
    class NoNewList(FakeBackend):
        new_list = Backend.new_list

    with registered(NoNewList()):
        with pytest.raises(StagingError) as e:
            autograph.convert(_doubles)(Sym(2))
    assert str(e.value).startswith(
        "backend 'fake' does not support the list 'l' changed in a staged loop or branch: it does not "
        'override `new_list` of autograph.Backend.')
