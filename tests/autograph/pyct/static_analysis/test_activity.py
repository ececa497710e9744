"""Tests for autograph.pyct.static_analysis.activity."""

import textwrap

import gast

from autograph.pyct import anno
from autograph.pyct import qual_names
from autograph.pyct.static_analysis import activity
from autograph.pyct.static_analysis.annos import NodeAnno


def _analyze(src):
    tree = gast.parse(textwrap.dedent(src))
    qual_names.resolve(tree)
    activity.resolve(tree, None)
    return tree.body[0]


def _names(symbols):
    return sorted(str(s) for s in symbols)


def _assert_scope(scope, read=(), modified=(), bound=None):
    assert _names(scope.read) == sorted(read)
    assert _names(scope.modified) == sorted(modified)
    if bound is not None:
        assert _names(scope.bound) == sorted(bound)


def test_assignments_and_composites():
    fn = _analyze('''
        def f(a):
            b = a.x + c[0]
            d.y = b
            e[i] += 1
    ''')
    s0, s1, s2 = (anno.getanno(s, anno.Static.SCOPE) for s in fn.body)
    _assert_scope(s0, read=['a', 'a.x', 'c', 'c[0]'], modified=['b'])
    _assert_scope(s1, read=['b', 'd'], modified=['d.y'])
    _assert_scope(s2, read=['e', 'e[i]', 'i'], modified=['e[i]'])


def test_params_and_function_scopes():
    fn = _analyze('''
        def f(a, *b, c=d0, **k):
            return a
    ''')
    args_scope = anno.getanno(fn.args, anno.Static.SCOPE)
    assert _names(args_scope.params) == ['a', 'b', 'c', 'k']
    assert _names(args_scope.bound) == ['a', 'b', 'c', 'k']
    assert args_scope.params[qual_names.QN('a')]() is fn
    _assert_scope(anno.getanno(fn, anno.Static.SCOPE), read=['d0'], modified=['f'])
    _assert_scope(anno.getanno(fn, NodeAnno.BODY_SCOPE), read=['a'])
    whole = anno.getanno(fn, NodeAnno.ARGS_AND_BODY_SCOPE)
    assert _names(whole.free_vars) == []


def test_if_scopes_are_parallel():
    fn = _analyze('''
        def f(a):
            if a > 0:
                x = 1
            else:
                y = x
    ''')
    node = fn.body[0]
    _assert_scope(anno.getanno(node, NodeAnno.COND_SCOPE), read=['a'])
    _assert_scope(anno.getanno(node.test, anno.Static.SCOPE), read=['a'])
    _assert_scope(anno.getanno(node, NodeAnno.BODY_SCOPE), modified=['x'])
    _assert_scope(anno.getanno(node, NodeAnno.ORELSE_SCOPE), read=['x'], modified=['y'])
    _assert_scope(anno.getanno(fn, NodeAnno.BODY_SCOPE), read=['a', 'x'], modified=['x', 'y'])


def test_for_and_while_scopes():
    fn = _analyze('''
        def f(n):
            for i in range(n):
                s = s + i
            else:
                t = 1
            while n:
                n -= 1
    ''')
    loop, wloop = fn.body
    _assert_scope(anno.getanno(loop.iter, anno.Static.SCOPE), read=['n', 'range'],
                  modified=['i'])
    _assert_scope(anno.getanno(loop, NodeAnno.ITERATE_SCOPE), modified=['i'])
    _assert_scope(anno.getanno(loop, NodeAnno.BODY_SCOPE), read=['i', 's'], modified=['s'])
    _assert_scope(anno.getanno(loop, NodeAnno.ORELSE_SCOPE), modified=['t'])
    _assert_scope(anno.getanno(wloop, NodeAnno.COND_SCOPE), read=['n'])
    _assert_scope(anno.getanno(wloop, NodeAnno.BODY_SCOPE), read=['n'], modified=['n'])


