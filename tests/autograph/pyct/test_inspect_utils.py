"""Tests for pyct/inspect_utils.py."""

import functools
import json
import math
import os
import sys
import sysconfig
import types

import pytest

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


def _sysconfig_answer(name):
    """is_stdlib_module's answer as sysconfig's directories give it (names, then the path)."""
    top = name.partition('.')[0]
    if top in getattr(sys, 'stdlib_module_names', ()) or top == 'builtins':
        return True
    path = getattr(sys.modules.get(top), '__file__', None)
    dirs = tuple(p for p in {sysconfig.get_paths().get('stdlib'),
                             sysconfig.get_paths().get('platstdlib')} if p)
    return bool(path and dirs) and path.startswith(dirs) and 'site-packages' not in path


_STDLIB_DIR = sysconfig.get_paths()['stdlib']


@pytest.mark.parametrize('path', [
    os.path.join(_STDLIB_DIR, 'ag_fake_module.py'),  # in the standard library's directory
    os.path.join(_STDLIB_DIR, 'site-packages', 'ag_fake_module.py'),
    os.path.join(sys.prefix, 'ag_fake_module.py'),  # under a prefix, not in the library
    os.path.join(os.path.dirname(__file__), 'ag_fake_module.py'),
], ids=['stdlib-dir', 'site-packages', 'prefix', 'tests'])
def test_is_stdlib_module_by_path_agrees_with_sysconfig(path, monkeypatch):
    # A module whose name is not a standard one is decided by its file's directory; the
    # prefix test that spares loading sysconfig must not change the answer.
    module = types.ModuleType('ag_fake_module')
    module.__file__ = path
    monkeypatch.setitem(sys.modules, 'ag_fake_module', module)
    assert inspect_utils.is_stdlib_module('ag_fake_module') == _sysconfig_answer(
        'ag_fake_module')
    assert inspect_utils.is_stdlib_module('ag_fake_module') == (path.startswith(_STDLIB_DIR)
                                                                and 'site-packages' not in path)


def test_is_stdlib_module_agrees_with_sysconfig_on_every_loaded_module():
    names = sorted(sys.modules)
    assert len(names) > 100
    assert [n for n in names if inspect_utils.is_stdlib_module(n) != _sysconfig_answer(n)] == []


def test_unwrap_partial_merges_arguments():
    p = functools.partial(functools.partial(f, 1), b=2)
    assert inspect_utils.unwrap_partial(p) == (f, (1,), {'b': 2})


def test_names_and_sites():
    assert inspect_utils.getqualname(f) == 'f'
    assert inspect_utils.getdefinition_site(f) == '%s:%d' % (__file__,
                                                              f.__code__.co_firstlineno)
    assert inspect_utils.is_builtin_name('len') and not inspect_utils.is_builtin_name('nope')


def test_first_user_frame_with_source_skips_code_without_a_file():
    namespace = {}
    exec(compile("def g(h):\n    return h()\n", "<generated>", "exec"), namespace)  # noqa: S102
    generated = namespace["g"](lambda: sys._getframe(1))
    assert generated.f_code.co_filename == "<generated>"
    assert inspect_utils.first_user_frame(generated) == (generated, 0)
    frame, hops = inspect_utils.first_user_frame(generated, with_source=True)
    assert frame.f_code.co_name == "test_first_user_frame_with_source_skips_code_without_a_file"
    assert hops == 1
