"""Tests for autograph.pyct.anno."""

import gast
import pytest

from autograph.pyct import anno


def _name():
    return gast.Name('x', gast.Load(), None, None)


def test_set_get_has_del():
    node = _name()
    assert not anno.hasanno(node, 'foo')
    anno.setanno(node, 'foo', 3)
    assert anno.hasanno(node, 'foo')
    assert anno.getanno(node, 'foo') == 3
    assert anno.getanno(node, 'bar', default=7) == 7
    assert anno.keys(node) == frozenset({'foo'})
    anno.delanno(node, 'foo')
    assert not anno.hasanno(node, 'foo')
    assert anno.keys(node) == frozenset()


def test_getanno_missing_raises_with_key_and_node_type():
    with pytest.raises(KeyError, match='QN.*Name'):
        anno.getanno(_name(), anno.Basic.QN)


def test_getanno_default_none_is_returned():
    assert anno.getanno(_name(), anno.Basic.QN, default=None) is None


def test_copyanno_copies_only_present_keys():
    a, b = _name(), _name()
    anno.setanno(a, 'k', [1])
    anno.copyanno(a, b, 'k')
    anno.copyanno(a, b, 'missing')
    assert anno.getanno(b, 'k') == [1]
    assert not anno.hasanno(b, 'missing')


def test_dup_copies_recursively():
    tree = gast.parse('a + b')
    names = [n for n in gast.walk(tree) if isinstance(n, gast.Name)]
    for i, n in enumerate(names):
        anno.setanno(n, 'src', i)
    anno.dup(tree, {'src': 'dst'})
    assert [anno.getanno(n, 'dst') for n in names] == [0, 1]


def test_annotations_do_not_break_compile():
    tree = gast.parse('x = 1')
    for n in gast.walk(tree):
        anno.setanno(n, 'k', 1)
    code = compile(gast.gast_to_ast(tree), '<test>', 'exec')
    ns = {}
    exec(code, ns)
    assert ns['x'] == 1


def test_enum_values_document_keys():
    assert anno.Static.LIVE_VARS_IN.value.startswith('Symbols live when entering the node.')
    assert str(anno.Basic.QN) == 'QN'
    assert repr(anno.Static.SCOPE) == 'SCOPE'
    for key in ('SCOPE', 'ARGS_SCOPE', 'COND_SCOPE', 'BODY_SCOPE', 'ITERATE_SCOPE',
                'ORELSE_SCOPE', 'DEFINITIONS', 'DEFINED_VARS_IN',
                'DEFINED_FNS_IN', 'LIVE_VARS_IN', 'LIVE_VARS_OUT'):
        assert isinstance(getattr(anno.Static, key).value, str)
    for key in ('QN', 'EXTRA_LOOP_TEST'):
        assert isinstance(getattr(anno.Basic, key).value, str)
