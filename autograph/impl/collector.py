"""Pausing the cyclic garbage collector while a large tree or graph is built."""
import contextlib
import gc
import threading

# The number of active pauses, and whether the collector was enabled when the first of them
# began (both guarded by _LOCK).
_LOCK = threading.Lock()
_pauses = 0
_was_enabled = False


@contextlib.contextmanager
def paused():
    """Pauses the cyclic garbage collector for the block, then restores its state.

    Parsing, converting, loading, tracing, optimising and generating code allocate many small
    objects that all live until the step ends (nodes, annotations, scopes, graph nodes). The
    collector would scan the whole growing structure again and again, which makes the cost
    grow faster than the size. Pauses nest and may overlap across threads: the collector is
    enabled again (if it was enabled before the first pause) when the last one ends, and the
    cycles made meanwhile are collected then, by its normal thresholds.

    Yields:
      None.
    """
    global _pauses, _was_enabled
    with _LOCK:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _LOCK:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()
