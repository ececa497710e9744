"""Tests for impl/conversion.py: the pipeline, unsupported syntax, and the cache."""

import os
import subprocess
import sys
import textwrap
import warnings

import gast
import pytest

import autograph as ag
from autograph import errors
from autograph.impl import code_cache
from autograph.impl import conversion
from autograph.pyct import naming


def _define(source, name):
    """Defines a function from source registered in linecache (a fake file)."""
    import linecache  # pylint: disable=g-import-not-at-top
    source = textwrap.dedent(source)
    filename = '<test %s>' % name
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, 'exec'), namespace)  # pylint: disable=exec-used
    return namespace[name], filename


UNSUPPORTED = [
    ('gen', 'def gen():\n    yield 1\n', 'a generator function (yield) at <test gen>:2'),
    ('gen2', 'def gen2():\n    yield from ()\n',
     'a generator function (yield from) at <test gen2>:2'),
    ('walrus', 'def walrus(x):\n    return abs(x or (y := 1) + y)\n',
     'an assignment expression (:=) in an operand of `and`/`or` after the first at '
     '<test walrus>:2'),
    ('coro', 'async def coro():\n    pass\n', 'an async function at <test coro>:1'),
]


@pytest.mark.parametrize('name,source,reason', UNSUPPORTED, ids=[u[0] for u in UNSUPPORTED])
def test_unsupported_syntax_is_named(name, source, reason):
    fn, _ = _define(source, name)
    with pytest.raises(errors.UnsupportedSyntaxError) as info:
        conversion.get_factory(fn)
    assert str(info.value) == reason + ' is not supported'
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        assert ag.convert(fn) is fn
    assert len(caught) == 1 and reason in str(caught[0].message)


def test_except_star_is_named():
    # except* does not parse before Python 3.11: build the node.
    node = gast.parse('def star():\n    try:\n        pass\n    except ValueError:\n'
                      '        pass\n').body[0]
    try_node = node.body[0]
    node.body[0] = gast.TryStar(body=try_node.body, handlers=try_node.handlers, orelse=[],
                                finalbody=[])
    gast.copy_location(node.body[0], try_node)
    with pytest.raises(errors.UnsupportedSyntaxError) as info:
        conversion.check_supported(node, 'f.py')
    assert str(info.value) == 'try/except* at f.py:2 is not supported'


def test_type_parameters_are_named():
    # PEP 695 syntax does not parse before Python 3.12: give a parsed def type parameters.
    node = gast.parse('def first(xs):\n    return xs[0]\n').body[0]
    node.type_params = [gast.Name(id='T', ctx=gast.Load(), annotation=None, type_comment=None)]
    with pytest.raises(errors.UnsupportedSyntaxError) as info:
        conversion.check_supported(node, 'f.py')
    assert str(info.value) == 'type parameters (PEP 695) at f.py:1 is not supported'


def test_check_supported_collects_the_names_the_namer_avoids():
    # the walk that checks the syntax also collects every identifier (naming.collect_names),
    # those inside a nested generator it does not check included
    node = gast.parse(textwrap.dedent('''
        def outer(a, *rest, key=None, **kw):
            global g
            import os.path as osp, sys
            class Local:
                pass
            def gen():
                nonlocal_in_gen = yield hidden
            def inner():
                nonlocal a
                return lambda b: b + c
            for item in rest:
                del item
            return osp, sys, Local, gen, inner
        ''')).body[0]
    names = conversion.check_supported(node, 'f.py')
    assert names == naming.collect_names(node)
    assert {'outer', 'a', 'rest', 'key', 'kw', 'g', 'osp', 'sys', 'Local', 'gen', 'hidden',
            'nonlocal_in_gen', 'inner', 'b', 'c', 'item'} <= names


