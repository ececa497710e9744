"""Tests for pyct/inspect_utils.py."""

import functools
import json
import math

from autograph.pyct import inspect_utils


def f(a, b=1):
    return a + b


def test_is_builtin():
    assert inspect_utils.is_builtin(len) and inspect_utils.is_builtin(math.sqrt)
    assert inspect_utils.is_builtin([].append) and inspect_utils.is_builtin(str.upper)
    assert not inspect_utils.is_builtin(f) and not inspect_utils.is_builtin(json.dumps)


def test_is_stdlib_module():
    assert inspect_utils.is_stdlib_module('json.decoder')
    assert inspect_utils.is_stdlib_module('os')
    assert not inspect_utils.is_stdlib_module('numpy')
    assert not inspect_utils.is_stdlib_module(__name__)
    assert not inspect_utils.is_stdlib_module(None)


def test_unwrap_partial_merges_arguments():
    p = functools.partial(functools.partial(f, 1), b=2)
    assert inspect_utils.unwrap_partial(p) == (f, (1,), {'b': 2})


def test_names_and_sites():
    assert inspect_utils.getqualname(f) == 'f'
    assert inspect_utils.getdefinition_site(f) == '%s:%d' % (__file__,
                                                              f.__code__.co_firstlineno)
    assert inspect_utils.is_builtin_name('len') and not inspect_utils.is_builtin_name('nope')
