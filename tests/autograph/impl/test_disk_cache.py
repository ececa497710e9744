"""The on-disk cache of converted code (autograph/impl/disk_cache.py)."""
import importlib.util
import logging
import os
import subprocess
import sys
import textwrap
import traceback

import pytest

import autograph
from autograph.impl import conversion
from autograph.impl import disk_cache
from autograph.impl import logs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

SOURCE = textwrap.dedent('''
    import autograph.experimental

    opts = autograph.experimental.set_loop_options


    def count(n, limit):
        total = 0
        i = 0
        while i < n:
            opts(maximum_iterations=limit)
            if i % 2:
                total += i
            else:
                total -= 1
            i += 1
        return total


    def fails(x):
        if x > 0:
            y = x
        return y  # unbound for x <= 0
''')


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / 'cache'
    disk_cache.set_directory(str(directory))
    monkeypatch.setattr(sys, 'dont_write_bytecode', False)
    conversion.clear_cache()
    yield directory
    disk_cache.reset()
    conversion.clear_cache()


def _load(tmp_path, source=SOURCE, name='cached_module'):
    path = tmp_path / (name + '.py')
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _entries(directory):
    return sorted(p.name for p in directory.rglob('*') if p.is_file())


def _no_conversion(*_):
    raise AssertionError('converted again instead of loading from the disk cache')


def test_a_conversion_is_stored_and_loaded_without_converting(tmp_path, cache_dir, monkeypatch):
    module = _load(tmp_path)
    assert autograph.convert(module.count)(7, 100) == module.count(7, 100) == 5
    assert len(_entries(cache_dir)) == 1
    conversion.clear_cache()
    monkeypatch.setattr(conversion, 'convert_tree', _no_conversion)
    loaded = autograph.convert(module.count)
    assert [loaded(n, 100) for n in range(6)] == [module.count(n, 100) for n in range(6)]


def test_loaded_code_keeps_the_users_file_line_and_name_in_tracebacks(tmp_path, cache_dir,
                                                                        monkeypatch):
    module = _load(tmp_path)
    autograph.convert(module.fails)
    conversion.clear_cache()
    monkeypatch.setattr(conversion, 'convert_tree', _no_conversion)
    with pytest.raises(UnboundLocalError) as e:
        autograph.convert(module.fails)(-1)
    frames = [f for f in traceback.extract_tb(e.value.__traceback__)
              if f.filename == module.__file__]
    assert [(f.name, f.line) for f in frames][-1] == ('fails', 'return y  # unbound for x <= 0')


def test_an_edited_file_is_converted_again(tmp_path, cache_dir):
    module = _load(tmp_path)
    autograph.convert(module.count)
    conversion.clear_cache()
    edited = _load(tmp_path, SOURCE.replace('total -= 1', 'total -= 10'))
    assert autograph.convert(edited.count)(4, 100) == edited.count(4, 100) == -16
    assert len(_entries(cache_dir)) == 2


def test_a_rebound_directive_name_is_converted_again(tmp_path, cache_dir, monkeypatch):
    module = _load(tmp_path)
    # `opts` is set_loop_options: the loop stops after `limit` iterations once staged; on
    # Python values, loop options are ignored, as in TensorFlow. What matters here is whether
    # the conversion treated the call as the directive (removed) or as a call (kept).
    assert 'opts(' not in autograph.to_code(module.count)
    autograph.convert(module.count)
    conversion.clear_cache()
    calls = []
    monkeypatch.setattr(module, 'opts', lambda **kw: calls.append(kw))
    assert autograph.convert(module.count)(3, 5) == -1
    assert calls == [{'maximum_iterations': 5}] * 3  # a plain call now: not the stale code
    assert len(_entries(cache_dir)) == 1  # same key; the entry was not reused


def test_a_second_process_loads_the_first_ones_conversion(tmp_path):
    module_path = tmp_path / 'two_runs.py'
    module_path.write_text(SOURCE)
    script = textwrap.dedent('''
        import importlib.util, sys
        from autograph.impl import conversion
        if sys.argv[1] == 'load':
            conversion.convert_tree = None  # would fail if called
        spec = importlib.util.spec_from_file_location('two_runs', sys.argv[2])
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        import autograph
        print(autograph.convert(module.count)(9, 100))
    ''')
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR=str(tmp_path / 'cache'), PYTHONPATH=ROOT)
    env.pop('PYTHONDONTWRITEBYTECODE', None)
    outputs = []
    for mode in ('store', 'load'):
        proc = subprocess.run([sys.executable, '-c', script, mode, str(module_path)],
                              capture_output=True, text=True, env=env, check=False)
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout)
    assert outputs == ['11\n', '11\n']


