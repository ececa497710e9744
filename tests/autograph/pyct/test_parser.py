"""Tests for pyct/parser.py."""

import io
import linecache
import os
import subprocess
import sys
import textwrap

import gast
import pytest

from autograph import errors
from autograph.pyct import parser


def deco(fn):
    return fn


class Holder(object):

    @deco
    @deco
    def method(self, a, /, b=1, *c, d, **e):
        return a


def plain(x):
    return x


first, second = (lambda x: x + 1), (lambda x: x * 2)  # noqa: E731


def test_parse_entity_keeps_original_line_numbers_and_tolerates_decorators():
    node = parser.parse_entity(Holder.method)
    assert isinstance(node, gast.FunctionDef) and node.name == 'method'
    assert node.lineno == Holder.method.__code__.co_firstlineno + 2
    assert len(node.decorator_list) == 2
    assert [a.id for a in node.args.posonlyargs] == ['self', 'a']


def test_lambdas_on_the_same_line_are_told_apart_by_position():
    assert parser.unparse(parser.parse_entity(first)).strip() == '(lambda x: (x + 1))'
    assert parser.unparse(parser.parse_entity(second)).strip() == '(lambda x: (x * 2))'


def test_a_def_s_tree_is_its_own_and_a_lambda_s_kept_tree_is_copied():
    for fn, text in ((first, '(lambda x: (x + 1))'), (plain, None)):
        node = parser.parse_entity(fn)
        text = text or parser.unparse(node)
        node.args.args[0].id = 'changed'
        assert parser.unparse(parser.parse_entity(fn)).strip() == text.strip()


def test_nested_function():
    def outer():
        def inner(y):
            return y
        return inner
    node = parser.parse_entity(outer())
    assert node.name == 'inner' and node.col_offset == 8


def test_source_in_linecache_only():
    source = 'def cell(a):\n    return a + 1\n'
    filename = '<cell 1>'
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, 'exec'), namespace)  # pylint: disable=exec-used
    node = parser.parse_entity(namespace['cell'])
    assert parser.unparse(node) == 'def cell(a):\n    return (a + 1)\n'


def test_missing_source_raises_conversion_error():
    namespace = {}
    exec(compile('def nosrc(a):\n    return a\n', '<nowhere>', 'exec'), namespace)  # noqa
    with pytest.raises(errors.ConversionError, match='expected the source code of nosrc'):
        parser.parse_entity(namespace['nosrc'])


def test_parse_and_unparse_round_trip():
    src = textwrap.dedent('''
        def f(a, *, b=2):
            if a:
                return [x for x in b]
            return {'k': a}
    ''').lstrip()
    assert parser.unparse(parser.parse(src)) == src
    assert parser.unparse(parser.parse_expression(' a + b ')).strip() == '(a + b)'
    with pytest.raises(ValueError, match='exactly one statement'):
        parser.parse('a = 1\nb = 2')


@pytest.mark.parametrize('source', [
    'i', 'i, row', '(i,)', 'i, (j, k)', '((a, b), c)', 'a[i]', 'a.b', '(a, b[0])', '(a, *b)',
    '[a, b]', '()',
])
def test_names_print_as_astunparse_prints_them(source):
    # Names and tuples of names print without astunparse: the text must be its text.
    node = parser.parse_expression(source)
    out = io.StringIO()
    parser._unparser_class()(parser.ast_convert.gast_to_ast(node), out)
    assert parser.unparse(node) == out.getvalue().strip('\n') + '\n'


def test_converting_a_for_loop_does_not_import_astunparse(tmp_path):
    (tmp_path / 'loops.py').write_text(textwrap.dedent('''
        def total(xs):
            s = 0
            for i, (a, b) in enumerate(xs):
                s += i * a + b
            return s
    '''))
    script = ('import sys, autograph, loops\n'
              'print(autograph.convert(loops.total)([(1, 2), (3, 4)]))\n'
              'print(sorted(m for m in ("astunparse", "six") if m in sys.modules))\n')
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR='',
               PYTHONPATH=os.pathsep.join([root, str(tmp_path)]))
    proc = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                          env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == '9\n[]\n'


def test_source_filename_of_frozen_module():
    import posixpath  # pylint: disable=g-import-not-at-top
    assert parser.source_filename(posixpath.join) == posixpath.__file__
    assert parser.source_filename(plain) == __file__


