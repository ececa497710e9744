"""The files of the disk cache, opened so that only this user's own files are ever used.

The disk cache (disk_cache.py) holds code that is executed, so it trusts a file only when
nobody but this user could have written it (see docs/security.md):

- the cache directory (the root) is an absolute path whose every directory is owned by root
  or this user and is not writable by others (a sticky directory such as /tmp excepted),
  and whose symbolic links are root's or this user's; the root itself is created 0700, is
  this user's, is not a link, and is not writable by group or others;
- everything under the root is reached from the root's open descriptor, one level at a
  time, never through a link (O_NOFOLLOW), and checked on the open descriptor (fstat, so
  that nothing can be swapped between the check and the use): a folder or entry must be
  this user's and not writable by group or others, an entry a regular file of at most
  MAX_ENTRY_BYTES (O_NONBLOCK: a FIFO planted as an entry cannot make the open hang);
- only names the cache writes are read or deleted: folders of two hex digits, entries of
  KEY_LENGTH hex digits that start with their folder's name, and the temporary files of a
  store in progress.

Anything else raises Refused, whose message says what was found.
"""

import errno
import os
import stat
import time

# this user (None where the platform has no user ids: the cache is then off)
_UID = os.geteuid() if hasattr(os, 'geteuid') else None
_NOFOLLOW = getattr(os, 'O_NOFOLLOW', 0)
# Whether this platform can open files without following links, relative to a directory.
SUPPORTED = bool(_UID is not None and _NOFOLLOW and hasattr(os, 'O_DIRECTORY')
                 and os.open in os.supports_dir_fd and os.scandir in os.supports_fd)
_CLOEXEC = getattr(os, 'O_CLOEXEC', 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, 'O_DIRECTORY', 0) | _NOFOLLOW | _CLOEXEC
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, 'O_NONBLOCK', 0) | _CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
_TOUCH = os.utime in os.supports_fd
# An entry read is marked recently used (its time set to now) when its time is older than
# this: pruning orders entries by time, and a minute more or less does not change its order.
_TOUCH_AFTER_NS = 60 * 10**9

# The largest entry read (an entry holds the code of one converted function: a few KB).
MAX_ENTRY_BYTES = 8 << 20
# An entry's name: this many hex digits (a 20-byte key); its folder is its first two.
KEY_LENGTH = 40
_TEMP_PREFIX = '.tmp'
_TEMP_LENGTH = len(_TEMP_PREFIX) + 16
_HEX = frozenset('0123456789abcdef')


class Refused(OSError):
    """A file or directory that the cache must not use; the message says why."""


def is_key(name):
    """Whether `name` is an entry name the cache writes (KEY_LENGTH lowercase hex digits)."""
    return len(name) == KEY_LENGTH and _HEX.issuperset(name)


def _is_folder_name(name):
    return len(name) == 2 and _HEX.issuperset(name)


def is_temp(name):
    """Whether `name` is a temporary file of a store (see write_entry)."""
    return (len(name) == _TEMP_LENGTH and name.startswith(_TEMP_PREFIX)
            and _HEX.issuperset(name[len(_TEMP_PREFIX):]))


def _check_private(st, what, kind):
    """Raises Refused unless `st` is a `kind` (stat.S_ISDIR or S_ISREG) of this user's that
    group and others cannot write."""
    if not kind(st.st_mode):
        raise Refused('%s is not a %s' % (what, 'directory' if kind is stat.S_ISDIR else
                                          'regular file'))
    if st.st_uid != _UID:
        raise Refused('%s is owned by uid %d, not by this user (uid %d)'
                      % (what, st.st_uid, _UID))
    if st.st_mode & 0o022:
        raise Refused('%s is writable by group or others (mode %o)'
                      % (what, stat.S_IMODE(st.st_mode)))


def _check_ancestor(path, st):
    """Raises Refused unless the directory `path` above the root is safe to go through."""
    if not stat.S_ISDIR(st.st_mode):
        raise Refused('%s is not a directory' % path)
    if st.st_uid not in (0, _UID):
        raise Refused('%s is owned by uid %d, neither root nor this user (uid %d)'
                      % (path, st.st_uid, _UID))
    if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
        raise Refused('%s is writable by group or others and not sticky (mode %o)'
                      % (path, stat.S_IMODE(st.st_mode)))


def _check_ancestors(parent, create):
    """Checks the directories from / down to `parent`, creating the missing ones (0700)."""
    current = os.sep
    missing = []
    for part in [p for p in parent.split(os.sep) if p]:
        current = os.path.join(current, part)
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            missing.append(current)
            continue
        if missing:  # a name under a missing directory: not possible unless racing
            raise Refused('%s appeared while the cache checked its path' % current)
        if stat.S_ISLNK(st.st_mode) and st.st_uid not in (0, _UID):
            raise Refused('%s is a symbolic link of uid %d' % (current, st.st_uid))
    existing = os.path.dirname(missing[0]) if missing else parent
    real = os.path.realpath(existing)
    current = os.sep
    _check_ancestor(current, os.lstat(current))
    for part in [p for p in real.split(os.sep) if p]:  # no links left in `real`
        current = os.path.join(current, part)
        _check_ancestor(current, os.lstat(current))
    if missing and not create:
        raise FileNotFoundError(missing[0])
    for path in missing:
        _make_private_dir(path, None)


