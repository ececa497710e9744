"""Flax NNX state in the JAX backend's staged `if` and loops.

An `nnx.Variable` keeps its value in a Python object, and Flax lets only the trace that made
the object write it (`TraceContextError: Cannot mutate Variable from a different trace
level`); a lax branch or loop body is a new trace. `nnx.cond` and `nnx.while_loop` solve this
for functions that take the modules as operands: they split the state off, pass it through
lax as values and merge it into new objects inside. Converted code closes over `self`
instead, so this module does the same for the closure cells of a staged statement's code,
with Flax's public API only (`nnx.split`, `nnx.merge`, `nnx.state`, `Variable.set_raw_value`):

- `scope(named_cells)` (the backend's `stateful_scope`, entered by the operators for each
  staged statement) keeps the cells that hold an NNX graph node, a Variable or a method bound
  to a graph node: the statement's `Threaded` state.
- `threaded_cond` and `threaded_loop` split those objects (`nnx.split`) and carry the values
  of their array Variables through `lax.cond` and the loop as extra outputs and loop
  variables. Each branch or loop step merges them into new objects, made in its own trace and
  so writable there (`nnx.merge`), and runs with the cells holding the new objects; the values
  at its end are its extra outputs. The cells get the original objects back afterwards.
- After the statement, the Variables that a branch or loop step wrote get the staged values
  (`set_raw_value`, which raises Flax's own `TraceContextError` for a Variable of an outer
  trace). A branch may not change anything else of the objects (their structure, attributes
  or a Variable that holds no array): such a change would be lost, so it raises Flax's
  `TraceContextError`, as writing the objects from the branch's trace does in plain NNX.

Nothing here imports flax; it runs only when a program has imported `flax.nnx`.
"""
import contextlib
import sys
import threading
import types


class _Stack(threading.local):
    def __init__(self):
        super().__init__()
        self.entries = []  # per staged statement being staged: [Threaded or None, taken]


_STACK = _Stack()


def _nnx():
    return sys.modules.get('flax.nnx')


def _is_array_variable(_, value):
    """nnx.split's filter: a Variable holding a jax.Array (what lax can carry)."""
    return (isinstance(value, _nnx().Variable)
            and isinstance(value.get_raw_value(), sys.modules['jax'].Array))


def _variables(objects, *filters):
    """The Variables of `objects` (nnx.state's leaves), in nnx.split's order."""
    nnx, jax = _nnx(), sys.modules['jax']
    return tuple(jax.tree.leaves(nnx.state(objects, *filters),
                                 is_leaf=lambda x: isinstance(x, nnx.Variable)))


class Threaded:
    """The closure cells of one staged statement's code that hold NNX objects (a module, a
    Variable, or a method bound to a module)."""

    def __init__(self, cells, names):
        self.cells = cells  # each once
        self.names = names  # the names the code gives them: 'self', ...

    def objects(self):
        return tuple(_nnx_object(cell.cell_contents) for cell in self.cells)

    @contextlib.contextmanager
    def holding(self, objects):
        """The cells hold `objects` (a branch's own ones; a method is bound to its own
        object), and their own contents again after."""
        saved = tuple(cell.cell_contents for cell in self.cells)
        try:
            for cell, content, obj in zip(self.cells, saved, objects):
                if isinstance(content, types.MethodType):
                    obj = types.MethodType(content.__func__, obj)
                cell.cell_contents = obj
            yield
        finally:
            for cell, content in zip(self.cells, saved):
                cell.cell_contents = content


def _nnx_object(content):
    """The NNX object a cell's `content` is or is a method of, or None."""
    nnx = _nnx()
    if isinstance(content, types.MethodType):
        content = content.__self__
    if isinstance(content, (nnx.Variable, nnx.Pytree)):  # a Module, Rngs, Optimizer...
        return content
    return None


class _Split:
    """A Threaded's objects split (nnx.split) where the statement is staged.

    `values` are the raw values of their array Variables (what lax carries), `names` the
    names the user knows those by ('self.count'), `variables` the Variables themselves.
    """

    def __init__(self, threaded):
        nnx, jax = _nnx(), sys.modules['jax']
        self.threaded = threaded
        objects = threaded.objects()
        self.graphdef, arrays, self.rest = nnx.split(objects, _is_array_variable, ...)
        pairs, self.treedef = jax.tree_util.tree_flatten_with_path(arrays)
        self.values = tuple(value for _, value in pairs)
        self.names = tuple(threaded.names[_key(path[0])] + _attribute_path(path[1:-1])
                           for path, _ in pairs)
        self.variables = _variables(objects, _is_array_variable)
        self.rest_values = tuple(v.get_raw_value() for v in _variables(objects, ...)
                                 if not _is_array_variable((), v))

    def step(self, fn, start, changed, where):
        """fn() run with the cells holding new objects whose array Variables hold `start`.

        Returns:
            (fn's result, the array Variables' values at its end); the indices of the values
            fn replaced are added to `changed`.
        """
        nnx, jax = _nnx(), sys.modules['jax']
        objects = nnx.merge(self.graphdef, jax.tree.unflatten(self.treedef, start), self.rest)
        variables = _variables(objects, _is_array_variable)
        others = [v for v in _variables(objects, ...) if not _is_array_variable((), v)]
        with self.threaded.holding(objects):
            out = fn()
        if nnx.graphdef(objects) != self.graphdef or any(
                v.get_raw_value() is not value for v, value in zip(others, self.rest_values)):
            raise _changed_structure(self.threaded.names, where)
        values = tuple(v.get_raw_value() for v in variables)
        changed.update(i for i, (new, old) in enumerate(zip(values, start)) if new is not old)
        return out, values

    def write_back(self, values, changed):
        """The Variables that a branch or step wrote get their staged `values`."""
        for i in sorted(changed):
            try:
                self.variables[i].set_raw_value(values[i])
            except Exception as error:  # Flax's TraceContextError
                error.add_note('{} was written inside a staged statement; only the trace '
                               'that made it may write it.'.format(self.names[i]))
                raise


