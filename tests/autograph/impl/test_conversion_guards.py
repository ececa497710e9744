"""Failures that must not escape convert (autograph/impl/conversion_guards.py), and source that
is not the code that runs (autograph/pyct/running_code.py)."""
import importlib.util
import linecache
import os
import sys
import warnings

import pytest

import autograph
from autograph import errors
from autograph.impl import conversion
from autograph.pyct import parser
from tests.autograph.impl.test_disk_cache import _load


def _deep_source(terms):
    return ('def deep(x):\n'
            '    if x > 0:\n'
            '        y = %s\n'
            '    else:\n'
            '        y = -x\n'
            '    return y\n' % ' + '.join(['x'] * terms))


# Python 3.12's compile() of an ast tree stops at a fixed C recursion limit (2,000 terms
# raise RecursionError there whatever the recursion limit; 1,400 compile). Deeper trees run
# unconverted with the documented warning (test_too_deep_..._on_python_3_12 below).
_PY312 = sys.version_info[:2] == (3, 12)
DEEPEST = 1400 if _PY312 else 2000


@pytest.mark.parametrize('terms', [330, DEEPEST])
def test_a_deep_expression_converts(tmp_path, terms):
    module = _load(tmp_path, _deep_source(terms), 'deep_%d' % terms)
    limit = sys.getrecursionlimit()
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # converted, not run unconverted with a warning
        converted = autograph.convert(module.deep)
        assert converted(3) == module.deep(3) == 3 * terms
        assert converted(-2) == 2
    assert converted is not module.deep
    assert sys.getrecursionlimit() == limit


def test_a_deep_expression_shows_in_to_code(tmp_path):
    module = _load(tmp_path, _deep_source(DEEPEST), 'deep_code')
    assert 'ag__.if_stmt' in autograph.to_code(module.deep)


def test_2000_terms_convert_except_on_python_3_12_where_they_run_with_the_warning(tmp_path):
    module = _load(tmp_path, _deep_source(2000), 'deep_2000_terms')
    if _PY312:
        with pytest.warns(UserWarning, match='nested too deeply.*runs unconverted'):
            converted = autograph.convert(module.deep)
        assert converted is module.deep
    else:
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            converted = autograph.convert(module.deep)
        assert converted is not module.deep
    assert converted(3) == 6000 and converted(-2) == 2


def test_too_deep_for_any_stack_runs_unconverted_with_the_documented_warning(tmp_path,
                                                                           monkeypatch):
    module = _load(tmp_path, _deep_source(5), 'deep_tiny')

    def always_too_deep(fn, check_code=True):
        raise RecursionError('maximum recursion depth exceeded')
    monkeypatch.setattr(conversion, '_convert_tree', always_too_deep)
    conversion.clear_cache()
    with pytest.warns(UserWarning, match='nested too deeply.*runs unconverted'):
        assert autograph.convert(module.deep)(2) == 10


@pytest.mark.parametrize('error', [EOFError, MemoryError, RecursionError])
def test_no_failure_of_the_pipeline_escapes_convert(tmp_path, monkeypatch, error):
    module = _load(tmp_path, _deep_source(2), 'escapes_%s' % error.__name__)

    def broken(fn, check_code=True):
        raise error('from the pipeline')
    monkeypatch.setattr(parser, 'parse_entity', broken)
    conversion.clear_cache()
    with pytest.warns(UserWarning, match='runs unconverted'):
        assert autograph.convert(module.deep)(2) == 4
    with pytest.raises(errors.ConversionError):
        conversion.clear_cache()
        autograph.convert(module.deep, strict=True)


FRAME_CALLS = '''
def uses_eval(x):
    if x > 0:
        y = eval('x * 2')
    else:
        y = 0
    return y


def uses_locals(x):
    total = 0
    for i in range(x):
        total += len(locals())
    return total


def explicit_namespaces(x):
    if x > 0:
        x = eval('x * 2', {}, {'x': x})
    return x


def outside_blocks(x):
    y = eval('x * 2')
    return y
'''


def test_frame_calls_in_converted_blocks_warn_with_function_file_and_line(tmp_path):
    module = _load(tmp_path, FRAME_CALLS, 'frame_calls')
    with pytest.warns(UserWarning) as record:
        autograph.convert(module.uses_eval)
        autograph.convert(module.uses_locals)
    messages = [str(w.message) for w in record]
    assert any(m.startswith('uses_eval (%s:4) calls eval()' % module.__file__)
               for m in messages), messages
    assert any(m.startswith('uses_locals (%s:13) calls locals()' % module.__file__)
               for m in messages), messages
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert autograph.convert(module.explicit_namespaces)(3) == 6
        assert autograph.convert(module.outside_blocks)(3) == 6