def _make_private_dir(name, dir_fd):
    try:
        os.mkdir(name, 0o700, dir_fd=dir_fd)
    except FileExistsError:
        pass


def open_root(path, create):
    """Opens the cache's root directory after checking it and the directories above it.

    Args:
      path: the root's path.
      create: whether to create the root (and missing directories above it) when absent.

    Returns:
      A file descriptor of the root (the caller closes it).

    Raises:
      Refused: the root, or a directory above it, is not safe to use.
      FileNotFoundError: the root is absent and `create` is False.
      OSError: it cannot be read or created.
    """
    if not os.path.isabs(path):
        raise Refused('the cache directory %r is not an absolute path' % path)
    path = os.path.normpath(path)
    _check_ancestors(os.path.dirname(path), create)
    if create:
        _make_private_dir(path, None)
    if stat.S_ISLNK(os.lstat(path).st_mode):
        raise Refused('%s is a symbolic link' % path)
    fd = _open_dir(path, None, path)
    try:
        st = os.fstat(fd)
        _check_private(st, path, stat.S_ISDIR)
        if st.st_mode & 0o077:  # readable by others (made by an earlier version): tighten
            os.chmod(fd, 0o700)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_dir(name, dir_fd, what):
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError as e:
        if isinstance(e, (FileNotFoundError, PermissionError)):
            raise
        raise Refused('%s is not a directory (or is a symbolic link): %s' % (what, e)) from None


def open_folder(root_fd, name, create):
    """Opens the folder `name` (two hex digits) of the root, after checking it.

    Args:
      root_fd: the root's descriptor (open_root).
      name: the folder's name.
      create: whether to create it (0700) when absent.

    Returns:
      A file descriptor (the caller closes it).

    Raises:
      Refused: it is a link, not a directory, another user's or writable by others.
      OSError: it is absent (and `create` is False) or cannot be opened.
    """
    if create:
        _make_private_dir(name, root_fd)
    fd = _open_dir(name, root_fd, 'cache folder ' + name)
    try:
        _check_private(os.fstat(fd), 'cache folder ' + name, stat.S_ISDIR)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_entry(folder_fd, name):
    """Returns the bytes of the entry `name`, after checking it, and marks it recently used.

    Args:
      folder_fd: its folder's descriptor (open_folder).
      name: the entry's name (a key).

    Returns:
      bytes.

    Raises:
      Refused: it is a link, not a regular file, another user's, writable by others or larger
        than MAX_ENTRY_BYTES.
      OSError: it is absent or cannot be read.
    """
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=folder_fd)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise Refused('cache entry %s is a symbolic link' % name) from None
        raise
    try:
        st = os.fstat(fd)
        _check_private(st, 'cache entry ' + name, stat.S_ISREG)
        if st.st_size > MAX_ENTRY_BYTES:
            raise Refused('cache entry %s has %d bytes, more than the %d an entry may have'
                          % (name, st.st_size, MAX_ENTRY_BYTES))
        chunks = []
        left = st.st_size + 1  # one more: a file that grew since fstat reads as corrupt
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if _TOUCH and st.st_mtime_ns < time.time_ns() - _TOUCH_AFTER_NS:
            os.utime(fd)  # recently used: pruning removes the least recently used first
    finally:
        os.close(fd)
    return b''.join(chunks)


def write_entry(folder_fd, name, data):
    """Writes the entry `name` atomically: a new private file, renamed in place.

    Args:
      folder_fd: its folder's descriptor (open_folder).
      name: the entry's name (a key).
      data: bytes.

    Raises:
      OSError: it cannot be written.
    """
    temp = _TEMP_PREFIX + os.urandom(8).hex()
    fd = os.open(temp, _WRITE_FLAGS, 0o600, dir_fd=folder_fd)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
    except BaseException:
        remove(folder_fd, temp)
        raise


def remove(folder_fd, name):
    """Deletes the name `name` of a folder (never what a link points to); ignores errors."""
    try:
        os.unlink(name, dir_fd=folder_fd)
    except OSError:
        pass


def scan(root_fd):
    """Lists the cache's own files: entries and temporary files, in folders it made.

    Links, other users' files and names the cache does not write are left out (and so are
    never pruned).

    Args:
      root_fd: the root's descriptor (open_root).

    Returns:
      A list of (modification time in ns, size, folder name, file name).
    """
    found = []
    with os.scandir(root_fd) as folders:
        for folder in folders:
            if not _is_folder_name(folder.name) or not folder.is_dir(follow_symlinks=False):
                continue
            try:
                folder_fd = open_folder(root_fd, folder.name, False)
            except OSError:
                continue
            try:
                found += _scan_folder(folder_fd, folder.name)
            finally:
                os.close(folder_fd)
    return found


def _scan_folder(folder_fd, folder):
    found = []
    with os.scandir(folder_fd) as files:
        for f in files:
            name = f.name
            if not ((is_key(name) and name.startswith(folder)) or is_temp(name)):
                continue
            try:
                st = f.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_uid == _UID:
                found.append((st.st_mtime_ns, st.st_size, folder, name))
    return found
