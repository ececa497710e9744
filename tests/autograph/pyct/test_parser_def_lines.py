"""parse_entity parses a def from its own lines: the same tree as parsing the whole file, for
every layout, and no whole-file tree is kept."""
import ast
import linecache

import gast
import pytest

from autograph.pyct import parser

_count = [0]


def _functions(source):
    """Executes `source` from a fresh linecache file; returns its namespace and file name."""
    _count[0] += 1
    filename = f"<parser def lines {_count[0]}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - test input
    return namespace, filename


def _whole_file_def(source, name, lineno):
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name \
                and (node.decorator_list[0].lineno if node.decorator_list else node.lineno) \
                == lineno:
            return node
    raise AssertionError(name)


LAYOUTS = {
    "top_level": "def f(x):\n    return x + 1\n\n\ny = 2\n",
    "one_line": "def f(x): return x + 1\ny = 2\n",
    "signature_over_lines": "def f(\n    x,\n    y=1,\n):\n    return x + y\n",
    "decorated": "def deco(g):\n    return g\n\n\n@deco\n@deco\ndef f(x):\n    return x\n",
    "decorator_over_lines": ("def deco(*a):\n    return lambda g: g\n\n\n@deco(\n    1,\n)\n"
                             "def f(x):\n    return x\n"),
    "method": ("class A:\n    def f(self, x):\n        if x:\n            return 1\n"
               "# a comment at column 0\n        return 2\n\n    def g(self):\n"
               "        return 3\n"),
    "string_at_column_0": 'def f(x):\n    s = """\nleft\n"""\n    return s\n',
    "bracket_at_column_0": "def f(x):\n    y = (x +\n1)\n    return y\n",
    "tabs": "class A:\n\tdef f(self, x):\n\t\treturn x\n",
    "async": "async def f(x):\n    return x\n",
    "nested": "def outer():\n    def f(x):\n        return x\n    return f\n",
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_def_tree_equals_the_whole_file_parse(layout):
    source = LAYOUTS[layout]
    namespace, _ = _functions(source)
    fn = namespace.get("f") or getattr(namespace.get("A"), "f", None) or namespace["outer"]()
    got = parser.parse_entity(fn)
    want = gast.ast_to_gast(_whole_file_def(source, "f", fn.__code__.co_firstlineno))
    assert gast.dump(got, include_attributes=True) == gast.dump(want, include_attributes=True)


def test_a_def_is_parsed_without_keeping_its_file():
    namespace, filename = _functions("def f(x):\n    return x\n\n\ng = lambda y: y\n")
    parser.parse_entity(namespace["f"])
    assert filename not in parser._FILE_INDEX
    parser.parse_entity(namespace["g"])
    _, index = parser._FILE_INDEX[filename]
    kept = [node for nodes in index.values() for node in nodes]
    assert [type(node) for node in kept] == [ast.Lambda]
