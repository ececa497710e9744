"""Tests for autograph.pyct.static_analysis.liveness."""

import textwrap

import gast

from autograph.pyct import anno
from autograph.pyct import cfg
from autograph.pyct import qual_names
from autograph.pyct.static_analysis import activity
from autograph.pyct.static_analysis import liveness
from autograph.pyct.static_analysis import reaching_definitions


def _analyze(src, include_annotations=True):
    tree = gast.parse(textwrap.dedent(src))
    qual_names.resolve(tree)
    graphs = cfg.build(tree)
    activity.resolve(tree, None)
    reaching_definitions.resolve(tree, None, graphs)
    liveness.resolve(tree, None, graphs, include_annotations=include_annotations)
    return tree.body[0]


def _live_in(node):
    return sorted(str(s) for s in anno.getanno(node, anno.Static.LIVE_VARS_IN))


def _live_out(node):
    return sorted(str(s) for s in anno.getanno(node, anno.Static.LIVE_VARS_OUT))


def test_straight_line():
    fn = _analyze('''
        def f(a, b):
            c = a
            d = c + b
            return d
    ''')
    assert _live_in(fn.body[0]) == ['a', 'b']
    assert _live_out(fn.body[0]) == ['b', 'c']
    assert _live_in(fn.body[1]) == ['b', 'c']
    assert _live_out(fn.body[2]) == []


def test_branch_outputs_at_join():
    fn = _analyze('''
        def f(a):
            y = 0
            if a:
                x = 1
                t = 2
            else:
                x = 2
                y = t
            return x + y
    ''')
    cond = fn.body[1]
    assert _live_in(cond) == ['a', 't', 'y']
    assert _live_out(cond) == ['x', 'y']
    assert _live_out(cond.body[1]) == ['x', 'y']


def test_loop_head_live_vars():
    fn = _analyze('''
        def f(n):
            i = 0
            s = 0
            tmp = 5
            while i < n:
                tmp = i * 2
                s = s + tmp
                i = i + 1
            return s
    ''')
    loop = fn.body[3]
    # tmp is written before it is read in every iteration: not live at the head.
    assert _live_in(loop) == ['i', 'n', 's']
    assert _live_out(loop) == ['s']
    assert _live_out(loop.body[2]) == ['i', 'n', 's']


def test_for_loop_target_and_break():
    fn = _analyze('''
        def f(xs):
            found = None
            for x in xs:
                if x > 0:
                    found = x
                    break
            else:
                found = -1
            return found
    ''')
    loop = fn.body[1]
    # Every path from the loop to the return assigns found first.
    assert _live_in(loop) == ['xs']
    assert _live_out(loop) == ['found']
    assert _live_out(loop.body[0]) == ['found', 'xs']


def test_closure_reads_are_live_where_function_reaches():
    fn = _analyze('''
        def f(a):
            b = 1
            def g():
                return b + c
            c = 2
            b = 3
            return g()
    ''')
    # g may be called anywhere it reaches, so its free variables stay live there.
    assert _live_out(fn.body[0]) == ['b', 'c']
    assert _live_in(fn.body[2]) == ['b', 'c', 'g']
    assert _live_out(fn.body[3]) == ['b', 'c', 'g']


def test_lambda_reads_stay_live_while_the_lambda_may_be_called():
    # Like a local def, a lambda reads its free variables when called, not when defined: `a`
    # stays live after the lambda (conservatively, even across `a = 1`).
    fn = _analyze('''
        def f(a):
            h = lambda: a
            a = 1
            return h
    ''')
    assert _live_in(fn.body[0]) == ['a']
    assert _live_in(fn.body[1]) == ['a', 'h']


def test_try_handler_sees_state_of_body():
    fn = _analyze('''
        def f(a):
            x = 1
            try:
                x = g(a)
            except ValueError:
                return x
            return 0
    ''')
    # An exception in g(a) leaves the first x to the handler.
    assert _live_out(fn.body[0]) == ['ValueError', 'a', 'g', 'x']
    assert _live_in(fn.body[1]) == ['ValueError', 'a', 'g', 'x']


def test_annotations_can_be_excluded():
    src = '''
        def f(a):
            x: T = a
            return x
    '''
    assert _live_in(_analyze(src).body[0]) == ['T', 'a']
    assert _live_in(_analyze(src, include_annotations=False).body[0]) == ['a']


def test_match_and_with():
    fn = _analyze('''
        def f(v, m):
            with m as ctx:
                match v:
                    case [a] if a > k:
                        r = a
                    case _:
                        r = ctx
            return r
    ''')
    with_stmt = fn.body[0]
    match = with_stmt.body[0]
    assert _live_in(with_stmt) == ['k', 'm', 'v']
    assert _live_in(match) == ['ctx', 'k', 'v']
    assert _live_out(match) == ['r']
    assert _live_in(match.cases[0]) == ['ctx', 'k']


def test_compound_statement_in_class_body():
    # test_enum's _EnumTests.setUp: an `if` in the body of a class defined in a function
    # failed with "If not matching a CFG node, must be a block statement". Class bodies
    # have no graph: they are not annotated, but the ClassDef statement and the methods are.
    fn = _analyze('''
        def f(x, w):
            class A:
                if x:
                    y = 1
                def m(self):
                    if self:
                        return w
                    return None
            return A
    ''')
    class_def = fn.body[0]
    assert not anno.hasanno(class_def.body[0], anno.Static.LIVE_VARS_IN)
    assert _live_in(class_def) == ['w', 'x']
    assert _live_out(class_def) == ['A']
    method_if = class_def.body[1].body[0]
    assert _live_in(method_if) == ['self', 'w']
    assert _live_out(method_if) == []


def test_lambda_free_variables_are_live_where_it_may_be_called():
    # `h` is called after the if: `v`, read by the lambda, is live out of the if even though
    # no statement after it names `v`.
    fn = _analyze('''
        def f(a, p):
            h = lambda t: v
            v = a
            if p:
                v += 2
            return h(0)
    ''')
    assert _live_out(fn.body[2]) == ['h', 'v']
