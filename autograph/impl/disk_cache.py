"""The on-disk cache of converted code: a later process loads a conversion instead of redoing it.

Like Python's own `__pycache__`, this makes the first call of a converted function in a new
process cheap when the same function was converted before: parsing, analysis and conversion
(most of a small function's first call) are replaced by reading one file. An entry holds the
compiled code of the generated module, and is found by a key that covers everything the
conversion depends on:

- the whole text of the function's source file as linecache has it (so any edit of the file
  makes new entries), and the function's file name, first line, name, qualified name (class
  name mangling), free variables and `__future__` flags, and the code that runs (the
  function's code object, marshalled: a file edited since it was imported makes another key);
- the code of autograph's converters and analyses, gast and astunparse (their files' sizes
  and modification times), the Python version (the code format), the optimisation level
  (`python -O` removes asserts and `if __debug__:` blocks), autograph's version and the
  entry format;
- the one thing conversion reads from the function's namespace: which calls are
  `autograph.experimental.set_loop_options`. The entry records every callee that the
  directives converter resolved and what it found; a load resolves them again in the live
  namespace and converts afresh if any differs.

Only successful conversions of named functions are stored (not lambdas), and nothing is
stored when the verbosity asks for the generated code (it is logged from the tree).

Where: `$AUTOGRAPH_CACHE_DIR`, else `$XDG_CACHE_HOME/autograph`, else `~/.cache/autograph`.
Setting `AUTOGRAPH_CACHE_DIR` to an empty string turns the cache off; so does a path that is
not absolute (HOME unset, for example), and a platform without user ids and O_NOFOLLOW.
Nothing is written when Python is told not to write bytecode (`PYTHONDONTWRITEBYTECODE`,
`python -B`); entries are still read. A file that cannot be read or written is ignored: the
function is converted as usual.

An entry is code that runs, so the cache uses only what this user wrote (cache_files.py and
docs/security.md): the directory is created 0700, and a directory or entry that is another
user's, writable by others or reached through a link is refused (said once in the log, and
the cache is off for the process when it is the root). Each entry starts with a header (the
entry format and autograph's version) and a digest of the header, its key and its payload;
an entry whose digest or contents do not check out is deleted and the function converted
afresh. The payload is marshalled data, of which only a code object and tuples of strings
are accepted. The cache holds one small file per converted function and version of its
source file, at most MAX_ENTRIES of them and MAX_BYTES in all (the least recently used are
deleted first, and only files with the names the cache writes); deleting the directory
empties it.
"""

import marshal
import os
import sys
import threading
import time

from autograph.impl import cache_files
from autograph.impl import logs

try:  # the builtin module: `hashlib` would load OpenSSL (~3 ms) on the first call's path
    from _blake2 import blake2b as _hash
except ImportError:  # pragma: no cover - CPython built without it
    from hashlib import blake2b as _hash

# Bumped when the entry format or what a key covers changes.
_FORMAT = 2
ENV_DIRECTORY = 'AUTOGRAPH_CACHE_DIR'
# At most this many entries (of a few KB each) are kept; the least recently used go first.
MAX_ENTRIES = 4096
# At most this many bytes of entries are kept.
MAX_BYTES = 64 << 20
# Temporary files of a store older than this (a process killed while writing) are deleted.
_TEMP_MAX_AGE_NS = 3600 * 10**9
_DIGEST_SIZE = 32
# How many files' digests are remembered (each holds the file's lines, as linecache has them).
_MAX_FILE_DIGESTS = 64

# [directory or None] once resolved (None: off); see directory()
_directory = []
# [root descriptor or None, whether creating it was tried]; empty until first used
_root = []
_lock = threading.Lock()
_fingerprint = []
_header = []
# filename -> (the linecache lines list it was computed for, digest of the file's text)
_file_digests = {}
# refusals already reported (each is logged once per process)
_reported = set()
# What the cache did in this process: entries loaded, rejected (corrupt: deleted), refused
# (not this user's), stored; for tools and tests.
stats = {'loaded': 0, 'rejected': 0, 'refused': 0, 'stored': 0}


