"""Flax NNX state in the JAX backend's staged `if` and loops.

An `nnx.Variable` keeps its value in a Python object, and Flax lets only the trace that made
the object write it (`TraceContextError: Cannot mutate Variable from a different trace
level`); a lax branch or loop body is a new trace. `nnx.cond` and `nnx.while_loop` solve this
for functions that take the modules as operands: they split the state off, pass it through
lax as values and merge it back. Converted code closes over `self` instead, so this module
does the same for the objects a staged statement's code closes over:

- `scope(named_objects)` (the backend's `stateful_scope`, entered by the operators for each
  staged statement) finds the Variables reachable from those objects (`nnx.iter_graph`) that
  the current trace may write, and makes them the statement's `Threaded` state.
- `threaded_cond` and `threaded_loop` carry those Variables' values through `lax.cond` and
  the loop as extra outputs and loop variables: each branch or loop step starts from the
  values it is given, writes happen inside it, and the values at its end are its extra
  outputs; after the statement the Variables hold the staged results.
- While a branch or loop step is traced, its Variables accept writes from that trace
  (`Threaded.writable`), and they are given back their own values and trace afterwards, so
  no value of an inner trace is left in a Variable.

Nothing here imports flax; it runs only when a program has imported `flax.nnx`.
"""
import contextlib
import sys
import threading


class _Stack(threading.local):
    def __init__(self):
        super().__init__()
        self.entries = []  # per staged statement being staged: [Threaded or None, taken]


_STACK = _Stack()


def _nnx():
    return sys.modules.get('flax.nnx')


class Threaded:
    """The NNX Variables one staged statement threads, with the names the user knows them by.
    """

    def __init__(self, variables, names):
        self.variables = variables  # nnx.Variable objects, each once
        self.names = names  # 'self.count', ... (for messages and loop variable names)

    def values(self):
        return tuple(v.get_raw_value() for v in self.variables)

    def assign(self, values):
        for variable, value in zip(self.variables, values):
            variable.set_raw_value(value)

    @contextlib.contextmanager
    def writable(self):
        """The Variables accept writes from the current trace (a lax branch or loop step).

        Flax records the trace a Variable may be written from in its `_trace_state`; this is
        the one place that relies on that field. Each Variable gets its own trace state back
        on exit.
        """
        tracers = sys.modules['flax.nnx.tracers']
        saved = [v._trace_state for v in self.variables]  # pylint: disable=protected-access
        try:
            for variable in self.variables:
                object.__setattr__(variable, '_trace_state', tracers.TraceState())
            yield
        finally:
            for variable, state in zip(self.variables, saved):
                object.__setattr__(variable, '_trace_state', state)


def _writable_here(variable):
    """Whether the current trace may write `variable` (it made it, or it was given to it)."""
    state = getattr(variable, '_trace_state', None)
    return state is not None and state.is_valid()


def find(named_objects):
    """The Threaded state of the Variables reachable from `named_objects`, or None.

    Args:
        named_objects: (name, object) pairs: the free variables of a staged statement's code.

    Returns:
        A Threaded, or None when there is none (or flax.nnx is not imported).
    """
    nnx = _nnx()
    if nnx is None or not hasattr(nnx.Variable, 'get_raw_value'):  # flax < 0.12: not threaded
        return None
    jax = sys.modules['jax']
    variables, names, seen = [], [], set()
    for name, obj in named_objects:
        if isinstance(obj, nnx.Variable):
            found = [((), obj)]
        elif nnx.graph.is_graph_node(obj):
            found = nnx.iter_graph(obj)
        else:
            continue
        for path, value in found:
            if (isinstance(value, nnx.Variable) and id(value) not in seen
                    and isinstance(value.get_raw_value(), jax.Array)
                    and _writable_here(value)):
                seen.add(id(value))
                variables.append(value)
                names.append('.'.join([name] + [str(p) for p in path]))
    return Threaded(variables, names) if variables else None


@contextlib.contextmanager
def scope(named_objects):
    """Makes the NNX state reachable from `named_objects` the next staged statement's."""
    _STACK.entries.append([find(named_objects), False])
    try:
        yield
    finally:
        _STACK.entries.pop()


def pending():
    """Whether the statement being staged has Threaded state not taken yet."""
    entries = _STACK.entries
    return bool(entries) and not entries[-1][1] and entries[-1][0] is not None


def take():
    """The Threaded state of the statement being staged, once (None after, or without one);
    the backend's own inner conds and loops of the same statement thread nothing more."""
    if not _STACK.entries or _STACK.entries[-1][1]:
        return None
    entry = _STACK.entries[-1]
    entry[1] = True
    return entry[0]


@contextlib.contextmanager
def restored():
    """The statement's Variables get their values back on exit (a discarded trial run)."""
    threaded = _STACK.entries[-1][0] if _STACK.entries else None
    saved = threaded.values() if threaded is not None else None
    try:
        yield
    finally:
        if threaded is not None:
            threaded.assign(saved)


def _step(threaded, fn, start, outer):
    """fn() run with the Variables at `start` in the current trace; returns (fn's result,
    the Variables' values at its end); the Variables hold `outer` again afterwards."""
    with threaded.writable():
        threaded.assign(start)
        try:
            return fn(), threaded.values()
        finally:
            threaded.assign(outer)


def threaded_cond(threaded, run, true_fn, false_fn):
    """`run(true_fn', false_fn')` (a staged cond) with the Variables' values as extra outputs.

    Args:
        threaded: a Threaded.
        run: stages a cond of two functions of no arguments returning tuples.
        true_fn, false_fn: the branches, functions of no arguments returning tuples.

    Returns:
        The branches' own outputs; the Variables hold the staged values.
    """
    outer = threaded.values()
    count = len(outer)

    def branch(fn):
        def run_branch():
            out, values = _step(threaded, lambda: tuple(fn()), outer, outer)
            return out + tuple(values)
        return run_branch

    flat = tuple(run(branch(true_fn), branch(false_fn)))
    threaded.assign(flat[len(flat) - count:])
    return flat[:len(flat) - count]


def threaded_loop(threaded, run, cond_fn, body_fn, loop_vars):
    """`run(cond_fn', body_fn', loop_vars')` (a staged loop) carrying the Variables' values.

    Args:
        threaded: a Threaded.
        run: stages a loop of a test and a body over a tuple of loop variables.
        cond_fn, body_fn: the loop's test and body, functions of the loop variables.
        loop_vars: a tuple.

    Returns:
        The final loop variables; the Variables hold their final staged values.
    """
    outer = threaded.values()
    n = len(loop_vars)

    def test(*carry):
        return _step(threaded, lambda: cond_fn(*carry[:n]), carry[n:], outer)[0]

    def body(*carry):
        out, values = _step(threaded, lambda: tuple(body_fn(*carry[:n])), carry[n:], outer)
        return out + tuple(values)

    final = tuple(run(test, body, tuple(loop_vars) + outer))
    threaded.assign(final[n:])
    return final[:n]
