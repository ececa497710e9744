"""The registry of backends: registration by hand, entry-point discovery, and lookup."""

import contextlib
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import threading
import types
import warnings

from autograph.backends.base import Backend

ENTRY_POINT_GROUP = 'autograph.backends'

# Registered backends, asked in registration order; the first that claims a value owns it.
_BACKENDS = []
_PROBING = []  # the registered backends that override Backend.probe (see _changed)
# Whether the entry points of ENTRY_POINT_GROUP were loaded (once per process).
_discovered = [False]
_discovery_lock = threading.Lock()
# Backends shipped with autograph, by the top-level module of the values they stage: imported
# (and so registered) when such a value first reaches `backend_for`. Installed, they are also
# entry points; this serves a checkout that is not installed. Emptied as they load.
_BUILTIN_LAZY = {'jax': 'autograph.backends.jax', 'torch': 'autograph.backends.torch'}
# The modules that each shipped backend owns (its `owned_modules`), by its module: known
# without importing it (see _Deferred).
SHIPPED_OWNED_MODULES = {
    'autograph.backends.jax': ('jax', 'jaxlib', 'flax', 'optax', 'equinox'),
    'autograph.backends.torch': ('torch', 'torchvision', 'torchaudio', 'functorch', 'triton'),
}
# The _Deferred placeholders in _BACKENDS (emptied as their backends load).
_DEFERRED = []
# Functions called after the set of backends changes (e.g. autograph's module-decision cache).
_listeners = []

# Exact types that no backend may claim: checking them first keeps the plain-Python path cheap.
# Subclasses of these are not in the set, so a backend can still stage a `list` subclass.
PYTHON_TYPES = frozenset({
    bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset, range,
    type(None), types.FunctionType, types.BuiltinFunctionType, types.MethodType,
})


def register_backend(backend):
    """Registers a backend that stages control flow on the values it claims.

    The protocol is the class `autograph.Backend` (autograph/backends/base.py). Backends
    installed as packages are found through the `autograph.backends` entry-point group and
    need no call; this registers one by hand. Registering the same object twice has no
    further effect.

    Args:
        backend: an instance of a subclass of `autograph.Backend`.

    Returns:
        The backend, so that this can be used as a class-instance decorator.

    Raises:
        TypeError: if `backend` is not a `Backend`, or does not implement the required methods.
    """
    if not isinstance(backend, Backend):
        raise TypeError(
            'register_backend expected an instance of a subclass of autograph.Backend, but got '
            '{!r}. Subclass autograph.Backend and implement is_staged, cond and while_loop '
            '(see autograph/backends/base.py).'.format(backend))
    missing = [m for m in ('is_staged', 'cond', 'while_loop')
               if getattr(type(backend), m) is getattr(Backend, m)]
    if missing:
        raise TypeError(
            'register_backend: {!r} does not implement {} (required methods of '
            'autograph.Backend).'.format(backend, ', '.join(missing)))
    if not any(b is backend for b in _BACKENDS):
        place = _deferred_place(type(backend).__module__) if _DEFERRED else None
        if place is None:
            _BACKENDS.append(backend)
        else:  # the backend that discovery deferred: it takes its placeholder's place
            _DEFERRED.remove(_BACKENDS[place])
            _BACKENDS[place] = backend
        _changed()
    return backend


def unregister_backend(backend):
    """Removes a registered backend; unknown backends are ignored.

    Args:
        backend: the backend object to remove.
    """
    before = len(_BACKENDS)
    _BACKENDS[:] = [b for b in _BACKENDS if b is not backend]
    if len(_BACKENDS) != before:
        _changed()