def directory():
    """Returns the cache directory, or None when the cache is off.

    Returns:
      An absolute path (created on first store), or None.
    """
    if not _directory:
        _directory.append(_configured_directory())
    return _directory[0]


def _configured_directory():
    path = os.environ.get(ENV_DIRECTORY)
    if path is None:
        base = os.environ.get('XDG_CACHE_HOME')
        if not base or not os.path.isabs(base):  # the XDG spec: a relative path is ignored
            base = os.path.join(os.path.expanduser('~'), '.cache')
        path = os.path.join(base, 'autograph')
    if not path or not cache_files.SUPPORTED:
        return None
    if not os.path.isabs(path):  # `~` unexpanded (no HOME), or a relative setting
        _refuse('%r is not an absolute path' % path)
        return None
    return path


def set_directory(path):
    """Sets the cache directory (None turns the cache off); for tests and tools.

    Args:
      path: a directory path, or None.
    """
    _close_root()
    _directory[:] = [path]


def reset():
    """Reads the cache directory from the environment again at next use."""
    _close_root()
    _directory[:] = []


def _close_root():
    with _lock:
        if _root and _root[0] is not None:
            os.close(_root[0])
        _root[:] = []


def _root_fd(create):
    """The root directory's descriptor, or None (absent, unusable, or refused: then off)."""
    state = _root
    if state and (state[0] is not None or state[1] or not create):
        return state[0]
    with _lock:
        path = directory()
        if path is None:
            return None
        if _root and _root[0] is not None:
            return _root[0]
        try:
            fd = cache_files.open_root(path, create)
        except cache_files.Refused as e:
            _refuse(str(e))
            _directory[:] = [None]
            return None
        except (OSError, ValueError):  # absent (not creating), read-only, a NUL in the path
            fd = None
        _root[:] = [fd, create]
        return fd


def _refuse(reason):
    """Logs once per process that the cache refused something, and why."""
    stats['refused'] += 1
    if reason in _reported:
        return
    _reported.add(reason)
    logs.notice('The disk cache of converted code refused a file: %s. Only a directory and'
                ' files of this user that nobody else can write are used (see'
                ' docs/security.md); set %s to a private directory, or to an empty string to'
                ' turn the cache off.', reason, ENV_DIRECTORY)


# The parts of autograph whose code decides what a conversion makes (relative to the package;
# operators/number_methods.py names the methods that converters/call_trees.py rewrites).
_CONVERTER_CODE = ('converters', 'pyct', 'impl', 'directives.py',
                   os.path.join('operators', 'number_methods.py'))


def _code_fingerprint():
    """A digest of what the generated code depends on besides the function: the versions of
    Python and autograph, the optimisation level, and the sizes and modification times of
    the files whose code decides what conversion makes."""
    if not _fingerprint:
        import gast  # pylint: disable=import-outside-toplevel

        import autograph  # pylint: disable=import-outside-toplevel

        parts = [str(_FORMAT), sys.version, sys.implementation.cache_tag,
                 'optimize=%d' % sys.flags.optimize, autograph.__version__]
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        paths = [os.path.join(package, p) for p in _CONVERTER_CODE]
        paths.append(os.path.dirname(os.path.abspath(gast.__file__)))
        astunparse = _module_file('astunparse')
        if astunparse is not None:
            paths.append(astunparse)
        for path in paths:
            if path.endswith('.py'):
                parts.append(_stat_text(path))
                continue
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d != '__pycache__')
                for name in sorted(files):
                    if name.endswith('.py'):
                        parts.append(_stat_text(os.path.join(folder, name)))
        text = '\n'.join(parts).encode('utf-8', 'surrogatepass')
        _fingerprint.append(_hash(text).hexdigest())  # (hashed once, not in every key)
    return _fingerprint[0]