def test_a_store_writes_one_private_file_and_imports_nothing(tmp_path):
    # The entry is written as tempfile.mkstemp would write it (mode 0o600, then renamed in
    # place, no temporary left), without importing tempfile or anything else on the
    # first call's path.
    module_path = tmp_path / 'stored.py'
    module_path.write_text(SOURCE)
    script = textwrap.dedent('''
        import importlib.util, sys
        import autograph
        from autograph import backends
        spec = importlib.util.spec_from_file_location('stored', sys.argv[1])
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        backends.discover()  # what the installed entry points import (a backend, numpy)
        before = set(sys.modules)
        print(autograph.convert(module.count)(9, 100))
        print(sorted(set(sys.modules) - before))
    ''')
    cache = tmp_path / 'cache'
    env = dict(os.environ, AUTOGRAPH_CACHE_DIR=str(cache), PYTHONPATH=ROOT)
    env.pop('PYTHONDONTWRITEBYTECODE', None)
    proc = subprocess.run([sys.executable, '-c', script, str(module_path)],
                          capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == '11\n[]\n'
    files = [p for p in cache.rglob('*') if p.is_file()]
    assert len(files) == 1 and not files[0].name.startswith('.tmp')
    if os.name == 'posix':
        assert files[0].stat().st_mode & 0o777 == 0o600


def test_a_corrupt_entry_is_ignored_and_replaced(tmp_path, cache_dir):
    module = _load(tmp_path)
    autograph.convert(module.count)
    (entry,) = [p for p in cache_dir.rglob('*') if p.is_file()]
    entry.write_bytes(b'not marshal data')
    conversion.clear_cache()
    assert autograph.convert(module.count)(7, 100) == 5
    assert entry.read_bytes() != b'not marshal data'


def test_nothing_is_written_when_python_writes_no_bytecode(tmp_path, cache_dir, monkeypatch):
    monkeypatch.setattr(sys, 'dont_write_bytecode', True)
    module = _load(tmp_path)
    assert autograph.convert(module.count)(7, 100) == 5
    assert not cache_dir.exists() or not _entries(cache_dir)


def _log_of_second_conversion(tmp_path, caplog, verbosity):
    """Converts `count` (filling the disk cache), then again at `verbosity`; returns the log."""
    module = _load(tmp_path)
    autograph.convert(module.count)
    conversion.clear_cache()
    autograph.set_verbosity(verbosity)
    try:
        with caplog.at_level(logging.INFO, logger='autograph'):
            autograph.convert(module.count)
    finally:
        logs.reset_verbosity()
    return caplog.text


def test_generated_code_logging_bypasses_the_cache(tmp_path, cache_dir, caplog):
    assert 'Generated code of count' in _log_of_second_conversion(tmp_path, caplog, 2)


def test_the_cache_is_off_for_an_empty_directory_setting(monkeypatch):
    monkeypatch.setenv(disk_cache.ENV_DIRECTORY, '')
    disk_cache.reset()
    try:
        assert disk_cache.directory() is None
    finally:
        disk_cache.reset()


def _fake_entries(cache_dir, count, size=1):
    """Entries with valid names (not loadable), the i-th used at time i."""
    paths = []
    for i in range(count):
        key = ('%02x' % i) * 20
        folder = cache_dir / key[:2]
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        entry = folder / key
        entry.write_bytes(b'x' * size)
        os.utime(entry, ns=(i * 10**9, i * 10**9))
        paths.append(entry)
    return paths


def test_pruning_keeps_the_most_recently_used_entries(cache_dir):
    cache_dir.mkdir(mode=0o700)
    paths = _fake_entries(cache_dir, 8)
    disk_cache.prune(max_entries=4)
    assert _entries(cache_dir) == [p.name for p in paths[5:]]  # 3/4 of 4, newest kept


def test_pruning_bounds_the_bytes_too(cache_dir):
    cache_dir.mkdir(mode=0o700)
    paths = _fake_entries(cache_dir, 8, size=1000)
    disk_cache.prune(max_bytes=4000)
    assert _entries(cache_dir) == [p.name for p in paths[5:]]  # at most 3,000 bytes left


def test_a_load_from_the_disk_cache_is_logged(tmp_path, cache_dir, caplog):
    text = _log_of_second_conversion(tmp_path, caplog, 1)
    assert 'Conversion of count loaded from the disk cache' in text
