"""Tests for autograph.pyct.qual_names."""

import ast
import textwrap

import gast
import pytest

from autograph.pyct import anno
from autograph.pyct import qual_names
from autograph.pyct.qual_names import QN, Literal


def test_simple():
    a = QN('a')
    assert a.qn == ('a',)
    assert str(a) == 'a'
    assert a.ssf() == 'a'
    assert a.is_simple() and not a.is_composite()
    assert a.is_symbol()
    assert not a.has_attr() and not a.has_subscript()
    with pytest.raises(ValueError):
        _ = a.parent
    assert a.support_set == {a}
    assert a.owner_set == set()


def test_attr():
    ab = QN(QN('a'), attr='b')
    assert str(ab) == 'a.b'
    assert ab.ssf() == 'a_b'
    assert ab.is_composite() and ab.has_attr() and not ab.has_subscript()
    assert ab.parent == QN('a')
    assert ab.attr == 'b'
    abc = QN(ab, attr='c')
    assert str(abc) == 'a.b.c'
    assert abc.support_set == {QN('a')}
    assert abc.owner_set == {QN('a'), ab}


def test_subscript():
    a0 = QN(QN('a'), subscript=QN(Literal(0)))
    assert str(a0) == 'a[0]'
    assert a0.ssf() == 'a_sub_0'
    assert a0.has_subscript() and not a0.has_attr()
    ai = QN(QN('a'), subscript=QN('i'))
    assert str(ai) == 'a[i]'
    assert ai.support_set == {QN('a'), QN('i')}
    ak = QN(QN('a'), subscript=QN(Literal('k')))
    assert str(ak) == "a['k']"


def test_equality_and_hash_distinguish_kinds():
    assert QN(QN('a'), attr='b') == QN(QN('a'), attr='b')
    assert QN(QN('a'), attr='b') != QN(QN('a'), subscript=QN('b'))
    assert QN('a') != 'a'
    assert len({QN('a'), QN('a'), QN(QN('a'), attr='b')}) == 2
    assert sorted([QN('b'), QN('a')]) == [QN('a'), QN('b')]


def test_constructor_errors():
    with pytest.raises(ValueError):
        QN(QN('a'), attr='b', subscript=QN('c'))
    with pytest.raises(ValueError):
        QN('a', attr='b')
    with pytest.raises(ValueError):
        QN(3)


@pytest.mark.parametrize('text', ['a', 'a.b', 'a[0]', "a['k'].b[i]", 'a[b.c]', 'a.b.c[1][2]'])
def test_from_str_round_trips(text):
    assert str(qual_names.from_str(text)) == text


def test_from_str_structure():
    qn = qual_names.from_str('a.b[c]')
    assert qn == QN(QN(QN('a'), attr='b'), subscript=QN('c'))


@pytest.mark.parametrize('text', ['a +', 'a + b', 'f()', 'a[1:2]', 'x = 1'])
def test_from_str_rejects_non_names(text):
    with pytest.raises(ValueError):
        qual_names.from_str(text)


def test_resolve_annotates_tree():
    tree = gast.parse(textwrap.dedent('''
        a.b = c[0] + d[e].f
        g()[0] = h(i).j
    '''))
    qual_names.resolve(tree)
    qns = sorted(str(anno.getanno(n, anno.Basic.QN)) for n in gast.walk(tree)
                 if anno.hasanno(n, anno.Basic.QN))
    expected = sorted(['a', 'a.b', 'c', 'c[0]', 'd', 'e', 'd[e]', 'd[e].f', 'g', 'h', 'i'])
    assert qns == expected


def test_resolve_skips_slices_and_none_subscripts():
    tree = gast.parse('a[1:2]; a[None]; a[x, y]')
    qual_names.resolve(tree)
    subs = [n for n in gast.walk(tree) if isinstance(n, gast.Subscript)]
    assert len(subs) == 3
    assert not any(anno.hasanno(n, anno.Basic.QN) for n in subs)


def test_ast_builds_equivalent_expression():
    qn = qual_names.from_str("a.b[0]['k']")
    node = qn.ast()
    expr = gast.Expression(body=node)
    code = compile(ast.fix_missing_locations(gast.gast_to_ast(expr)), "<qn>", "eval")

    class B:
        b = [{'k': 42}]

    assert eval(code, {'a': B}) == 42
    store = qual_names.from_str('x').ast(ctx=gast.Store())
    assert isinstance(store.ctx, gast.Store)


def test_the_nodes_of_one_name_share_its_qn():
    node = qual_names.resolve(gast.parse('a.b = a.b + a.c + b\nb = a'))
    qns = [anno.getanno(n, anno.Basic.QN) for n in gast.walk(node)
           if anno.hasanno(n, anno.Basic.QN)]
    by_text = {}
    for qn in qns:
        by_text.setdefault(str(qn), set()).add(id(qn))
    assert sorted(by_text) == ['a', 'a.b', 'a.c', 'b']
    assert all(len(ids) == 1 for ids in by_text.values())
