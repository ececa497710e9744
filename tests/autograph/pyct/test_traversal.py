"""Tests for autograph.pyct.traversal."""

import textwrap

import gast

from autograph.pyct import traversal


def _tree(src):
    return gast.parse(textwrap.dedent(src))


def test_outermost_does_not_look_inside_what_it_finds():
    tree = _tree('''
        def f(x):
            g = lambda: (lambda: x)
            def h():
                return lambda: 1
            return [y for y in (z for z in x)], g, h
    ''')
    fn = tree.body[0]
    found = traversal.outermost(fn, (gast.Lambda, gast.FunctionDef, gast.GeneratorExp))
    described = sorted(type(n).__name__ + ':' + str(n.lineno) for n in found)
    # the lambda inside g's lambda and the one inside h are not listed; `fn` itself is not
    assert described == ['FunctionDef:4', 'GeneratorExp:6', 'Lambda:3']


class _Recorder(traversal.NodeTransformer):

    def __init__(self):
        self.seen = []

    def generic_visit(self, node):
        self.seen.append(type(node).__name__)
        return super().generic_visit(node)


class _RecorderOfStores(_Recorder):

    def visit_Store(self, node):
        self.seen.append('Store!')
        return node


def test_contexts_and_operators_are_visited_only_by_a_visitor_with_a_method_for_them():
    tree = _tree('x = a + -b')
    plain = _Recorder()
    plain.visit(tree)
    assert plain.seen == ['Module', 'Assign', 'Name', 'BinOp', 'Name', 'UnaryOp', 'Name']
    stores = _RecorderOfStores()
    stores.visit(tree)
    assert stores.seen == ['Module', 'Assign', 'Name', 'Store!', 'BinOp', 'Name', 'UnaryOp',
                           'Name']
