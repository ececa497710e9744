"""The disk cache uses only this user's own files (autograph/impl/cache_files.py, docs/security.md).

Each test plays one attack or failure: another user's directory or entry, links, FIFOs,
foreign files under the cache, `python -O`, corrupt entries, a relative base directory.
Files are made another user's with os.chown when the suite runs as root (as in CI), and
writable by others (which is refused the same way) otherwise.
"""
import logging
import os
import random
import stat
import sys
import textwrap
import threading

import pytest

import autograph
from autograph.impl import cache_files
from autograph.impl import conversion
from autograph.impl import disk_cache
from tests.autograph.impl.test_disk_cache import _load
from tests.checkout import checkout_env
from tests.checkout import run_python

OTHER_UID = 54321
SOURCE = textwrap.dedent('''
    def add_ten(x):
        if x > 0:
            x = x + 10
        return x
''')


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / 'cache'
    disk_cache.set_directory(str(directory))
    monkeypatch.setattr(sys, 'dont_write_bytecode', False)
    monkeypatch.setattr(disk_cache, '_reported', set())
    conversion.clear_cache()
    yield directory
    disk_cache.reset()
    conversion.clear_cache()


def _files(directory):
    return sorted(p for p in directory.rglob('*') if p.is_file() and not p.is_symlink())


def _make_foreign(path):
    """Makes `path` another user's (as root) or writable by others (otherwise)."""
    if os.geteuid() == 0:
        os.chown(path, OTHER_UID, OTHER_UID, follow_symlinks=False)
    else:
        os.chmod(path, os.stat(path).st_mode | 0o022)


def _stored(tmp_path, cache_dir):
    """Converts add_ten once (storing its entry); returns (module, entry path)."""
    module = _load(tmp_path, SOURCE, 'sec_module')
    assert autograph.convert(module.add_ten)(5) == 15
    (entry,) = _files(cache_dir)
    return module, entry


def _converts_afresh(module, monkeypatch):
    """Converts add_ten again, and tells whether the conversion ran (not loaded)."""
    conversion.clear_cache()
    calls = []
    real = conversion.convert_tree
    monkeypatch.setattr(conversion, 'convert_tree', lambda fn: calls.append(fn) or real(fn))
    assert autograph.convert(module.add_ten)(5) == 15
    return bool(calls)


def _planted(entry):
    """Puts an entry that runs code (a marker file) under the victim's key, with a valid
    digest: what a user who can write the directory can do."""
    marker = entry.parent / 'pwned'
    code = compile('open(%r, "w").close()\n'
                   'def outer_factory():\n'
                   '    def inner_factory(ag__):\n'
                   '        def add_ten(x):\n'
                   '            return x + 10\n'
                   '        return add_ten\n'
                   '    return inner_factory\n' % str(marker), str(entry), 'exec')
    import marshal  # pylint: disable=import-outside-toplevel
    payload = marshal.dumps((code, ('add_ten',), (), ()))
    entry.write_bytes(disk_cache.encode_entry(entry.name, payload))
    return marker


def test_a_planted_entry_runs_when_the_directory_is_the_users(tmp_path, cache_dir,
                                                              monkeypatch):
    # The control for the tests below: the cache trusts what this user wrote.
    module, entry = _stored(tmp_path, cache_dir)
    marker = _planted(entry)
    assert not _converts_afresh(module, monkeypatch)
    assert marker.exists()


def test_another_users_cache_directory_is_refused(tmp_path, cache_dir, monkeypatch, caplog):
    module, entry = _stored(tmp_path, cache_dir)
    marker = _planted(entry)
    _make_foreign(cache_dir)
    disk_cache.set_directory(str(cache_dir))
    with caplog.at_level(logging.WARNING, logger='autograph'):
        assert _converts_afresh(module, monkeypatch)
    assert not marker.exists()
    assert disk_cache.directory() is None  # off for the process
    assert 'refused' in caplog.text and str(cache_dir) in caplog.text


def test_another_users_entry_is_refused_and_said_once(tmp_path, cache_dir, monkeypatch, caplog):
    module, entry = _stored(tmp_path, cache_dir)
    with caplog.at_level(logging.WARNING, logger='autograph'):
        for _ in range(2):  # (the store after a refusal puts this user's entry in its place)
            marker = _planted(entry)
            _make_foreign(entry)
            assert _converts_afresh(module, monkeypatch)
            assert not marker.exists()
    assert caplog.text.count('refused a file') == 1


def test_a_group_writable_cache_directory_is_refused(tmp_path, cache_dir, monkeypatch):
    module, entry = _stored(tmp_path, cache_dir)
    marker = _planted(entry)
    os.chmod(cache_dir, 0o770)
    disk_cache.set_directory(str(cache_dir))
    assert _converts_afresh(module, monkeypatch)
    assert not marker.exists()