def test_comprehension_targets_are_local():
    fn = _analyze('''
        def f(xs):
            a = [x.v * w for x in xs if x for y in x]
            b = {k: v for k, v in items}
            c = [z for z in z]
            d = [(m := q) for q in xs]
    ''')
    scopes = [anno.getanno(s, anno.Static.SCOPE) for s in fn.body]
    _assert_scope(scopes[0], read=['w', 'xs'], modified=['a'])
    _assert_scope(scopes[1], read=['items'], modified=['b'])
    _assert_scope(scopes[2], read=['z'], modified=['c'])
    # An assignment expression binds in the enclosing function.
    _assert_scope(scopes[3], read=['xs'], modified=['d', 'm'])


def test_lambda_reads_count_at_the_statement():
    fn = _analyze('''
        def f(a):
            g = lambda x, y=d: x + a + y
    ''')
    stmt = fn.body[0]
    _assert_scope(anno.getanno(stmt, anno.Static.SCOPE), read=['a', 'd'], modified=['g'])
    lam = stmt.value
    _assert_scope(anno.getanno(lam, NodeAnno.BODY_SCOPE), read=['a', 'x', 'y'])
    assert _names(anno.getanno(lam.args, anno.Static.SCOPE).params) == ['x', 'y']
    assert anno.hasanno(lam.body, anno.Static.SCOPE)


def test_nested_function_closure_reads_go_to_enclosing_block():
    fn = _analyze('''
        def f(a):
            if a:
                def g(b):
                    nonlocal c
                    c = b + e
                    return a
    ''')
    node = fn.body[0]
    inner = node.body[0]
    _assert_scope(anno.getanno(inner, anno.Static.SCOPE), modified=['g'])
    # Free reads of g, and its nonlocal, are reads of the enclosing block.
    _assert_scope(anno.getanno(node, NodeAnno.BODY_SCOPE), read=['a', 'c', 'e'],
                  modified=['g'])
    body = anno.getanno(inner, NodeAnno.BODY_SCOPE)
    assert _names(body.nonlocals) == ['c']
    assert _names(body.modified) == ['c']


def test_global_and_del():
    fn = _analyze('''
        def f():
            global g
            g = 1
            del h
    ''')
    s0, s1, s2 = (anno.getanno(s, anno.Static.SCOPE) for s in fn.body)
    assert _names(s0.globals) == ['g']
    _assert_scope(s1, modified=['g'])
    assert _names(s2.deleted) == ['h'] and _names(s2.read) == ['h']


def test_calls_record_args_scope():
    fn = _analyze('''
        def f():
            g(a, k=b).c
    ''')
    call = fn.body[0].value.value
    _assert_scope(anno.getanno(call, NodeAnno.ARGS_SCOPE), read=['a', 'b'])


def test_try_handler_name_is_isolated():
    fn = _analyze('''
        def f():
            try:
                a = 1
            except (E, F) as e:
                b = e
    ''')
    handler = fn.body[0].handlers[0]
    _assert_scope(anno.getanno(handler.type, anno.Static.SCOPE), read=['E', 'F'],
                  modified=['e'])
    _assert_scope(anno.getanno(handler, NodeAnno.BODY_SCOPE), read=['E', 'F', 'e'],
                  modified=['b', 'e'])
    _assert_scope(anno.getanno(fn, NodeAnno.BODY_SCOPE), read=['E', 'F'],
                  modified=['a', 'b'])


def test_with_and_imports():
    fn = _analyze('''
        def f():
            with g() as h:
                import os.path, numpy as np
                from x import y as z
    ''')
    node = fn.body[0]
    _assert_scope(anno.getanno(node.items[0], anno.Static.SCOPE), read=['g'], modified=['h'])
    _assert_scope(anno.getanno(node.body[0], anno.Static.SCOPE), modified=['np', 'os'])
    _assert_scope(anno.getanno(node.body[1], anno.Static.SCOPE), modified=['z'])
    _assert_scope(anno.getanno(node, NodeAnno.BODY_SCOPE), read=['g'],
                  modified=['h', 'np', 'os', 'z'])


