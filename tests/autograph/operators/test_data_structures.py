"""Tests for list_append and list_pop."""

import collections

import pytest

from autograph.errors import StagingError
from autograph.operators import list_append
from autograph.operators import list_pop
from tests.autograph.fake_backend import FakeBackend
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
        list_append = None

    with registered(NoLists()):
        with pytest.raises(StagingError) as e:
            list_append(SymArray('int32'), 1)
    assert 'has no `list_append` hook' in str(e.value)