def test_a_directory_above_the_cache_that_others_can_write_is_refused(tmp_path, monkeypatch):
    shared = tmp_path / 'shared'
    shared.mkdir()
    os.chmod(shared, 0o777)  # not sticky: anyone may rename the cache away and plant another
    disk_cache.set_directory(str(shared / 'cache'))
    monkeypatch.setattr(sys, 'dont_write_bytecode', False)
    monkeypatch.setattr(disk_cache, '_reported', set())
    try:
        module = _load(tmp_path, SOURCE, 'sec_module')
        assert autograph.convert(module.add_ten)(5) == 15
        assert not (shared / 'cache').exists()
    finally:
        disk_cache.reset()
        conversion.clear_cache()


def test_a_cache_directory_reached_through_a_link_is_refused(tmp_path, cache_dir, monkeypatch):
    module, entry = _stored(tmp_path, cache_dir)
    marker = _planted(entry)
    link = tmp_path / 'link'
    link.symlink_to(cache_dir)
    disk_cache.set_directory(str(link))
    assert _converts_afresh(module, monkeypatch)
    assert not marker.exists()


def test_an_entry_that_is_a_link_is_refused(tmp_path, cache_dir, monkeypatch):
    module, entry = _stored(tmp_path, cache_dir)
    elsewhere = tmp_path / 'elsewhere'
    entry.rename(elsewhere)
    marker = _planted(elsewhere)
    entry.symlink_to(elsewhere)
    assert _converts_afresh(module, monkeypatch)
    assert not marker.exists()


def test_an_entry_linked_to_dev_zero_is_refused(tmp_path, cache_dir, monkeypatch):
    module, entry = _stored(tmp_path, cache_dir)
    entry.unlink()
    entry.symlink_to('/dev/zero')
    assert _converts_afresh(module, monkeypatch)


# The start of a script run in a process of its own: `module` is the file sys.argv[1].
_LOAD_ARGV1 = textwrap.dedent('''
    import importlib.util, sys
    import autograph
    spec = importlib.util.spec_from_file_location('script_module', sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
''')


def test_a_fifo_entry_does_not_hang_conversion(tmp_path):
    # In a process of its own: on failure it hangs, and the timeout says so.
    module_path = tmp_path / 'fifo_module.py'
    module_path.write_text(SOURCE)
    script = _LOAD_ARGV1 + textwrap.dedent('''
        import os
        from autograph.impl import conversion
        autograph.convert(module.add_ten)
        (entry,) = [os.path.join(d, f) for d, _, fs in os.walk(sys.argv[2]) for f in fs]
        os.remove(entry)
        os.mkfifo(entry)
        conversion.clear_cache()
        print(autograph.convert(module.add_ten)(5))
    ''')
    cache = tmp_path / 'cache'
    env = dict(checkout_env(), AUTOGRAPH_CACHE_DIR=str(cache))
    env.pop('PYTHONDONTWRITEBYTECODE', None)
    proc = run_python(['-c', script, str(module_path), str(cache)], env=env, timeout=60)
    assert proc.stdout == '15\n'
    assert 'is not a regular file' in proc.stderr


def test_pruning_leaves_foreign_files_alone(tmp_path, cache_dir):
    _, entry = _stored(tmp_path, cache_dir)
    # a key name in a folder it does not belong to (a key of 'ff...' belongs in 'ff')
    stray = ('e' if entry.parent.name == 'ff' else 'f') * 40
    foreign = [cache_dir / 'notes.txt', cache_dir / 'ab' / 'user file', cache_dir / 'zz' / 'x',
               entry.parent / stray]
    for path in foreign:
        path.parent.mkdir(exist_ok=True, mode=0o700)
        path.write_text('keep me')
    private = tmp_path / 'private'
    private.mkdir()
    for i in range(5):
        (private / ('%02x' % i * 20)).write_text('keep me')
    # a folder name that is a link (not the entry's own folder, which is named by its key)
    (cache_dir / ('cd' if entry.parent.name != 'cd' else 'ce')).symlink_to(private)
    (entry.parent / ('c' * 40)).symlink_to(private / ('00' * 20))  # an entry that is a link
    disk_cache.prune(max_entries=0)
    assert not entry.exists()  # its own entry went
    assert all(p.read_text() == 'keep me' for p in foreign)
    assert len(list(private.iterdir())) == 5


def test_optimized_and_plain_runs_keep_separate_entries(tmp_path):
    module_path = tmp_path / 'asserting.py'
    module_path.write_text(textwrap.dedent('''
        def check(x):
            if x > 0:
                x = x * 2
            assert x > 0, 'positive'
            return x
    '''))
    script = _LOAD_ARGV1 + textwrap.dedent('''
        try:
            print(autograph.convert(module.check)(-1))
        except AssertionError:
            print('AssertionError')
    ''')
    cache = tmp_path / 'cache'
    env = dict(checkout_env(), AUTOGRAPH_CACHE_DIR=str(cache))
    env.pop('PYTHONDONTWRITEBYTECODE', None)
    outputs = [run_python(flags + ['-c', script, str(module_path)], env=env).stdout
               for flags in (['-O'], [], ['-O'], [])]
    assert outputs == ['-1\n', 'AssertionError\n', '-1\n', 'AssertionError\n']
    assert len(_files(cache)) == 2