# Functions that give each skippable converter its work (and one that gives none of them any).
_CONVERTER_CASES = {
    'plain': ('def plain(n):\n    s = 0\n    while n > 1:\n        if n % 2:\n'
              '            n = n - 1\n        s += 1\n    return s\n'),
    'brk': 'def brk(n):\n    while n:\n        if n > 3:\n            break\n        n -= 1\n    return n\n',
    'loop_else': ('def loop_else(n):\n    while n > 5:\n        n -= 2\n    else:\n'
                  '        n = -n\n    return n\n'),
    'cont': ('def cont(n):\n    s = 0\n    for i in range(n):\n        if i % 2:\n'
             '            continue\n        s += i\n    return s\n'),
    'asserting': 'def asserting(n):\n    assert n > 0, f"bad {n}"\n    return n\n',
    'appending': 'def appending(n):\n    out = []\n    out.append(n)\n    return out.pop()\n',
    'calling': 'def calling(n):\n    return abs(n) + len([n])\n',
    'no_return': 'def no_return(n):\n    while n > 0:\n        n -= 1\n',
    'returns': ('def returns(n):\n    while n > 0:\n        if n == 3:\n            return n\n'
                '        n -= 1\n    return -1\n'),
    'nested': ('def nested(n):\n    def inner(m):\n        while m:\n            m -= 1\n'
               '            if m == 2:\n                break\n        return m\n'
               '    return lambda: n\n'),
}


@pytest.mark.parametrize('name', sorted(_CONVERTER_CASES))
def test_skipped_converters_would_not_have_changed_the_tree(name, monkeypatch):
    fn, _ = _define(_CONVERTER_CASES[name], name)
    with_skips = ag.to_code(fn)
    monkeypatch.setattr(conversion, '_CONVERTER_KINDS', {})  # every converter runs
    conversion.clear_cache()
    assert ag.to_code(fn) == with_skips


def test_converters_without_work_are_not_run(monkeypatch):
    ran = []
    for converter in conversion._CONVERTER_KINDS:
        real = converter.transform
        monkeypatch.setattr(converter, 'transform',
                            lambda node, ctx, real=real, name=converter.__name__:
                            ran.append(name.rpartition('.')[2]) or real(node, ctx))
    fn, _ = _define(_CONVERTER_CASES['plain'], 'plain')
    conversion.convert_tree(fn)
    assert ran == ['return_statements']
    for name, expected in [('brk', ['break_statements', 'return_statements']),
                           ('loop_else', ['break_statements', 'return_statements']),
                           ('cont', ['directives', 'aliases', 'continue_statements',
                                     'return_statements', 'lists', 'call_trees']),
                           ('asserting', ['asserts', 'return_statements']),
                           ('calling', ['directives', 'generators', 'aliases',
                                        'return_statements', 'lists', 'call_trees']),
                           # `[n]`: a list display
                           ('no_return', []), ('returns', ['return_statements'])]:
        ran.clear()
        fn, _ = _define(_CONVERTER_CASES[name], name)
        conversion.convert_tree(fn)
        assert ran == expected, name


def test_nested_generator_stays_plain_python():
    fn, _ = _define('''
        def with_gen(n):
            def evens():
                for i in range(n):
                    if i % 2 == 0:
                        yield i
            total = 0
            for v in evens():
                total += v
            return total
    ''', 'with_gen')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        converted = ag.convert(fn)
        assert converted is not fn and converted(7) == fn(7) == 12
    assert 'def evens():\n' in ag.to_code(fn) and 'yield i' in ag.to_code(fn)


def test_nested_async_function_stays_plain_python_and_the_enclosing_one_converts():
    fn, _ = _define('''
        import asyncio

        def with_coroutine(n):
            async def scaled(v):
                await asyncio.sleep(0)
                if v > 2:
                    return v * 10
                return v
            total = 0
            while n > 0:
                total += n
                n -= 1
            return total, scaled
    ''', 'with_coroutine')
    import asyncio
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        converted = ag.convert(fn)
    assert converted is not fn
    total, scaled = converted(4)
    plain_total, plain_scaled = fn(4)
    assert total == plain_total == 10
    assert [asyncio.run(scaled(v)) for v in (1, 3)] == [
        asyncio.run(plain_scaled(v)) for v in (1, 3)] == [1, 30]
    code = ag.to_code(fn)
    assert 'async def scaled(v):' in code and 'await asyncio.sleep(0)' in code
    assert 'ag__.while_stmt' in code and code.count('ag__.if_stmt') == 0


