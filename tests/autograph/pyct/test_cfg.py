"""Tests for autograph.pyct.cfg: golden edge tables for each construct."""

import textwrap

import gast
import pytest

from autograph.pyct import cfg


def _graph(src, name=None):
    tree = gast.parse(textwrap.dedent(src))
    graphs = cfg.build(tree)
    for fn, graph in graphs.items():
        if name is None or getattr(fn, 'name', 'lambda') == name:
            return graph
    raise AssertionError('no graph named %s' % name)


def _table(src, name=None):
    return _graph(src, name).edge_table()


def _golden(text):
    return textwrap.dedent(text).strip()


def test_straight_line():
    assert _table('''
        def f(a):
            x = a
            return x
    ''') == _golden('''
        (a) -> x = a
        x = a -> return x
        return x -> <exit>
    ''')


def test_if_else_join():
    assert _table('''
        def f(a):
            if a:
                x = 1
            else:
                x = 2
            return x
    ''') == _golden('''
        (a) -> a
        a -> x = 1, x = 2
        x = 1 -> return x
        x = 2 -> return x
        return x -> <exit>
    ''')


def test_if_without_else_falls_through():
    assert _table('''
        def f(a):
            if a:
                a = 1
            b = 2
    ''') == _golden('''
        (a) -> a
        a -> a = 1, b = 2
        a = 1 -> b = 2
        b = 2 -> <exit>
    ''')


def test_while_break_continue_else():
    assert _table('''
        def f(a):
            while a > 0:
                if a == 1:
                    break
                if a == 2:
                    continue
                a -= 1
            else:
                b = 1
            return a
    ''') == _golden('''
        (a) -> a > 0
        a > 0 -> a == 1, b = 1
        a == 1 -> break, a == 2
        break -> return a
        a == 2 -> continue, a -= 1
        continue -> a > 0
        a -= 1 -> a > 0
        b = 1 -> return a
        return a -> <exit>
    ''')


def test_for_loop_head_is_iter():
    assert _table('''
        def f(xs):
            s = 0
            for x in xs:
                s += x
            return s
    ''') == _golden('''
        (xs) -> s = 0
        s = 0 -> xs
        xs -> s += x, return s
        s += x -> xs
        return s -> <exit>
    ''')


def test_return_inside_loop_and_nested_loops():
    assert _table('''
        def f(n):
            for i in range(n):
                while i:
                    return i
            return 0
    ''') == _golden('''
        (n) -> range(n)
        range(n) -> i, return 0
        i -> range(n), return i
        return i -> <exit>
        return 0 -> <exit>
    ''')


def test_try_except_else_finally():
    assert _table('''
        def f(a):
            try:
                x = g(a)
            except ValueError as e:
                x = e
            except:
                raise
            else:
                x = 0
            finally:
                a = 1
            return x
    ''') == _golden('''
        (a) -> x = g(a), ValueError, raise
        x = g(a) -> x = 0, ValueError, raise
        x = 0 -> a = 1
        ValueError -> x = e
        x = e -> a = 1
        raise -> a = 1, <error>
        a = 1 -> return x, <exit>
        return x -> <exit>
    ''')


def test_return_through_finally():
    assert _table('''
        def f(a):
            try:
                return a
            finally:
                a = 2
    ''') == _golden('''
        (a) -> return a
        return a -> a = 2
        a = 2 -> <exit>
    ''')


def test_break_and_continue_through_finally():
    assert _table('''
        def f(a):
            while a:
                try:
                    if a:
                        break
                    continue
                finally:
                    b = 1
            return b
    ''') == _golden('''
        (a) -> a
        a -> a, return b
        a -> break, continue
        break -> b = 1
        continue -> b = 1
        b = 1 -> a, return b
        return b -> <exit>
    ''')


def test_raise_caught_by_handler():
    assert _table('''
        def f(a):
            try:
                raise ValueError()
            except ValueError:
                a = 1
            return a
    ''') == _golden('''
        (a) -> raise ValueError(), ValueError
        raise ValueError() -> ValueError, <exit>, <error>
        ValueError -> a = 1
        a = 1 -> return a
        return a -> <exit>
    ''')


def test_with_items_are_nodes():
    assert _table('''
        def f(a):
            with g(a) as b, h():
                c = b
            return c
    ''') == _golden('''
        (a) -> g(a)
        g(a) -> h()
        h() -> c = b
        c = b -> return c
        return c -> <exit>
    ''')


def test_nested_function_and_lambda_are_opaque():
    src = '''
        def f(a):
            def g(b):
                return b + a
            h = lambda c: c * a
            return g(1) + h(2)
    '''
    assert _table(src, 'f') == _golden('''
        (a) -> def g
        def g -> h = lambda c: c * a
        h = lambda c: c * a -> return g(1) + h(2)
        return g(1) + h(2) -> <exit>
    ''')
    assert _table(src, 'g') == _golden('''
        (b) -> return b + a
        return b + a -> <exit>
    ''')
    assert _table(src, 'lambda') == _golden('''
        (c) -> c * a
        c * a -> <exit>
    ''')