def test_a_flipped_byte_is_detected_and_the_entry_rebuilt(tmp_path, cache_dir, monkeypatch):
    module, entry = _stored(tmp_path, cache_dir)
    good = entry.read_bytes()
    data = bytearray(good)
    data[len(data) // 2] ^= 0x01
    entry.write_bytes(bytes(data))
    assert _converts_afresh(module, monkeypatch)
    assert entry.read_bytes() != bytes(data)
    assert disk_cache.decode_entry(entry.name, entry.read_bytes()) is not None  # rebuilt
    assert disk_cache.stats['rejected'] >= 1


def test_every_flipped_byte_of_an_entry_is_rejected_and_removed(tmp_path, cache_dir,
                                                                 monkeypatch):
    # The corruption campaign: each byte position flipped once. A load must return nothing
    # and delete the file; converting then gives the right value (checked on a sample).
    module, entry = _stored(tmp_path, cache_dir)
    good = entry.read_bytes()
    key = entry.name
    rng = random.Random(32)
    sample = set(rng.sample(range(len(good)), 40)) | {0, len(good) - 1}
    removed = 0
    for position in range(len(good)):
        data = bytearray(good)
        data[position] ^= 1 << rng.randrange(8)
        entry.write_bytes(bytes(data))
        if position in sample:
            assert _converts_afresh(module, monkeypatch), position
            assert disk_cache.decode_entry(key, entry.read_bytes()) is not None  # rebuilt
            removed += 1
        else:
            assert disk_cache.load(key) is None, position
            removed += not entry.exists()
    assert removed == len(good)


def test_an_entry_moved_under_another_key_is_rejected(tmp_path, cache_dir):
    _, entry = _stored(tmp_path, cache_dir)
    # another key's folder: not the entry's own (named by its key's first two hex digits,
    # which depend on the test's temporary path)
    prefix = 'ab' if entry.name[:2] != 'ab' else 'cd'
    other = prefix + entry.name[2:]
    (cache_dir / prefix).mkdir(mode=0o700)
    (cache_dir / prefix / other).write_bytes(entry.read_bytes())
    os.chmod(cache_dir / prefix / other, 0o600)
    assert disk_cache.load(other) is None
    assert not (cache_dir / prefix / other).exists()


def test_only_code_objects_are_accepted(tmp_path, cache_dir):
    _, entry = _stored(tmp_path, cache_dir)
    import marshal  # pylint: disable=import-outside-toplevel
    payload = marshal.dumps(('def add_ten(x): return 0', ('add_ten',), (), ()))
    entry.write_bytes(disk_cache.encode_entry(entry.name, payload))  # a valid digest
    assert disk_cache.load(entry.name) is None
    assert not entry.exists()


def test_a_relative_cache_directory_turns_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(disk_cache, '_reported', set())
    monkeypatch.delenv(disk_cache.ENV_DIRECTORY, raising=False)
    monkeypatch.delenv('HOME', raising=False)
    monkeypatch.setenv('XDG_CACHE_HOME', 'relative/cache')  # ignored, as the XDG spec says
    monkeypatch.setattr(os.path, 'expanduser', lambda path: path)  # no HOME, no passwd entry
    monkeypatch.setattr(sys, 'dont_write_bytecode', False)
    disk_cache.reset()
    conversion.clear_cache()
    try:
        assert disk_cache.directory() is None
        module = _load(tmp_path, SOURCE, 'sec_module')
        assert autograph.convert(module.add_ten)(5) == 15
        monkeypatch.setenv(disk_cache.ENV_DIRECTORY, 'relative')
        disk_cache.reset()
        assert disk_cache.directory() is None
    finally:
        disk_cache.reset()
        conversion.clear_cache()
    assert sorted(p.name for p in tmp_path.iterdir()) == ['__pycache__', 'sec_module.py']


def test_the_cache_directory_is_created_private(tmp_path, cache_dir):
    _stored(tmp_path, cache_dir)
    assert stat.S_IMODE(cache_dir.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o700 for p in cache_dir.iterdir())


def test_an_entry_for_code_that_no_longer_runs_is_not_loaded(tmp_path, cache_dir, monkeypatch):
    # A process that imported the file before an edit must not load the entry that a process
    # which imported the edited file stored: the key covers the code that runs.
    old = _load(tmp_path, SOURCE, 'sec_module')
    new = _load(tmp_path, SOURCE.replace('x + 10', 'x + 200'), 'sec_module')
    assert autograph.convert(new.add_ten)(5) == 205
    conversion.clear_cache()
    with pytest.warns(UserWarning, match='is not the code that runs'):
        assert autograph.convert(old.add_ten)(5) == 15  # unconverted, but right


def test_concurrent_loads_and_stores_agree(tmp_path, cache_dir):
    module = _load(tmp_path, SOURCE, 'sec_module')
    results = []

    def work():
        for _ in range(20):
            conversion.clear_cache()
            results.append(autograph.convert(module.add_ten)(5))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [15] * 80
    assert len(_files(cache_dir)) == 1
    assert cache_files.is_key(_files(cache_dir)[0].name)