def _key(key):
    """The dict key, index or attribute name of a jax key path entry."""
    for field in ('key', 'idx', 'name'):
        if hasattr(key, field):
            return getattr(key, field)
    return key


def _attribute_path(path):
    """'.count' for the key path of a Variable below one split object."""
    return ''.join('.' + str(_key(key)) for key in path)


def _changed_structure(names, where):
    """Flax's error for a write from another trace, which this change would be without the
    new objects, saying what changed and what to do."""
    return sys.modules['flax.errors'].TraceContextError(
        'A staged {} changed {} in a way that cannot leave it: it set an attribute, added or '
        'removed a submodule, or wrote a Variable that holds no jax array. Inside staged '
        'control flow only the values of Variables that hold jax arrays can change: make '
        'the change outside the statement, or keep the value in an array Variable.'.format(
            where, ' or '.join(repr(name) for name in names)))


def find(named_cells):
    """The Threaded state of the cells in `named_cells` that hold NNX objects, or None.

    Args:
        named_cells: (name, cell) pairs: the closure cells of a staged statement's code.

    Returns:
        A Threaded, or None when there is none (or flax.nnx is not imported).
    """
    nnx = _nnx()
    if nnx is None or not hasattr(nnx.Variable, 'get_raw_value'):  # flax < 0.12: not threaded
        return None
    cells, names = [], []
    for name, cell in named_cells:
        if _nnx_object(cell.cell_contents) is not None:
            cells.append(cell)
            names.append(name)
    return Threaded(cells, names) if cells else None


@contextlib.contextmanager
def scope(named_cells):
    """Makes the NNX objects that `named_cells` hold the next staged statement's."""
    _STACK.entries.append([find(named_cells), False])
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
    """The statement's array Variables get their values back on exit (a discarded trial run)."""
    threaded = _STACK.entries[-1][0] if _STACK.entries else None
    split = _Split(threaded) if threaded is not None else None
    try:
        yield
    finally:
        if split is not None:
            for variable, value in zip(split.variables, split.values):
                if variable.get_raw_value() is not value:
                    variable.set_raw_value(value)


def loop_names(threaded):
    """The names of the values a loop of `threaded` carries ('self.count', ...)."""
    return _Split(threaded).names


def threaded_cond(threaded, run, true_fn, false_fn):
    """`run(true_fn', false_fn')` (a staged cond) with the array Variables' values as extra
    outputs.

    Args:
        threaded: a Threaded.
        run: stages a cond of two functions of no arguments returning tuples.
        true_fn, false_fn: the branches, functions of no arguments returning tuples.

    Returns:
        The branches' own outputs; the Variables a branch wrote hold the staged values.
    """
    split = _Split(threaded)
    count, changed = len(split.values), set()

    def branch(fn):
        def run_branch():
            out, values = split.step(lambda: tuple(fn()), split.values, changed, 'if')
            return out + values
        return run_branch

    flat = tuple(run(branch(true_fn), branch(false_fn)))
    split.write_back(flat[len(flat) - count:], changed)
    return flat[:len(flat) - count]


def threaded_loop(threaded, run, cond_fn, body_fn, loop_vars):
    """`run(cond_fn', body_fn', loop_vars')` (a staged loop) carrying the array Variables'
    values as more loop variables.

    Args:
        threaded: a Threaded.
        run: stages a loop of a test and a body over a tuple of loop variables.
        cond_fn, body_fn: the loop's test and body, functions of the loop variables.
        loop_vars: a tuple.

    Returns:
        The final loop variables; the Variables the loop wrote hold their final values.
    """
    split = _Split(threaded)
    n, changed = len(loop_vars), set()

    def test(*carry):
        return split.step(lambda: cond_fn(*carry[:n]), carry[n:], changed, 'loop')[0]

    def body(*carry):
        out, values = split.step(lambda: tuple(body_fn(*carry[:n])), carry[n:], changed,
                                 'loop')
        return out + values

    final = tuple(run(test, body, tuple(loop_vars) + split.values))
    split.write_back(final[n:], changed)
    return final[:n]
