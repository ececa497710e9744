"""The on-disk cache of converted code: a later process loads a conversion instead of redoing it.

Like Python's own `__pycache__`, this makes the first call of a converted function in a new
process cheap when the same function was converted before: parsing, analysis and conversion
(most of a small function's first call) are replaced by reading one file. An entry holds the
compiled code of the generated module, and is found by a key that covers everything the
conversion depends on:

- the whole text of the function's source file as linecache has it (so any edit of the file
  makes new entries), and the function's file name, first line, name, qualified name (class
  name mangling), free variables and `__future__` flags;
- the code of autograph's converters and analyses, gast and astunparse (their files' sizes
  and modification times), and the Python version (the code format);
- the one thing conversion reads from the function's namespace: which calls are
  `autograph.experimental.set_loop_options`. The entry records every callee that the
  directives converter resolved and what it found; a load resolves them again in the live
  namespace and converts afresh if any differs.

Only successful conversions of named functions are stored (not lambdas), and nothing is
stored when the verbosity asks for the generated code (it is logged from the tree).

Where: `$AUTOGRAPH_CACHE_DIR`, else `$XDG_CACHE_HOME/autograph`, else `~/.cache/autograph`.
Setting `AUTOGRAPH_CACHE_DIR` to an empty string turns the cache off. Nothing is written when
Python is told not to write bytecode (`PYTHONDONTWRITEBYTECODE`, `python -B`); entries are
still read. A file that cannot be read or written is ignored: the function is converted as
usual. The cache holds one small file per converted function and version of its source file,
at most MAX_ENTRIES of them (the least recently used are deleted first); deleting the
directory empties it.
"""

import marshal
import os
import sys

try:  # the builtin module: `hashlib` would load OpenSSL (~3 ms) on the first call's path
    from _blake2 import blake2b as _hash
except ImportError:  # pragma: no cover - CPython built without it
    from hashlib import blake2b as _hash

# Bumped when the entry format or what a key covers changes.
_FORMAT = 1
ENV_DIRECTORY = 'AUTOGRAPH_CACHE_DIR'
# At most this many entries (of a few KB each) are kept; the least recently used go first.
MAX_ENTRIES = 4096

# [directory or None] once resolved (None: off); see directory()
_directory = []
_fingerprint = []
# filename -> (the linecache lines list it was computed for, digest of the file's text)
_file_digests = {}


def directory():
    """Returns the cache directory, or None when the cache is off.

    Returns:
      A path (created on first store), or None.
    """
    if not _directory:
        path = os.environ.get(ENV_DIRECTORY)
        if path is None:
            base = os.environ.get('XDG_CACHE_HOME') or os.path.join(
                os.path.expanduser('~'), '.cache')
            path = os.path.join(base, 'autograph')
        _directory.append(path or None)
    return _directory[0]


def set_directory(path):
    """Sets the cache directory (None turns the cache off); for tests and tools.

    Args:
      path: a directory path, or None.
    """
    _directory[:] = [path]


def reset():
    """Reads the cache directory from the environment again at next use."""
    _directory[:] = []


# The parts of autograph whose code decides what a conversion makes (relative to the package).
_CONVERTER_CODE = ('converters', 'pyct', os.path.join('impl', 'conversion.py'), 'directives.py')


def _code_fingerprint():
    """Sizes and modification times of the files whose code decides what conversion makes."""
    if not _fingerprint:
        import gast  # pylint: disable=import-outside-toplevel

        parts = [str(_FORMAT), sys.version, sys.implementation.cache_tag]
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
        _fingerprint.append('\n'.join(parts))
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
    _file_digests[filename] = (lines, digest)
    return digest


def key_for(fn, filename, lines, class_name, flags):
    """Returns the cache key of converting `fn`, or None when it is not cached.

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
    text = '\n'.join([
        _code_fingerprint(), code.co_filename, str(code.co_firstlineno), code.co_name,
        fn.__qualname__, str(class_name), ','.join(code.co_freevars), str(flags),
        filename, _file_digest(filename, lines)])
    return _hash(text.encode('utf-8', 'surrogatepass'), digest_size=20).hexdigest()


def load(key):
    """Returns the stored entry of `key`, or None.

    Args:
      key: a key from key_for.

    Returns:
      (module code object, generated names tuple, directive checks tuple), or None.
    """
    path = os.path.join(directory(), key[:2], key)
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError:
        return None
    try:
        os.utime(path)  # recently used: pruning removes the least recently used first
    except OSError:
        pass
    try:
        entry = marshal.loads(data)
        if type(entry) is tuple and len(entry) == 4 and entry[0] == _FORMAT:
            return entry[1:]
    except (EOFError, ValueError, TypeError):
        pass
    try:
        os.remove(path)  # unreadable: a later store replaces it
    except OSError:
        pass
    return None


def store(key, module_code, generated, checks):
    """Writes an entry (atomically); does nothing when writing is off or fails.

    Args:
      key: a key from key_for.
      module_code: the compiled code of the generated module.
      generated: the names the converters generated (tuple of str).
      checks: the directive checks (tuple of (callee name tuple, bool)).
    """
    if sys.dont_write_bytecode:
        return
    folder = os.path.join(directory(), key[:2])
    try:
        data = marshal.dumps((_FORMAT, module_code, tuple(generated), tuple(checks)))
        os.makedirs(folder, exist_ok=True)
        # A new file of a random name, as tempfile.mkstemp makes it (O_EXCL, mode 0o600):
        # importing tempfile (and shutil, bz2, lzma, random) was 3-8 ms of the first call.
        temp = os.path.join(folder, '.tmp' + os.urandom(8).hex())
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, 'O_BINARY', 0),
                     0o600)
        try:
            with os.fdopen(fd, 'wb') as f:
                f.write(data)
            os.replace(temp, os.path.join(folder, key))
        except BaseException:
            os.remove(temp)
            raise
    except (OSError, ValueError):  # read-only, full, or unmarshallable: skip
        return
    if os.urandom(1)[0] < 4:  # about one store in 64
        prune()


def prune(max_entries=None):
    """Deletes the least recently used entries beyond `max_entries` (default MAX_ENTRIES).

    Args:
      max_entries: how many entries to keep at most; it prunes down to three quarters of it.
    """
    limit = MAX_ENTRIES if max_entries is None else max_entries
    root = directory()
    if root is None:
        return
    entries = []
    try:
        for folder in os.scandir(root):
            if folder.is_dir():
                for entry in os.scandir(folder.path):
                    entries.append((entry.stat().st_mtime_ns, entry.path))
    except OSError:
        return
    if len(entries) <= limit:
        return
    entries.sort()
    for _, path in entries[:len(entries) - limit * 3 // 4]:
        try:
            os.remove(path)
        except OSError:
            pass
