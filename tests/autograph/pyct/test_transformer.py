"""Tests for pyct/transformer.py."""

import gast

from autograph.pyct import anno
from autograph.pyct import ast_convert
from autograph.pyct import naming
from autograph.pyct import parser
from autograph.pyct import templates
from autograph.pyct import transformer


class _PassToCall(transformer.Base):

    def visit_Pass(self, node):
        return templates.replace('marker()\nmarker()')


def _ctx():
    return transformer.EntityInfo('f', 'f.py', naming.Namer(set()))


def test_generated_statements_get_the_location_of_what_they_replace():
    node = parser.parse('def f():\n    x = 1\n    pass\n')
    node = _PassToCall(_ctx()).visit(node)
    calls = node.body[1:]
    assert [c.lineno for c in calls] == [3, 3]
    assert node.body[0].lineno == 2
    # the nodes inside take it when compiled
    assert getattr(calls[0].value.func, 'lineno', None) is None
    tree = ast_convert.gast_to_ast(node)
    assert tree.body[1].value.func.lineno == 3 and tree.body[1].value.end_lineno == 3
    assert tree.body[1].value.func.col_offset == tree.body[1].col_offset


def test_skip_annotation_leaves_a_subtree_alone():
    node = parser.parse('def f():\n    pass\n')
    anno.setanno(node, transformer.ConvAnno.SKIP, True)
    assert _PassToCall(_ctx()).visit(node).body[0].__class__ is gast.Pass


def test_visit_block_splices_lists():
    stmts = parser.parse('pass\na = 1\npass', single_node=False).body
    result = _PassToCall(_ctx()).visit_block(stmts)
    assert parser.unparse(result) == 'marker()\nmarker()\na = 1\nmarker()\nmarker()\n'


def test_state_stacks():
    class Frame(object):
        def __init__(self):
            self.value = None
    state = transformer.State()
    state[Frame].enter()
    state[Frame].value = 1
    state[Frame].enter()
    state[Frame].value = 2
    assert state[Frame].level == 2 and state[Frame].value == 2
    state[Frame].exit()
    assert state[Frame].value == 1