def test_match_patterns_bind_captures():
    fn = _analyze('''
        def f(v):
            match v:
                case [a, *rest] if a > lim:
                    x = a
                case {'k': b, **others}:
                    x = b
                case Point(x=c) | c:
                    pass
    ''')
    node = fn.body[0]
    _assert_scope(anno.getanno(node.subject, anno.Static.SCOPE), read=['v'])
    c0, c1, c2 = node.cases
    # The guard reads `a` after the pattern bound it: not a read of an outer `a`.
    _assert_scope(anno.getanno(c0, anno.Static.SCOPE), read=['lim'],
                  modified=['a', 'rest'])
    _assert_scope(anno.getanno(c0, NodeAnno.BODY_SCOPE), read=['a'], modified=['x'])
    _assert_scope(anno.getanno(c1, anno.Static.SCOPE), modified=['b', 'others'])
    _assert_scope(anno.getanno(c2, anno.Static.SCOPE), read=['Point'], modified=['c'])


def test_constructor_self_attribute_writes_modify_self():
    tree = gast.parse(textwrap.dedent('''
        class A:
            def __init__(self):
                self.x = 1
    '''))
    qual_names.resolve(tree)
    activity.resolve(tree, None)
    init = tree.body[0].body[0]
    _assert_scope(anno.getanno(init.body[0], anno.Static.SCOPE), read=['self'],
                  modified=['self', 'self.x'])


def test_scope_copy_and_merge():
    parent = activity.Scope(None, isolated=False)
    child = activity.Scope(parent, isolated=False)
    child.read.add(qual_names.QN('a'))
    parent.modified.add(qual_names.QN('p'))
    copied = activity.Scope.copy_of(child)
    assert not copied.isolated
    assert copied.read == {qual_names.QN('a')}
    assert copied.parent.modified == {qual_names.QN('p')}
    copied.read.add(qual_names.QN('b'))
    assert child.read == {qual_names.QN('a')}
    child.merge_from(copied)
    assert _names(child.read) == ['a', 'b']
    child.finalize()
    assert _names(parent.read) == ['a', 'b']
    assert repr(child) == "Scope{r=('a', 'b'), w=()}"


_NONLOCAL_CALL = '''
    def f(c):
        def g():
            nonlocal c
            c = 1
        if p:
            CALL
        return c
'''


def _if_body_scope(call):
    tree = gast.parse(textwrap.dedent(_NONLOCAL_CALL.replace('CALL', call)))
    fn = tree.body[0]
    wrapped = fn.body[1].body[0].value
    return tree, fn, wrapped


def _analyze_tree(tree):
    qual_names.resolve(tree)
    activity.resolve(tree, None)


def test_a_call_of_a_local_function_assigns_its_nonlocals():
    tree, fn, _ = _if_body_scope('g()')
    _analyze_tree(tree)
    _assert_scope(anno.getanno(fn.body[1], NodeAnno.BODY_SCOPE), read=['c', 'g'],
                  modified=['c'])


def test_a_wrapped_call_counts_when_its_converter_marked_it():
    # The analysis recognises a wrapped call by the mark the converter that made it left
    # (anno.Basic.CALLEE), not by the names in it.
    tree, fn, wrapped = _if_body_scope('wrap(g, (), None, scope)')
    anno.setanno(wrapped, anno.Basic.CALLEE, wrapped.args[0])
    _analyze_tree(tree)
    assert 'c' in _names(anno.getanno(fn.body[1], NodeAnno.BODY_SCOPE).modified)
    tree, fn, _ = _if_body_scope('ag__.converted_call(g, (), None, scope)')  # no mark
    _analyze_tree(tree)
    assert 'c' not in _names(anno.getanno(fn.body[1], NodeAnno.BODY_SCOPE).modified)
