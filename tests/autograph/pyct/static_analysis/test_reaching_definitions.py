"""Tests for autograph.pyct.static_analysis.reaching_definitions."""

import textwrap

import gast

from autograph.pyct import anno
from autograph.pyct import cfg
from autograph.pyct import qual_names
from autograph.pyct.static_analysis import activity
from autograph.pyct.static_analysis import reaching_definitions


def _analyze(src):
    tree = gast.parse(textwrap.dedent(src))
    qual_names.resolve(tree)
    graphs = cfg.build(tree)
    activity.resolve(tree, None)
    reaching_definitions.resolve(tree, None, graphs)
    return tree.body[0]


def _defs(node):
    return anno.getanno(node, anno.Static.DEFINITIONS)


def _defined_in(node):
    return sorted(str(s) for s in anno.getanno(node, anno.Static.DEFINED_VARS_IN))


def test_straight_line_redefinition():
    fn = _analyze('''
        def f(a):
            b = a
            b = b + 1
            return b
    ''')
    a_param = fn.args.args[0]
    first_store = fn.body[0].targets[0]
    second_load = fn.body[1].value.left
    second_store = fn.body[1].targets[0]
    final_load = fn.body[2].value
    assert len(_defs(a_param)) == 1
    assert _defs(a_param)[0].param_of() is fn
    assert _defs(fn.body[0].value) == _defs(a_param)
    assert _defs(second_load) == _defs(first_store)
    assert _defs(final_load) == _defs(second_store)
    assert _defs(final_load) != _defs(first_store)


def test_branches_merge_definitions():
    fn = _analyze('''
        def f(a):
            if a:
                x = 1
            else:
                x = 2
            return x
    ''')
    node = fn.body[0]
    d1 = _defs(node.body[0].targets[0])
    d2 = _defs(node.orelse[0].targets[0])
    assert set(_defs(fn.body[1].value)) == set(d1 + d2)
    assert len(set(d1 + d2)) == 2


def test_defined_vars_in_at_loops_and_branches():
    fn = _analyze('''
        def f(a):
            x = 0
            while a:
                y = x
                a -= 1
            if a:
                z = 1
            return z
    ''')
    loop, cond, ret = fn.body[1], fn.body[2], fn.body[3]
    assert _defined_in(loop) == ['a', 'x']
    assert _defined_in(loop.body[0]) == ['a', 'x', 'y']
    assert _defined_in(cond) == ['a', 'x', 'y']
    assert _defined_in(ret) == ['a', 'x', 'y', 'z']


def test_loop_carried_definition_reaches_loop_head():
    fn = _analyze('''
        def f(n):
            i = 0
            while i < n:
                i = i + 1
            return i
    ''')
    init = _defs(fn.body[0].targets[0])
    update = _defs(fn.body[1].body[0].targets[0])
    test_load = fn.body[1].test.left
    assert set(_defs(test_load)) == set(init + update)
    assert set(_defs(fn.body[2].value)) == set(init + update)


def test_for_target_defined_at_loop_head():
    fn = _analyze('''
        def f(xs):
            for x in xs:
                y = x
            return x
    ''')
    loop = fn.body[0]
    target_def = _defs(loop.target)
    assert len(target_def) == 1
    assert _defs(loop.body[0].value) == target_def
    assert _defs(fn.body[1].value) == target_def
    assert _defined_in(loop) == ['xs']


def test_del_kills_definition():
    fn = _analyze('''
        def f(a):
            del a
            return a
    ''')
    assert _defs(fn.body[1].value) == ()
    assert _defined_in(fn.body[1]) == []


def test_nested_function_does_not_see_outer_definitions():
    fn = _analyze('''
        def f(a):
            b = 1
            def g():
                return b
            return g
    ''')
    inner = fn.body[1]
    assert _defs(inner.body[0].value) == ()
    assert _defined_in(fn.body[2]) == ['a', 'b', 'g']


