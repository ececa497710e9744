"""Execution context: eager mode versus graph building, kept as a per-thread stack."""
import contextlib
import threading


class _State(threading.local):
    def __init__(self):
        # Stack of graphs being built; None entries are eager scopes pushed by init_scope.
        self.stack = []
        # Active GradientTapes, innermost last (runtime.gradients records ops on them).
        self.tapes = []


_state = _State()

# One entry per graph_scope, init_scope and GradientTape open in any thread, and one while
# functions run eagerly (config.run_functions_eagerly). While it is empty, every thread
# executes eagerly with no tape and functions trace: tf.function's call checks that with one
# global read (a thread-local attribute is slower to read). Entries are all None;
# list appends and pops are atomic.
_open_scopes = []


def get_graph():
    """Returns the innermost graph being built, or None when executing eagerly.

    Returns:
        A runtime.graph.Graph or None.
    """
    stack = _state.stack
    return stack[-1] if stack else None


def executing_eagerly():
    """Returns True when ops run immediately (no graph is being built).

    Returns:
        A Python bool.
    """
    stack = _state.stack
    return not stack or stack[-1] is None


@contextlib.contextmanager
def graph_scope(graph):
    """Context manager: ops created inside add nodes to `graph`.

    Args:
        graph: A runtime.graph.Graph.

    Yields:
        The graph.
    """
    stack = _state.stack
    stack.append(graph)
    _open_scopes.append(None)
    try:
        yield graph
    finally:
        _open_scopes.pop()
        stack.pop()


@contextlib.contextmanager
def init_scope():
    """Lifts out of every graph being built to the outermost (eager) context.

    Ops created inside run eagerly, e.g. to create a Variable while tracing.

    Yields:
        None.
    """
    stack = _state.stack
    stack.append(None)
    _open_scopes.append(None)
    try:
        yield
    finally:
        _open_scopes.pop()
        stack.pop()


eager_mode = init_scope


def graph_stack():
    """Returns a copy of the stack of graphs being built, outermost first.

    Returns:
        A list of Graph objects (None for eager scopes).
    """
    return list(_state.stack)