def discover():
    """Loads the backends of the `autograph.backends` entry-point group (once per process).

    Each entry point names a `Backend` instance (or a subclass, which is instantiated). One
    that fails to load is reported with a warning and skipped.

    Autograph calls this when it first needs a backend it has not loaded: a
    value that no loaded backend claims reaches converted code (`backend_for`), converted
    code calls a function whose module no loaded backend owns and nothing else decides on
    (`owned_modules`), or `registered_backends()` is asked. A process whose converted code
    meets only Python values and the values of backends already registered (the runtime's,
    registered when `runtime` is imported) never scans: the scan opens one file per
    installed distribution (300 us of a first call on this machine).
    """
    if _discovered[0]:
        return
    with _discovery_lock:
        if not _discovered[0]:
            _load_entry_points()
            _discovered[0] = True


def _load_entry_points():
    for name, value in _entry_points(ENTRY_POINT_GROUP):
        deferred = _deferrable(value)
        if deferred is not None:
            if _deferred_place(deferred.module) is None:  # (a second entry point: no-op)
                _BACKENDS.append(deferred)
                _DEFERRED.append(deferred)
                _changed()
            continue
        try:
            backend = _load_object(value)
            if isinstance(backend, type):
                backend = backend()
            register_backend(backend)
        except Exception as e:  # pylint: disable=broad-except  # a broken plugin must not stop us
            warnings.warn('autograph: the backend entry point {!r} ({}) could not be loaded: '
                          '{}: {}'.format(name, value, type(e).__name__, e))


class _Deferred(Backend):
    """Holds the place of a shipped backend that discovery found while its library is unused.

    A shipped backend stages only values of its library (the JAX backend: jax tracers), so
    until that library is imported it claims nothing, and neither does this. Its module is
    imported when the library is in use (the first time `backend_for` or `owned_modules` is
    asked after the import) or when `registered_backends` is asked; its backend then takes
    this place in the registration order, where discovery would have put it. Not importing
    the JAX backend's modules was 1 ms of a fresh process's first conversion when autograph
    is installed (its entry points visible).
    """

    def __init__(self, module, library):
        self.module = module  # the backend's module, e.g. 'autograph.backends.jax'
        self.library = library  # the module whose import makes it needed, e.g. 'jax'
        self.owned_modules = SHIPPED_OWNED_MODULES[module]
        self.name = 'deferred %s' % module

    def is_staged(self, value):
        return False


def _deferrable(value):
    """A _Deferred for an entry point naming an unloaded shipped backend of an unused library."""
    module_name, _, attrs = value.partition(':')
    module_name = module_name.strip()
    library = next((lib for lib, m in _BUILTIN_LAZY.items() if m == module_name), None)
    if (library is None or attrs.strip() != 'BACKEND' or module_name in sys.modules
            or library in sys.modules):
        return None
    return _Deferred(module_name, library)


def _deferred_place(module):
    """The index in _BACKENDS of the placeholder for the backend of `module`, or None."""
    for index, backend in enumerate(_BACKENDS):
        if type(backend) is _Deferred and backend.module == module:
            return index
    return None


def _load_deferred(all_of_them=False):
    """Imports the deferred backends whose library is imported (or all of them whose library
    is installed; a backend whose library is not installed has nothing to stage and goes)."""
    for deferred in list(_DEFERRED):
        if (all_of_them and deferred.library not in sys.modules
                and importlib.util.find_spec(deferred.library) is None):
            _DEFERRED.remove(deferred)
            _BACKENDS.remove(deferred)
            _changed()
        elif all_of_them or deferred.library in sys.modules:
            try:
                importlib.import_module(deferred.module)  # registers it (register_backend)
            except Exception as e:  # pylint: disable=broad-except  # as _load_entry_points
                warnings.warn('autograph: the backend {} could not be loaded: {}: {}'.format(
                    deferred.module, type(e).__name__, e))
            if deferred in _DEFERRED:  # it did not register: no backend there
                _DEFERRED.remove(deferred)
                _BACKENDS.remove(deferred)
                _changed()


def _load_object(value):
    """Imports the object that an entry point's value names ('package.module:attr.attr')."""
    module_name, _, attrs = value.partition(':')
    obj = importlib.import_module(module_name.strip())
    for attr in filter(None, attrs.strip().split('.')):
        obj = getattr(obj, attr)
    return obj