def _module_file(name):
    import importlib.util  # pylint: disable=import-outside-toplevel

    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin:
        return None
    return os.path.dirname(spec.origin)


def _stat_text(path):
    try:
        st = os.stat(path)
    except OSError:
        return path
    return '%s %d %d' % (path, st.st_size, st.st_mtime_ns)


def _file_digest(filename, lines):
    cached = _file_digests.get(filename)
    if cached is not None and cached[0] is lines:
        return cached[1]
    digest = _hash(''.join(lines).encode('utf-8', 'surrogatepass')).hexdigest()
    with _lock:  # at most _MAX_FILE_DIGESTS files' lines are kept: the oldest go first
        _file_digests.pop(filename, None)
        while len(_file_digests) >= _MAX_FILE_DIGESTS:
            _file_digests.pop(next(iter(_file_digests)))
        _file_digests[filename] = (lines, digest)
    return digest


def key_for(fn, filename, lines, class_name, flags):
    """Returns the cache key of converting `fn`, or None when it is not cached.

    The key covers the code that runs (`fn.__code__`, marshalled), so an entry made from a
    file's text serves only the code compiled from that text (conversion checks that the
    text it parses is the running code).

    Args:
      fn: the Python function.
      filename: the file its source is read from.
      lines: that file's lines (linecache's list).
      class_name: the class whose body defines it (private-name mangling), or None.
      flags: its `__future__` compiler flags.

    Returns:
      A hex string, or None.
    """
    if directory() is None or fn.__name__ == '<lambda>' or not lines:
        return None
    code = fn.__code__
    try:
        running = marshal.dumps(code, 2)  # version 2: no back-references, the same bytes
    except ValueError:  # in every process
        return None
    text = '\n'.join([
        _code_fingerprint(), code.co_filename, str(code.co_firstlineno), code.co_name,
        fn.__qualname__, str(class_name), ','.join(code.co_freevars), str(flags),
        filename, _file_digest(filename, lines), ''])
    digest = _hash(text.encode('utf-8', 'surrogatepass'), digest_size=20)
    digest.update(running)
    return digest.hexdigest()


def _entry_header():
    if not _header:
        import autograph  # pylint: disable=import-outside-toplevel

        _header.append(b'autograph cache entry, format %d, autograph %s\n'
                       % (_FORMAT, autograph.__version__.encode('ascii', 'replace')))
    return _header[0]


def _entry_digest(header, key, payload):
    digest = _hash(header, digest_size=_DIGEST_SIZE)
    digest.update(key.encode('ascii'))
    digest.update(payload)
    return digest.digest()


def encode_entry(key, payload):
    """The bytes of the entry of `key`: header, digest, payload (marshalled data)."""
    header = _entry_header()
    return header + _entry_digest(header, key, payload) + payload


def decode_entry(key, data):
    """Returns the entry that `data` holds for `key`, or None when it does not check out.

    Args:
      key: the entry's key (its file name).
      data: the file's bytes.

    Returns:
      (module code object, generated names tuple, directive checks tuple, notes tuple), or
      None: a wrong header or digest (corrupt, another format or version, or the entry of
      another key), or contents other than a code object and tuples of strings.
    """
    header = _entry_header()
    start = len(header) + _DIGEST_SIZE
    if len(data) < start or not data.startswith(header):
        return None
    payload = memoryview(data)[start:]
    if _entry_digest(header, key, payload) != data[len(header):start]:
        return None
    try:
        entry = marshal.loads(payload)
    except Exception:  # noqa: BLE001 - any failure is a bad entry  # pylint: disable=broad-except
        return None
    return entry if _well_formed(entry) else None


def _strings(value):
    return type(value) is tuple and all(type(v) is str for v in value)


