"""Tests for converters/call_trees.py."""

import autograph as ag
from autograph.converters import call_trees
from autograph.converters import functions
from autograph.pyct import gast_util
from autograph.pyct import naming
from autograph.pyct import parser
from autograph.pyct import transformer
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


def _hand_built(marked):
    """`def f(x): return ag__.foo(x)` built by hand, run through call_trees; its `ag__` is a
    plain name, or one marked as generated."""
    node = parser.parse('def f(x):\n    return ag__.foo(x)')
    if marked:
        node.body[0].value.func.value = gast_util.generated_name('ag__')
    ctx = transformer.EntityInfo('f', '<test>', naming.Namer.for_tree(node))
    return source(call_trees.transform(functions.transform(node, ctx), ctx))


def test_a_generated_call_is_recognised_by_its_mark_not_its_name():
    assert _hand_built(marked=False) == golden('''
        def tf__f(x):
            with ag__.FunctionScope('f', 'fscope') as fscope:
                return ag__.converted_call(ag__.foo, (x,), None, fscope)
    ''')
    assert _hand_built(marked=True) == golden('''
        def tf__f(x):
            with ag__.FunctionScope('f', 'fscope') as fscope:
                return ag__.foo(x)
    ''')
