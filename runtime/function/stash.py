"""A compressed copy of a large traced graph, which a ConcreteFunction keeps in its place.

Once a trace is compiled, calling it needs only the executor; the Graph (its nodes, tensors
and attributes: most of a traced function's memory) is needed again only for gradients,
export and listing. A ConcreteFunction whose graph has at least `STASH_NODES` nodes keeps a
`Stash` instead: the graph and the traced arguments and outputs pickled together (so the
tensors they share stay shared) and compressed. Live objects are not copied: Variables,
functions and any object of a type outside the IR's own (`_COPIED_MODULES`) are held by
reference and put back as themselves. `load` rebuilds the same structures.

A small graph is kept as it is: its copy would save little, and pickling costs about a
third of a trace's time.
"""
import io
import pickle
import sys
import zlib

STASH_NODES = 1000  # graphs with at least this many nodes (subgraphs included) are stashed
_PICKLE_DEPTH = 1000  # recursion levels pickling may add (a 3,300-node graph needs under 200)

# Modules whose objects (the IR's own, plain data) are copied into the stash.
_COPIED_MODULES = frozenset({
    "builtins", "numpy", "runtime.graph", "runtime.tensor", "runtime.dtypes",
    "runtime.tensor_shape", "runtime.ops.slicing", "runtime.ops.registry",
    "runtime.function.keys"})


def node_count(graph):
    """The number of nodes of `graph`, subgraphs included."""
    total = 0
    stack = [graph]
    while stack:
        g = stack.pop()
        total += len(g.nodes)
        for node in g.nodes:
            stack.extend(sub for _, sub in node.subgraphs())
    return total


def keep(value, graph):
    """A Stash of `value` where `graph` has at least STASH_NODES nodes, else `value` itself
    (and itself too where pickling it would recurse past the interpreter's limit)."""
    if node_count(graph) < STASH_NODES:
        return value
    try:
        return Stash(value)
    except RecursionError:
        return value


class _Pickler(pickle.Pickler):
    def __init__(self, file, live):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._live = live  # objects held by reference, by their persistent id
        self._ids = {}

    def persistent_id(self, obj):
        kind = type(obj)
        if kind.__module__.partition(".")[0] in ("numpy",) or (
                kind.__module__ in _COPIED_MODULES and not callable(obj)) or kind is type:
            return None
        key = id(obj)
        if key not in self._ids:
            self._ids[key] = len(self._live)
            self._live.append(obj)
        return self._ids[key]


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, live):
        super().__init__(file)
        self._live = live

    def persistent_load(self, pid):
        return self._live[pid]


class Stash:
    """`value` (any structure of the IR's objects) pickled and compressed; `load()` rebuilds it.

    Args:
        value: What to keep.
    """

    __slots__ = ("_data", "_live")

    def __init__(self, value):
        self._live = []
        buffer = io.BytesIO()
        # Pickling a graph recurses a few hundred levels (nodes, their attributes, subgraphs);
        # a trace may start deep in a caller's stack (a gradient's), so the limit is raised
        # by that much while it runs.
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(limit + _PICKLE_DEPTH)
        try:
            _Pickler(buffer, self._live).dump(value)
        finally:
            sys.setrecursionlimit(limit)
        self._data = zlib.compress(buffer.getvalue(), 1)

    def load(self):
        """A copy of the stashed value (live objects are the same objects)."""
        return _Unpickler(io.BytesIO(zlib.decompress(self._data)), self._live).load()

    def __len__(self):
        return len(self._data)