def _import(path, name):
    """Imports the file `path` as it is (a new module object, as importlib.reload makes)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _edit(path, old, new):
    """Rewrites `path` with `old` replaced by `new`, keeping its size and modification time."""
    st = os.stat(path)
    text = path.read_text()
    assert len(old) == len(new) and old in text
    path.write_text(text.replace(old, new))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


STALE = '''
def f(x):
    if x > 0:
        return x + 1
    return 0
'''


def test_an_edited_file_is_not_converted_for_the_old_code(tmp_path):
    # Edited after import, without reload: linecache reads the new text, which is not the
    # code that runs. Plain Python still runs the old code (4); the conversion must not
    # give the new text's 5.
    module = _load(tmp_path, STALE, 'stale_edit')
    linecache.checkcache()
    path = tmp_path / 'stale_edit.py'
    st = os.stat(path)
    path.write_text(STALE.replace('x + 1', 'x + 2') + '\n# longer now\n')
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.warns(UserWarning, match='is not the code that runs.*runs unconverted'):
        assert autograph.convert(module.f)(3) == module.f(3) == 4


def test_a_same_size_same_time_edit_with_reload_is_detected(tmp_path):
    # The module is reloaded (new code), but the edit kept the size and time, so linecache
    # keeps the old text: the conversion must not run the old text for the new code.
    module = _load(tmp_path, STALE, 'stale_reload')
    linecache.getlines(module.__file__)  # linecache holds the first text
    path = tmp_path / 'stale_reload.py'
    _edit(path, 'x + 1', 'x + 2')
    module = _import(path, 'stale_reload')
    with pytest.warns(UserWarning, match='is not the code that runs'):
        assert autograph.convert(module.f)(3) == module.f(3) == 5


def test_another_function_on_the_line_is_detected(tmp_path):
    module = _load(tmp_path, STALE, 'stale_moved')
    linecache.getlines(module.__file__)
    path = tmp_path / 'stale_moved.py'
    path.write_text('\ndef f(x):\n    return 3000\n' + '\n' * 3)
    with pytest.warns(UserWarning, match='is not the code that runs'):
        assert autograph.convert(module.f)(3) == 4


def test_functions_with_closures_methods_and_module_calls_pass_the_check(tmp_path):
    module = _load(tmp_path, '''
import math

def outer(k):
    def inner(x):
        if x > k:
            return math.floor(x) - k
        return __class_free(x)
    return inner

def __class_free(x):
    return x

class Holder:
    def __private(self, x):
        return x

    def method(self, x):
        while x > 10:
            x = self.__private(x) - 3
        return super().__hash__() * 0 + x
''', 'check_passes')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert autograph.convert(module.outer(2))(5.5) == 3
        assert autograph.convert(module.Holder().method)(20) == 8


def test_code_nested_in_a_lambda_passes_the_check(tmp_path):
    # The enclosing scopes are named <lambda> and <genexpr>, which no def can be named.
    module = _load(tmp_path, '''
outer = lambda k: (lambda x: x + k if x > 0 else k)
gen = lambda n: list((lambda y: y * 2) for _ in range(n))
''', 'check_lambdas')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert autograph.convert(module.outer(2))(5) == 7
        assert autograph.convert(module.outer(2))(-5) == 2
        assert autograph.convert(module.gen(1)[0])(4) == 8


def test_module_attribute_calls_match_without_the_slow_comparison(tmp_path, monkeypatch):
    # `math.floor(x)` compiles to an attribute load where `math` is imported at the top of the
    # module: the check compiles the definition beside such imports, so the exact comparison
    # holds and the instruction-by-instruction one (dis) is not needed.
    from autograph.pyct import running_code  # pylint: disable=import-outside-toplevel
    module = _load(tmp_path, 'import math\n\ndef f(x):\n    if x > 0:\n'
                             '        return math.floor(x) + math.ceil(x)\n    return 0\n',
                   'module_calls')

    def no_slow_path(code):
        raise AssertionError('compared instruction by instruction')
    monkeypatch.setattr(running_code, '_instructions', no_slow_path)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert autograph.convert(module.f)(2.5) == 5


def test_a_function_run_with_other_globals_passes_the_check(tmp_path):
    # The module imports `math`; the copy of `f` runs with a namespace object in its place
    # (as benchmarks/workloads.py's with_backend does): the check cannot know that `math`
    # was a module where `f` was compiled, and Python 3.13 compiles `math.floor(x)` apart
    # in the two cases (an attribute load and a PUSH_NULL, or a method load).
    import types  # pylint: disable=import-outside-toplevel
    module = _load(tmp_path, 'import math\n\ndef f(x):\n    if x > 0:\n'
                             '        return math.floor(x)\n    return 0\n', 'other_globals')
    namespace = dict(module.f.__globals__, math=types.SimpleNamespace(floor=lambda x: -1))
    copy = types.FunctionType(module.f.__code__, namespace, 'f')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert autograph.convert(copy)(2.5) == -1