def _entry_points(group):
    """Returns the (name, value) pairs of an entry-point group, first distribution first.

    Reads the `entry_points.txt` of the `*.dist-info`/`*.egg-info` directories on sys.path
    directly: `importlib.metadata` costs 25-30 ms to import and scan, most of a converted
    function's first call. Anything the direct scan cannot see (a zip on sys.path, an import
    hook that provides distributions) goes through `importlib.metadata` as before.
    """
    finders = [f for f in sys.meta_path if hasattr(f, 'find_distributions')]
    if any(f is not importlib.machinery.PathFinder for f in finders):
        return _entry_points_by_metadata(group)
    header = '[%s]' % group
    seen = set()
    found = []
    # The standard library and its extension modules hold no distributions: not listed
    # (their listings were 100 us of the 250 us this takes).
    stdlib = os.path.dirname(os.__file__)
    skipped = (stdlib, os.path.join(stdlib, 'lib-dynload'))
    for entry in sys.path:
        directory = entry or '.'
        if directory in skipped:
            continue
        try:
            names = _listing(entry, directory)
        except NotADirectoryError:
            return _entry_points_by_metadata(group)  # a zip file
        except OSError:
            continue
        names = sorted(n for n in names if n.endswith(('.dist-info', '.egg-info')))
        if not names:
            continue
        # Files are opened relative to the directory where the system allows it: half the
        # time of opening them by full path (the kernel walks one component, not the path).
        dir_fd = os.open(directory, os.O_RDONLY) if _RELATIVE_OPEN else None
        try:
            for name in names:
                # 'name-1.0.dist-info' or 'name.egg-info': the distribution's normalised name
                dist = name.rpartition('.')[0].partition('-')[0].lower().replace('.', '_')
                if dist in seen:
                    continue
                seen.add(dist)
                path = name + '/entry_points.txt' if dir_fd is not None else os.path.join(
                    directory, name, 'entry_points.txt')
                try:
                    text = _read_utf8(path, dir_fd)
                except OSError:
                    continue
                if header in text:
                    found.extend(_parse_group(text, header))
        finally:
            if dir_fd is not None:
                os.close(dir_fd)
    return found


_RELATIVE_OPEN = os.open in os.supports_dir_fd  # (not on Windows)
_FILE_FINDER = importlib.machinery.FileFinder


def _listing(entry, directory):
    """The names in the directory of a sys.path entry.

    The import system lists every sys.path directory it has searched (its FileFinder keeps
    the names with the directory's modification time, and lists it again when that
    changes); after `import numpy` that includes site-packages. Its listing is used when the
    directory has not changed since: a stat instead of a listing (site-packages and the
    working directory were 150 of the 350 us discovery took in a fresh process).

    Args:
      entry: the sys.path entry ('' for the working directory).
      directory: the directory it names.

    Returns:
      A collection of names.

    Raises:
      OSError: as os.listdir.
    """
    finder = sys.path_importer_cache.get(entry or os.getcwd())
    if type(finder) is _FILE_FINDER:
        names = getattr(finder, '_path_cache', None)
        if type(names) is set and names:
            try:
                current = os.stat(directory).st_mtime == getattr(finder, '_path_mtime', None)
            except OSError:
                current = False
            if current:
                return names
    return os.listdir(directory)


def _read_utf8(path, dir_fd=None):
    """The text of a UTF-8 file, read with os.open and os.read.

    `open` in text mode costs eight system calls and three Python objects a file (it asks
    whether the file is a terminal, twice seeks, and stats it twice); this, three or four.
    Discovery reads one file per installed distribution in a process's first conversion.

    Args:
      path: the file's path (relative to `dir_fd` when that is given).
      dir_fd: an open directory's descriptor, or None.
    """
    fd = os.open(path, os.O_RDONLY, dir_fd=dir_fd)
    try:
        chunks = []
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b''.join(chunks).decode('utf-8')


