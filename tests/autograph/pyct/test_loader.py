"""Tests for pyct/loader.py."""

import traceback

import gast

from autograph.pyct import loader
from autograph.pyct import parser


def test_load_ast_compiles_under_the_user_file_and_lines():
    node = gast.parse('\n' * 40 + 'def g(a):\n\n    raise KeyError(a)\n').body[0]
    namespace = loader.load_ast([node], '/user/file.py')
    try:
        namespace['g'](1)
    except KeyError as e:
        frame = traceback.extract_tb(e.__traceback__)[-1]
    assert (frame.filename, frame.lineno, frame.name) == ('/user/file.py', 43, 'g')


def test_future_flags_are_honoured():
    import __future__  # pylint: disable=g-import-not-at-top
    node = parser.parse('def h(a: undefined_name):\n    return 1\n')
    namespace = loader.load_ast([node], '<x>', __future__.annotations.compiler_flag)
    assert namespace['h'].__annotations__ == {'a': 'undefined_name'}


def test_iter_code_objects():
    def outer():
        def inner():
            return lambda: 1
        return inner
    names = sorted(c.co_name for c in loader.iter_code_objects(outer.__code__))
    assert names == ['<lambda>', 'inner', 'outer']
