"""Removes autograph's own frames (and a backend's) from the tracebacks of errors users see.

As JAX_TRACEBACK_FILTERING does for JAX: an error raised in user code, or a staging error
about it, reaches the user with the user's frames only (converted code is compiled under the
user's file and lines, so it stays), and a note that says how to see everything:
AUTOGRAPH_TRACEBACK_FILTERING=off. Filtering happens where an exception leaves a converted
function (`FunctionScope.__exit__`) and at a backend's entry points (`boundary`), and only
on Python 3.11 and later, where a re-raised exception keeps the traceback it was given.

An exception chained to the error (its `__cause__` or `__context__`) whose frames are all
internal is dropped from the chain: it is how autograph found the mistake, not the mistake.
"""
import functools
import os
import sys
import types

ENV = 'AUTOGRAPH_TRACEBACK_FILTERING'
NOTE = ('Frames of autograph and its backends were removed from this traceback; set '
        'AUTOGRAPH_TRACEBACK_FILTERING=off to see them.')
ACTIVE = sys.version_info >= (3, 11)

# Directory prefixes (ending in a separator) and generated-file prefixes ('<runtime-') whose
# frames are internal; a backend adds its own with `hide_frames_of`.
_hidden = [os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep]


def hide_frames_of(*prefixes):
    """Marks frames whose file name starts with one of `prefixes` as internal.

    Args:
      *prefixes: directories (a separator is added) or generated-file prefixes ('<name').
    """
    for prefix in prefixes:
        if not prefix.startswith('<') and not prefix.endswith(os.sep):
            prefix += os.sep
        if prefix not in _hidden:
            _hidden.append(prefix)


def enabled():
    """Whether tracebacks are filtered: on unless AUTOGRAPH_TRACEBACK_FILTERING is off."""
    setting = os.environ.get(ENV, 'on').strip().lower()
    return ACTIVE and setting not in ('off', '0', 'false', 'no')


def is_internal(filename):
    return filename.startswith(tuple(_hidden))


def _kept(tb):
    """The traceback without internal frames, or `tb` itself when it has none."""
    frames = []
    total = 0
    entry = tb
    while entry is not None:
        total += 1
        if not is_internal(entry.tb_frame.f_code.co_filename):
            frames.append(entry)
        entry = entry.tb_next
    if len(frames) == total:
        return tb
    kept = None
    for entry in reversed(frames):
        kept = types.TracebackType(kept, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return kept


def _all_internal(error):
    tb = error.__traceback__
    if tb is None:
        return False
    while tb is not None:
        if not is_internal(tb.tb_frame.f_code.co_filename):
            return False
        tb = tb.tb_next
    return True


def filter_exception(error):
    """Removes internal frames from `error`'s traceback, in place, and internal chained errors.

    Idempotent; does nothing when filtering is off. The caller re-raises `error` with a bare
    `raise` (or lets it propagate), which keeps the new traceback.

    Args:
      error: the exception being raised.
    """
    if not enabled() or error.__traceback__ is None:
        return
    before = error.__traceback__
    error.__traceback__ = _kept(before)
    changed = error.__traceback__ is not before
    for link in ('__cause__', '__context__'):
        chained = getattr(error, link)
        if chained is not None and _all_internal(chained):
            setattr(error, link, None)
            changed = True
    if error.__cause__ is None and error.__context__ is None:
        error.__suppress_context__ = False
    if changed and NOTE not in getattr(error, '__notes__', ()):
        error.add_note(NOTE)


def boundary(fn):
    """Decorates a backend's entry point: errors leave it with internal frames removed.

    Args:
      fn: the function the user calls (tf.function's call, a jit wrapper).

    Returns:
      The wrapped function (`fn` itself where filtering is not available).
    """
    if not ACTIVE:
        return fn

    @functools.wraps(fn)
    def entry(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as error:  # pylint: disable=broad-except
            filter_exception(error)
            raise
    return entry
