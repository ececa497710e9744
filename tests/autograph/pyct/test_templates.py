"""Tests for pyct/templates.py."""

import gast
import pytest

from autograph.pyct import parser
from autograph.pyct import qual_names
from autograph.pyct import templates


def test_replace_names_functions_and_statement_lists():
    body = [parser.parse('x = 1')]
    nodes = templates.replace('''
        def fn_name(a):
            nonlocal x
            body
        ag__.if_stmt(cond, fn_name, (x,))
    ''', fn_name='if_body', body=body, cond=parser.parse_expression('a > 1'), x='y')
    assert parser.unparse(nodes) == (
        'def if_body(a):\n    nonlocal y\n    x = 1\nag__.if_stmt((a > 1), if_body, (y,))\n')


def test_store_context_is_set_on_targets():
    nodes = templates.replace('target = value', target=qual_names.QN(qual_names.QN('a'), attr='b'),
                              value=gast.Constant(value=1, kind=None))
    assert isinstance(nodes[0].targets[0].ctx, gast.Store)
    assert parser.unparse(nodes) == 'a.b = 1\n'


def test_second_use_of_a_node_is_a_copy():
    expr = parser.parse_expression('f(x)')
    nodes = templates.replace('a = e\nb = e', e=expr)
    assert nodes[0].value is expr and nodes[1].value is not expr
    assert parser.unparse(nodes) == 'a = f(x)\nb = f(x)\n'


def test_replace_as_expression():
    node = templates.replace_as_expression('ag__.ld(v)', v='x')
    assert parser.unparse(node).strip() == 'ag__.ld(x)'
    with pytest.raises(ValueError, match='single expression'):
        templates.replace_as_expression('a = 1')


def test_template_nodes_have_no_locations():
    nodes = templates.replace('a = 1')
    assert getattr(nodes[0], 'lineno', None) is None


def test_copy_clean():
    node = parser.parse('x = y + 1')
    copy = templates.copy_clean(node)
    assert copy is not node and copy.value is not node.value
    assert parser.unparse(copy) == parser.unparse(node)
    assert copy.lineno == node.lineno
    assert getattr(templates.copy_clean(node, keep_locations=False), 'lineno', None) is None