def _parse_group(text, header):
    pairs = []
    in_group = False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith('['):
            in_group = line == header
        elif in_group and '=' in line and not line.startswith(('#', ';')):
            name, _, value = line.partition('=')
            pairs.append((name.strip(), value.strip()))
    return pairs


def _entry_points_by_metadata(group):
    import importlib.metadata  # pylint: disable=import-outside-toplevel

    return [(e.name, e.value) for e in importlib.metadata.entry_points(group=group)]


def on_change(listener):
    """Calls `listener()` whenever a backend is registered or unregistered.

    Args:
        listener: a function of no arguments.
    """
    _listeners.append(listener)


def _changed():
    # the backends that override `probe` (the others return None): while_stmt asks only them
    _PROBING[:] = [b for b in _BACKENDS if type(b).probe is not Backend.probe]
    for listener in _listeners:
        listener()


def registered_backends():
    """Returns the registered backends (after discovery), in the order they are asked.

    Returns:
        A tuple of backend objects.
    """
    discover()
    if _DEFERRED:
        _load_deferred(all_of_them=True)
    return tuple(_BACKENDS)


def owned_by_loaded(name):
    """Tells whether a backend registered so far owns top-level module `name` (no discovery).

    Args:
        name: a top-level module name.

    Returns:
        A bool; False does not rule out a backend that discovery would load (owned_modules).
    """
    for backend in _BACKENDS:
        if name in backend.owned_modules:
            return True
    return False


def discovered():
    """Tells whether the entry points were loaded (discover) in this process."""
    return _discovered[0]


def owned_modules():
    """Returns the top-level module names that registered backends own (never converted).

    Returns:
        A frozenset of module names.
    """
    discover()
    for library in [name for name in _BUILTIN_LAZY if name in sys.modules]:
        # The library is in use: its functions may reach converted code before its values do.
        module = _BUILTIN_LAZY.pop(library, None)
        if module is not None:
            importlib.import_module(module)
    return frozenset(m for b in _BACKENDS for m in b.owned_modules)


def backend_for(value):
    """Returns the backend that stages `value`, or None for a plain Python value.

    Args:
        value: any object.

    Returns:
        The first registered backend whose `is_staged(value)` is true, else None.
    """
    if type(value) in PYTHON_TYPES:
        return None
    if _DEFERRED:
        _load_deferred()
    for backend in _BACKENDS:
        if backend.is_staged(value):
            return backend
    if _BUILTIN_LAZY:
        module = _BUILTIN_LAZY.pop(type(value).__module__.partition('.')[0], None)
        if module is not None:
            importlib.import_module(module)
            return backend_for(value)
    if not _discovered[0]:  # an installed backend may claim it
        discover()
        return backend_for(value)
    return None


def probe(fn):
    """Calls `fn()` inside every registered backend's `probe()` context (see Backend.probe).

    Args:
        fn: a function of no arguments (a loop condition).

    Returns:
        What `fn` returns.
    """
    if not _PROBING:
        return fn()
    if len(_PROBING) == 1:
        context = _PROBING[0].probe()
        if context is None:
            return fn()
        with context:
            return fn()
    contexts = [c for c in (b.probe() for b in _PROBING) if c is not None]
    with contextlib.ExitStack() as stack:
        for c in contexts:
            stack.enter_context(c)
        return fn()


def is_staged(value):
    """Tells whether some registered backend stages `value`.

    Args:
        value: any object.

    Returns:
        True if a registered backend claims `value`.
    """
    return backend_for(value) is not None


def first_backend(values):
    """Returns the backend of the first staged value in `values`, or None.

    Args:
        values: an iterable of objects (not searched recursively).

    Returns:
        A backend, or None when every value is a plain Python value.
    """
    if not _BACKENDS and not _BUILTIN_LAZY and _discovered[0]:
        return None
    for value in values:
        if type(value) not in PYTHON_TYPES:
            backend = backend_for(value)
            if backend is not None:
                return backend
    return None