_EVERY_SYNTAX = (
    'def f(a, /, b=1, *c, d, e=2, **g):\n'
    '    try:\n'
    '        return [y + 1 for y in a if (lambda z, *, w=3: z)(y)]\n'
    '    except ValueError as err:\n'
    '        raise KeyError(b, key=err) from None\n'
    'async def h(x: int, *args: str, **kw: "T") -> None:\n'
    '    global q\n'
    '    async with x as (y, z):\n'
    '        async for a, *b in y:\n'
    '            match a:\n'
    '                case [1, *rest] | {"k": rest}: del b[0], z.w\n'
    '                case C(p=p) if p: q = {**kw, p: not -p} @ (yield)\n'
    '                case _: await (lambda: (i async for i in a))()\n')


def test_fast_tree_conversions_build_what_gast_builds():
    import ast
    import inspect

    import gast

    from autograph.pyct import ast_convert
    from autograph.pyct import cfg_builder

    # a real module with every common construct (classes, comprehensions, try, with, lambdas)
    tree = ast.parse(inspect.getsource(cfg_builder))
    ours = ast_convert.ast_to_gast(tree)
    assert gast.dump(ours) == gast.dump(gast.ast_to_gast(tree))
    assert ast.dump(ast_convert.gast_to_ast(ours)) == ast.dump(gast.gast_to_ast(ours))
    assert ast.dump(ast_convert.gast_to_ast(ours), include_attributes=True) == ast.dump(
        tree, include_attributes=True)
    fresh = ast.parse(inspect.getsource(cfg_builder) + _EVERY_SYNTAX)
    assert gast.dump(ast_convert.ast_to_gast_in_place(fresh), include_attributes=True) == (
        gast.dump(ast_convert.ast_to_gast(ast.parse(inspect.getsource(cfg_builder)
                                                    + _EVERY_SYNTAX)), include_attributes=True))
    assert isinstance(fresh, gast.Module) and not isinstance(fresh, ast.Module)
    in_place = ast_convert.gast_to_ast_in_place(ours)  # consumes `ours`
    assert ast.dump(in_place, include_attributes=True) == ast.dump(
        tree, include_attributes=True)


def test_gast_to_ast_fills_missing_locations_as_fix_missing_locations_does():
    import ast
    import inspect

    import gast

    from autograph.pyct import ast_convert
    from autograph.pyct import cfg_builder

    source = inspect.getsource(cfg_builder) + _EVERY_SYNTAX
    stripped = gast.ast_to_gast(ast.parse(source))
    for i, node in enumerate(gast.walk(stripped)):
        # some nodes lose their whole location, some only its start or its end: each
        # attribute is inherited on its own
        if i % 3 == 1:
            for attr in ('lineno', 'col_offset', 'end_lineno', 'end_col_offset'):
                vars(node).pop(attr, None)
        elif i % 3 == 2 and hasattr(node, 'lineno'):
            del node.lineno
            node.end_col_offset = None
    want = ast.fix_missing_locations(gast.gast_to_ast(stripped))
    got = ast_convert.gast_to_ast(stripped)
    assert ast.dump(got, include_attributes=True) == ast.dump(want, include_attributes=True)
    # the same in place; a (located) node shared by two parents is converted once
    shared = gast.ast_to_gast(ast.parse('\n' * 9 + 'x.y[0] = -(z if u else w)')).body[0]
    stripped.body += [shared, shared]
    want = ast.fix_missing_locations(gast.gast_to_ast(stripped))
    got = ast_convert.gast_to_ast_in_place(stripped)
    assert ast.dump(got, include_attributes=True) == ast.dump(want, include_attributes=True)
    assert got.body[-1] is got.body[-2] is shared


def test_an_edited_and_reloaded_module_converts_its_new_source(tmp_path, monkeypatch):
    import importlib.util
    import sys

    import autograph

    monkeypatch.setattr(sys, 'dont_write_bytecode', True)  # no stale bytecode either
    path = tmp_path / 'edited_module.py'

    def load(delta):
        path.write_text('def f(x):\n    if x > 0:\n        x = x - %d\n    return x\n' % delta)
        spec = importlib.util.spec_from_file_location('edited_module', path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    assert autograph.convert(load(1).f)(5) == 4
    assert autograph.convert(load(100).f)(5) == -95  # not the lines linecache had cached
