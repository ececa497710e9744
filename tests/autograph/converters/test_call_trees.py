"""Tests for converters/call_trees.py."""

import autograph as ag
from autograph.converters import call_trees
from autograph.converters import functions
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform


class Base(object):

    def m(self, x, *a, **k):
        return x + len(a) + len(k)


class Derived(Base):

    def m(self, x, *a, **k):
        return super().m(x, *a) + len(a)


def test_golden():
    assert source(transform(Derived.m, functions, call_trees)) == golden('''
        def tf__m(self, x, *a, **k):
            with ag__.FunctionScope('m', 'fscope') as fscope:
                return (ag__.converted_call(super(__class__, self).m, (x, *a), None, fscope) + ag__.converted_call(len, (a,), None, fscope))
    ''')


def keywords(f, a, k):
    return f(*a, k=1, **k)


def test_keywords_golden():
    assert source(transform(keywords, functions, call_trees)) == golden('''
        def tf__keywords(f, a, k):
            with ag__.FunctionScope('keywords', 'fscope') as fscope:
                return ag__.converted_call(f, (*a,), {'k': 1, **k}, fscope)
    ''')
    assert ag.convert(keywords)(dict, (), {'z': 2}) == {'k': 1, 'z': 2}


def test_super_without_arguments_keeps_working():
    d = Derived()
    assert ag.convert(d.m)(1, 2, z=3) == d.m(1, 2, z=3) == 1 + 1 + 0 + 1


def calls_nested(n):
    def square(v):
        if v < 0:
            return -v * v
        return v * v
    return [square(i) for i in range(-n, n)]


def test_nested_calls_are_converted():
    assert ag.convert(calls_nested)(2) == [-4, -1, 0, 1]


def frame_sensitive(x):
    y = x + 1
    return sorted(locals())


def test_locals_is_called_in_place_not_through_converted_call():
    node = transform(frame_sensitive, functions, call_trees)
    assert 'sorted(locals())' not in source(node)
    assert 'ag__.converted_call(sorted, (locals(),), None, fscope)' in source(node)
