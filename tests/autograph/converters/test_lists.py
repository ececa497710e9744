"""Tests for converters/lists.py."""

import autograph as ag
from autograph.converters import lists
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform

g_list = []


def f_lists(n):
    l = []
    l.append(n)
    g_list.append(n)
    x = l.pop()
    l.pop(0) if l else None
    return x


def test_golden_only_local_lists_are_rebound():
    assert source(transform(f_lists, lists)) == golden('''
        def f_lists(n):
            l = []
            l = ag__.list_append(l, n)
            g_list.append(n)
            (l, x) = ag__.list_pop(l, None)
            (l.pop(0) if l else None)
            return x
    ''')


def test_python_semantics():
    del g_list[:]
    assert ag.convert(f_lists)(7) == 7
    assert g_list == [7]


def loop_append(n):
    out = []
    for i in range(n):
        out.append(i * i)
        if i % 2:
            out.pop()
    return out


def test_append_pop_in_loop():
    assert ag.convert(loop_append)(6) == [0, 4, 16]