def test_match_cases_chain():
    assert _table('''
        def f(a):
            match a:
                case [b, *c] if b:
                    d = 1
                case {'k': e}:
                    d = 2
                case _:
                    d = 3
            return d
    ''') == _golden('''
        (a) -> a
        a -> case [b, *c] if b
        case [b, *c] if b -> d = 1, case {'k': e}
        d = 1 -> return d
        case {'k': e} -> d = 2, case _
        d = 2 -> return d
        case _ -> d = 3
        d = 3 -> return d
        return d -> <exit>
    ''')


def test_unknown_statements_are_opaque_nodes():
    # Statements without a dedicated visitor (the `type` alias of 3.12+) are one ordinary node
    # of the enclosing function; async loops and withs are built like their sync versions.
    if not _supports_type_alias():
        with pytest.raises(SyntaxError):
            compile('type T = int', '<alias>', 'exec')
        assert _table('''
            def f(a):
                global T
                return T
        ''') == _golden('''
            (a) -> global T
            global T -> return T
            return T -> <exit>
        ''')
        return
    src = '''
        def f(a):
            type T = list[a]
            async def g():
                async for x in y:
                    async with z as w:
                        pass
            return T
    '''
    assert _table(src, 'f') == _golden('''
        (a) -> type T = list[a]
        type T = list[a] -> def g
        def g -> return T
        return T -> <exit>
    ''')
    assert _table(src, 'g') == _golden('''
        () -> y
        y -> z, <exit>
        z -> pass
        pass -> y
    ''')


def _supports_type_alias():
    try:
        gast.parse('type T = int')
    except SyntaxError:
        return False
    return True


def test_stmt_prev_and_next():
    tree = gast.parse(textwrap.dedent('''
        def f(a):
            x = 0
            while a:
                a -= 1
            if x:
                y = 1
            return y
    '''))
    graph = cfg.build(tree)[tree.body[0]]
    loop, cond = tree.body[0].body[1], tree.body[0].body[2]
    assert sorted(repr(n) for n in graph.stmt_prev[loop]) == ['x = 0']
    assert sorted(repr(n) for n in graph.stmt_next[loop]) == ['x']
    assert sorted(repr(n) for n in graph.stmt_prev[cond]) == ['a']
    assert sorted(repr(n) for n in graph.stmt_next[cond]) == ['return y']


def test_graph_entry_exit_and_dot():
    graph = _graph('''
        def f(a):
            if a:
                return 1
            raise ValueError(a)
    ''')
    assert repr(graph.entry) == '(a)'
    assert sorted(repr(n) for n in graph.exit) == ['raise ValueError(a)', 'return 1']
    assert [repr(n) for n in graph.error] == ['raise ValueError(a)']
    dot = graph.as_dot()
    assert dot.startswith('digraph CFG {') and '0 -> 1;' in dot


def test_break_outside_loop_is_an_error():
    tree = gast.parse('def f():\n    break\n')
    with pytest.raises(ValueError, match='Break at line 2 is not enclosed'):
        cfg.build(tree)


class _CountingVisitor(cfg.GraphVisitor):
    """Counts, per node, the number of paths of length <= 3 from the entry (saturating)."""

    def init_state(self, _):
        return 0

    def visit_node(self, node):
        prev = self.out[node]
        self.in_[node] = sum(self.out[p] for p in node.prev) or 1
        self.out[node] = min(self.in_[node], 3)
        return prev != self.out[node]


def test_graph_visitor_reaches_fixed_point_over_loops():
    graph = _graph('''
        def f(a):
            while a:
                a -= 1
            return a
    ''')
    visitor = _CountingVisitor(graph)
    visitor.visit_forward()
    by_name = {repr(n): visitor.out[n] for n in graph.index.values()}
    assert by_name == {'(a)': 1, 'a': 3, 'a -= 1': 3, 'return a': 3}


class _NoChangeVisitor(cfg.GraphVisitor):
    """Reaches a fixed point at once (out = in); counts the visits."""

    def __init__(self, graph):
        super().__init__(graph)
        self.visits = 0

    def init_state(self, _):
        return 0

    def visit_node(self, node):
        self.visits += 1
        return False


def test_visitor_visits_each_node_once_without_changes():
    # Sequential branches used to double the work list at every join: 12 ifs took
    # thousands of visits, 250 statements minutes (issue #6).
    body = ''.join('    if a > %d:\n        a = %d\n    else:\n        a = 0\n' % (i, i)
                   for i in range(12))
    graph = _graph('def f(a):\n' + body + '    return a\n')
    for walk in ('visit_forward', 'visit_reverse'):
        visitor = _NoChangeVisitor(graph)
        getattr(visitor, walk)()
        assert visitor.visits == len(graph.index) == 38
