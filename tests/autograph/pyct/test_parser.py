"""Tests for pyct/parser.py."""

import linecache
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


def test_source_filename_of_frozen_module():
    import posixpath  # pylint: disable=g-import-not-at-top
    assert parser.source_filename(posixpath.join) == posixpath.__file__
    assert parser.source_filename(plain) == __file__