def test_defined_fns_in():
    fn = _analyze('''
        def f(a):
            if a:
                def g():
                    return 1
            return a
    ''')
    g = fn.body[0].body[0]
    assert anno.getanno(fn.body[0], anno.Static.DEFINED_FNS_IN) == frozenset()
    assert anno.getanno(fn.body[1], anno.Static.DEFINED_FNS_IN) == frozenset({g})


def test_custom_definition_factory():
    class Tagged(reaching_definitions.Definition):
        pass

    tree = gast.parse('def f():\n    x = 1\n    return x\n')
    qual_names.resolve(tree)
    graphs = cfg.build(tree)
    activity.resolve(tree, None)
    reaching_definitions.resolve(tree, None, graphs, definition_factory=Tagged)
    (definition,) = _defs(tree.body[0].body[1].value)
    assert isinstance(definition, Tagged)
    assert repr(definition).startswith('Tagged[')


def test_except_name_in_nested_function():
    # pydoc._url_handler: `except ... as name` in a nested function raised
    # `KeyError: def g` (the name was looked up at the enclosing function's CFG node).
    fn = _analyze('''
        def f():
            def g():
                try:
                    pass
                except ValueError as e:
                    return e
    ''')
    handler = fn.body[0].body[0].handlers[0]
    name_store = handler.name
    name_load = handler.body[0].value
    assert len(_defs(name_store)) == 1
    assert _defs(name_load) == _defs(name_store)
    assert _defined_in(handler) == []


def test_method_of_class_in_function():
    # pydoc._start_server: the same for a method of a class defined in a function
    # (`KeyError: class ServerThread`).
    fn = _analyze('''
        def f():
            class A:
                def run(self):
                    try:
                        pass
                    except ValueError as e:
                        return self, e
            return A
    ''')
    method = fn.body[0].body[0]
    handler = method.body[0].handlers[0]
    self_load, e_load = handler.body[0].value.elts
    assert _defs(self_load) == _defs(method.args.args[0])
    assert _defs(e_load) == _defs(handler.name)
    assert _defined_in(fn.body[1]) == ['A']


def test_class_body_is_not_annotated():
    fn = _analyze('''
        def f(x):
            class A:
                y = x
                if y:
                    z = 1
            return A
    ''')
    class_if = fn.body[0].body[1]
    assert not anno.hasanno(class_if, anno.Static.DEFINED_VARS_IN)
    assert not anno.hasanno(fn.body[0].body[0].value, anno.Static.DEFINITIONS)
    assert _defined_in(fn.body[1]) == ['A', 'x']


def test_without_names_the_statements_get_the_same_annotations():
    src = '''
        def f(a, b=1):
            def g():
                return a
            h = lambda: b
            for i in range(a):
                if i > b:
                    c = i
                    break
            else:
                c = 0
            while c:
                try:
                    c -= 1
                except ValueError as e:
                    d = e
                    continue
            class A:
                def m(self):
                    return c
            return g, h, c, A
    '''
    with_names = _analyze(src)
    tree = gast.parse(textwrap.dedent(src))
    qual_names.resolve(tree)
    graphs = cfg.build(tree)
    activity.resolve(tree, None)
    reaching_definitions.resolve(tree, None, graphs, names=False)
    without_names = tree.body[0]

    statements = 0
    for full, bare in zip(gast.walk(with_names), gast.walk(without_names)):
        assert type(full) is type(bare)
        assert not anno.hasanno(bare, anno.Static.DEFINITIONS)
        for key in (anno.Static.DEFINED_VARS_IN, anno.Static.DEFINED_FNS_IN):
            assert anno.hasanno(full, key) == anno.hasanno(bare, key)
            if key is anno.Static.DEFINED_VARS_IN and anno.hasanno(full, key):
                statements += 1
                assert _defined_in(full) == _defined_in(bare)
            elif anno.hasanno(full, key):
                # the same local functions, by name (each tree has its own def nodes)
                assert (sorted(getattr(d, 'name', 'lambda') for d in anno.getanno(full, key))
                        == sorted(getattr(d, 'name', 'lambda') for d in anno.getanno(bare, key)))
    assert statements > 10