def test_cache_is_per_code_object():
    def make(k):
        def f(x):
            return x + k
        return f
    f1, f2 = make(1), make(2)
    assert conversion.get_factory(f1) is conversion.get_factory(f2)
    assert ag.convert(f1)(1) == 2 and ag.convert(f2)(1) == 3


def test_cache_entries_go_with_their_code_objects():
    cache = code_cache.CodeCache()  # pylint: disable=protected-access
    codes = [compile('x = %d' % i, '<c%d>' % i, 'exec') for i in range(3)]
    for i, code in enumerate(codes):
        cache[code] = 'value %d' % i
    assert len(cache) == 3 and [cache.get(c) for c in codes] == ['value 0', 'value 1', 'value 2']
    equal = compile('x = 1', '<elsewhere>', 'exec')
    assert equal == codes[1] and equal not in cache and cache.get(equal) is None
    cache[codes[0]] = 'replaced'
    assert cache.get(codes[0]) == 'replaced' and len(cache) == 3
    del codes[1]
    assert len(cache) == 2 and all(c in cache for c in codes)
    cache[equal] = 'new'
    assert cache.get(equal) == 'new' and len(cache) == 3
    cache.clear()
    assert len(cache) == 0 and cache.get(codes[0]) is None


def test_future_annotations_module_flags():
    fn, _ = _define('''
        from __future__ import annotations
        def annotated(x: NotDefinedAnywhere) -> AlsoNot:
            def inner(y: Nope):
                return y
            return inner(x)
    ''', 'annotated')
    assert ag.convert(fn)(3) == 3


def test_positional_only_and_keyword_only_parameters():
    fn, _ = _define('''
        def params(a, /, b, *, c=3):
            if a:
                return a + b + c
            return b
    ''', 'params')
    converted = ag.convert(fn)
    assert converted(1, 2) == 6 and converted(0, b=5, c=1) == 5
    with pytest.raises(TypeError):
        converted(a=1, b=2)


def test_convert_tree_runs_every_converter():
    fn, _ = _define('''
        def every(xs):
            out = []
            for x in xs:
                if x > 0 and x < 10:
                    out.append(x if x % 2 else -x)
                else:
                    continue
            assert out, 'empty'
            return out
    ''', 'every')
    node, _ = conversion.convert_tree(fn)
    from autograph.pyct import parser  # pylint: disable=g-import-not-at-top
    code = parser.unparse(node)
    for marker in ('ag__.FunctionScope', 'ag__.for_stmt', 'ag__.if_stmt', 'ag__.and_',
                   'ag__.if_exp', 'ag__.assert_stmt', 'ag__.list_append', 'continue_'):
        assert marker in code, marker
    assert ag.convert(fn)([1, 2, 30, -1]) == [1, -2]


def test_a_fresh_process_converts_without_importing_autograph_modules(tmp_path):
    # Everything the first conversion runs (the CFG builder included) comes with
    # `import autograph`: importing a module there was a fresh process's first call paying
    # for the import machinery, on top of the conversion.
    (tmp_path / 'first.py').write_text(textwrap.dedent('''
        def steps(n):
            count = 0
            while n > 1:
                if n % 2 == 0:
                    n = n // 2
                else:
                    n = 3 * n + 1
                count += 1
            return count
    '''))
    script = textwrap.dedent('''
        import sys
        import autograph
        import first
        before = set(sys.modules)
        print(autograph.convert(first.steps)(27))
        print(sorted(m for m in set(sys.modules) - before if m.startswith('autograph')))
    ''')
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR='',
               PYTHONPATH=os.pathsep.join([root, str(tmp_path)]))
    proc = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                          env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == '111\n[]\n'
