"""Functions of modules loaded from files, converted and traced, free their module (and its
globals) when dropped: the conversion caches do not keep them alive."""

import gc
import importlib.util
import itertools
import linecache
import os
import sys
import tracemalloc
import weakref

import pytest

import autograph as ag
import runtime as tf

_MODULE_SOURCE = '''
import numpy as np

BIG = np.ones(1 << 17)  # 1 MB, reachable only through the module's globals


def step(x):
    s = 0
    for i in range(x):
        if i % 2 == 0:
            s += i
        else:
            s -= 1
    return s + int(BIG[0]) * 0


def scale(x):
    return x * 2 if x > 0 else -x


class Counter:
    def count(self, x):
        while x > 10:
            x -= 3
        return x
'''

_counter = itertools.count()


def load_fresh_module(directory, source=_MODULE_SOURCE):
    """Writes `source` to a new file and loads it as a new module (not kept in sys.modules)."""
    name = 'fresh_module_%d' % next(_counter)
    path = directory / (name + '.py')
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _use(module):
    assert ag.convert(module.step)(5) == 0 + 2 + 4 - 2
    assert int(tf.function(module.step)(tf.constant(5)).numpy()) == 4
    assert ag.convert(module.scale)(-3) == 3
    assert int(tf.function(module.scale)(tf.constant(3)).numpy()) == 6
    obj = module.Counter()
    assert ag.convert(obj.count)(20) == 8
    assert int(tf.function(obj.count)(tf.constant(20)).numpy()) == 8
    return [weakref.ref(module), weakref.ref(module.BIG), weakref.ref(module.step),
            weakref.ref(module.Counter)]


def test_twenty_modules_are_freed_after_conversion_and_tracing(tmp_path):
    refs = [r for _ in range(20) for r in _use(load_fresh_module(tmp_path))]
    gc.collect()
    alive = [r() for r in refs if r() is not None]
    assert not alive, '%d of %d module objects kept alive' % (len(alive), len(refs))


def test_repeated_module_loads_keep_memory_flat(tmp_path):
    for _ in range(3):  # warm-up
        _use(load_fresh_module(tmp_path))
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for _ in range(10):
            _use(load_fresh_module(tmp_path))
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Each module holds 1 MB (numpy reports its buffers to tracemalloc): a leak of the
    # modules would retain 10 MB.
    assert after - before < 1 << 20, (before, after)


def _ast_nodes():
    import ast  # pylint: disable=import-outside-toplevel
    import gast  # pylint: disable=import-outside-toplevel
    return sum(1 for o in gc.get_objects() if isinstance(o, (ast.AST, gast.AST)))


@pytest.mark.filterwarnings("ignore::FutureWarning")  # isinstance() on every object: torch's
# deprecated module attributes warn when the scan touches them
def test_no_syntax_tree_outlives_the_conversions_of_a_large_module(tmp_path):
    source = _MODULE_SOURCE + ''.join(
        '\n\ndef f_%d(x):\n    while x > %d:\n        x = x - 3 if x %% 2 == 1 else x // 2\n'
        '    return (lambda y: y + %d)(x)\n' % (k, k, k) for k in range(300))
    module = load_fresh_module(tmp_path, source)
    _use(module)  # first uses (templates parsed once for the process) happen here
    gc.collect()
    before = _ast_nodes()
    kept = []
    for k in range(0, 300, 30):
        fn = getattr(module, 'f_%d' % k)
        staged = tf.function(fn)
        assert int(staged(tf.constant(100 + k)).numpy()) == fn(100 + k)
        assert ag.convert(fn)(7 + k) == fn(7 + k)
        kept.append(staged)
    gc.collect()
    # the module's whole tree has about 9,000 nodes; a conversion may keep none of them
    assert _ast_nodes() - before == 0


def test_the_text_of_a_bounded_number_of_files_is_kept(tmp_path, monkeypatch):
    # With the disk cache on, converting the functions of many files (each deleted after) kept
    # every file's text: in the cache's digests of the files, and in linecache.
    from autograph.impl import conversion  # pylint: disable=import-outside-toplevel
    from autograph.impl import disk_cache  # pylint: disable=import-outside-toplevel
    from autograph.pyct import parser  # pylint: disable=import-outside-toplevel
    disk_cache.set_directory(str(tmp_path / 'cache'))
    monkeypatch.setattr(sys, 'dont_write_bytecode', False)
    try:
        for i in range(parser._MAX_FILES + 40):  # pylint: disable=protected-access
            module = load_fresh_module(
                tmp_path, 'def f(x):\n    if x > %d:\n        x = x - 1\n    return x\n' % i)
            assert ag.convert(module.f)(1000) == 999
            os.remove(module.__file__)
    finally:
        disk_cache.reset()
        conversion.clear_cache()
    assert disk_cache.stats['stored'] >= parser._MAX_FILES + 40  # pylint: disable=protected-access
    kept = [name for name in linecache.cache if name.startswith(str(tmp_path))]
    assert len(kept) <= parser._MAX_FILES  # pylint: disable=protected-access
    assert len(disk_cache._file_digests) <= disk_cache._MAX_FILE_DIGESTS  # pylint: disable=protected-access
