"""CPython's own pattern-matching tests (`test.test_patma`), each test method converted.

Every test method of the module runs twice, as written and converted (strict: a method that
does not convert fails here). They are CPython's specification of `match`: every pattern kind,
guards, binding rules, evaluation order, errors. A converted method must pass as the original
does, except the ones listed below, which inspect the function's frame rather than its
results: converted code has locals of its own (the subject's name, the generated branch
functions) and runs its blocks in nested functions, so `locals()` and line tracing differ.
"""

import inspect
import unittest
import warnings

import autograph as ag
from test import test_patma  # CPython's test package (pyenv's builds include it)

# methods that read locals(): converted code has generated locals and nested functions
_LOCALS = {'TestPatma.test_patma_%d' % n for n in
           list(range(204, 222)) + [246, 247]}
# methods that record line events with sys.settrace
_TRACING = {'TestTracing.test_' + name for name in (
    'default_capture', 'default_wildcard', 'no_default', 'only_default_capture',
    'only_default_wildcard', 'unreachable_code')}


def _outcome(case_class, name, method):
    test = type(case_class.__name__, (case_class,), {name: method})(name)
    result = unittest.TestResult()
    test.run(result)
    problems = result.failures + result.errors
    return 'skipped' if result.skipped else 'ok' if not problems else problems[0][1]


def _methods():
    for _, case_class in inspect.getmembers(test_patma, inspect.isclass):
        if issubclass(case_class, unittest.TestCase):
            for name in sorted(n for n in dir(case_class) if n.startswith('test')):
                yield case_class, name


def test_every_converted_test_method_passes_as_the_original():
    differ, checked = set(), 0
    for case_class, name in _methods():
        method = getattr(case_class, name)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # the module's own SyntaxWarnings
            converted = ag.convert(method, strict=True)
            original = _outcome(case_class, name, method)
            result = _outcome(case_class, name, converted)
        assert original == 'ok', (name, original)
        key = '%s.%s' % (case_class.__name__, name)
        if key in _LOCALS:
            assert 'locals()' in inspect.getsource(method)
        if result != original:
            differ.add(key)
        checked += 1
    assert checked > 300
    # (on Python 3.10, test_unreachable_code's trace happens to agree)
    assert _LOCALS <= differ <= _LOCALS | _TRACING
