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


class _RecorderOfConstants(_Recorder):

    def visit_Constant(self, node):
        self.seen.append('Constant!')
        return node


def test_constants_alone_in_a_field_are_visited_only_by_a_visitor_with_a_method_for_them():
    tree = _tree('x = f(1) + 2')
    plain = _Recorder()
    plain.visit(tree)
    # the call's argument list is visited, item by item; the constant of `+ 2` is not
    assert plain.seen == ['Module', 'Assign', 'Name', 'BinOp', 'Call', 'Name', 'Constant']
    constants = _RecorderOfConstants()
    constants.visit(tree)
    assert constants.seen == ['Module', 'Assign', 'Name', 'BinOp', 'Call', 'Name',
                              'Constant!', 'Constant!']


def test_the_fields_a_walk_skips_hold_no_node():
    import ast
    import inspect

    from autograph.pyct import cfg_builder

    # every syntax: a real module, and what it lacks
    source = inspect.getsource(cfg_builder) + textwrap.dedent('''
        async def h(x: int, *args, **kw) -> None:
            global q
            async with x as (y, z):
                async for a, *b in y:
                    match a:
                        case [1, *rest] | {"k": rest, **others}: del b[0], z.w
                        case C(p=p, r=[None]) as s if p: q = f"{kw!r:>{p}}"
                        case _: await (lambda: (i async for i in a))()
            try:
                from .x import y as z
            except (E, F) as err:
                nonlocal m
            v: int = [i for i in range(3)]
            with v: pass
            for w in v: pass
    ''')
    kinds = set()
    for node in gast.walk(gast.ast_to_gast(ast.parse(source))):
        kinds.add(type(node).__name__)
        children = traversal.iter_child_nodes(node)
        everything = [v for f in node._fields for v in (
            getattr(node, f) if isinstance(getattr(node, f, None), list)
            else [getattr(node, f, None)])]
        assert children == [v for v in everything if isinstance(v, gast.AST)]
    assert set(traversal._LEAF_FIELDS) <= kinds


def test_outermost_lists_what_it_finds_last_first():
    tree = _tree('f(lambda: 1, [g(lambda: 2), {3: lambda: (lambda: 4)}], k=lambda: 5)')
    found = traversal.outermost(tree, gast.Lambda)
    # the four outer lambdas, last in the source first; the one inside is not listed
    columns = [n.col_offset for n in found]
    assert len(found) == 4 and columns == sorted(columns, reverse=True)
    assert [found[0].body.value, found[2].body.value, found[3].body.value] == [5, 2, 1]
    assert isinstance(found[1].body, gast.Lambda)