def _well_formed(entry):
    if type(entry) is not tuple or len(entry) != 4:
        return False
    code, generated, checks, notes = entry
    return (type(code) is type(_well_formed.__code__) and _strings(generated)
            and _strings(notes) and type(checks) is tuple
            and all(type(c) is tuple and len(c) == 2 and _strings(c[0])
                    and (c[1] is None or type(c[1]) is str) for c in checks))


def load(key):
    """Returns the stored entry of `key`, or None.

    A corrupt entry is deleted (a later store replaces it); a refused one is left alone.

    Args:
      key: a key from key_for.

    Returns:
      (module code object, generated names tuple, directive checks tuple, notes tuple), or
      None.
    """
    root = _root_fd(False)
    if root is None:
        return None
    try:
        folder = cache_files.open_folder(root, key[:2], False)
    except cache_files.Refused as e:
        _refuse(str(e))
        return None
    except OSError:
        return None
    try:
        entry = decode_entry(key, cache_files.read_entry(folder, key))
        if entry is None:
            stats['rejected'] += 1
            cache_files.remove(folder, key)
        else:
            stats['loaded'] += 1
        return entry
    except cache_files.Refused as e:
        _refuse(str(e))
        return None
    except OSError:
        return None
    finally:
        os.close(folder)


def store(key, module_code, generated, checks, notes=()):
    """Writes an entry (atomically); does nothing when writing is off or fails.

    Args:
      key: a key from key_for.
      module_code: the compiled code of the generated module.
      generated: the names the converters generated (iterable of str).
      checks: the directive checks (iterable of (callee name tuple, directive name or None)).
      notes: warnings that the conversion gave, given again when the entry is loaded
        (iterable of str).
    """
    if sys.dont_write_bytecode:
        return
    try:
        payload = marshal.dumps((module_code, tuple(generated), tuple(checks), tuple(notes)))
    except ValueError:  # unmarshallable: skip
        return
    data = encode_entry(key, payload)
    root = _root_fd(True)
    if root is None or len(data) > cache_files.MAX_ENTRY_BYTES:
        return
    try:
        folder = cache_files.open_folder(root, key[:2], True)
    except cache_files.Refused as e:
        _refuse(str(e))
        return
    except OSError:  # read-only or full: skip
        return
    try:
        cache_files.write_entry(folder, key, data)
        stats['stored'] += 1
    except OSError:
        return
    finally:
        os.close(folder)
    if os.urandom(1)[0] < 4:  # about one store in 64
        prune()


def prune(max_entries=None, max_bytes=None):
    """Deletes the least recently used entries beyond `max_entries` or `max_bytes`.

    Only the cache's own files are considered (cache_files.scan): entries and leftover
    temporary files in folders the cache made, never links or other names.

    Args:
      max_entries: how many entries to keep at most (default MAX_ENTRIES).
      max_bytes: how many bytes of entries to keep at most (default MAX_BYTES). Past
        either bound, it prunes down to three quarters of both.
    """
    limit = MAX_ENTRIES if max_entries is None else max_entries
    byte_limit = MAX_BYTES if max_bytes is None else max_bytes
    root = _root_fd(False)
    if root is None:
        return
    try:
        files = cache_files.scan(root)
    except OSError:
        return
    old = time.time_ns() - _TEMP_MAX_AGE_NS
    doomed = [f for f in files if cache_files.is_temp(f[3]) and f[0] < old]
    entries = sorted(f for f in files if not cache_files.is_temp(f[3]))
    count, total = len(entries), sum(f[1] for f in entries)
    if count > limit or total > byte_limit:
        for entry in entries:
            if count <= limit * 3 // 4 and total <= byte_limit * 3 // 4:
                break
            doomed.append(entry)
            count -= 1
            total -= entry[1]
    for _, _, folder_name, name in doomed:
        try:
            folder = cache_files.open_folder(root, folder_name, False)
        except OSError:
            continue
        cache_files.remove(folder, name)
        os.close(folder)
