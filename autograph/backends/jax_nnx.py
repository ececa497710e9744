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


def is_object(value):
    """Whether `value` is an NNX Variable or graph node: a Module, Rngs, Optimizer...
    (flax.nnx imported)."""
    nnx = _nnx()
    return isinstance(value, (nnx.Variable, nnx.Pytree))


def _nnx_object(content):
    """The NNX object a cell's `content` is or is a method of, or None."""
    if isinstance(content, types.MethodType):
        content = content.__self__
    return content if is_object(content) else None


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
        """fn(objects) run with the cells holding `objects`: new objects whose array
        Variables hold `start`.

        Returns:
            (fn's result, the array Variables' values at its end); the indices of the values
            fn replaced are added to `changed`.
        """
        nnx, jax = _nnx(), sys.modules['jax']
        objects = nnx.merge(self.graphdef, jax.tree.unflatten(self.treedef, start), self.rest)
        variables = _variables(objects, _is_array_variable)
        others = [v for v in _variables(objects, ...) if not _is_array_variable((), v)]
        with self.threaded.holding(objects):
            out = fn(objects)
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


class _References:
    """The outputs or loop variables of a staged statement that hold one of its threaded NNX
    objects (`count = model.count` before `count[...] += 2`).

    Such a value is a reference to state, not a value lax can carry: the statement writes
    the object in place, and its values travel as the threaded Variables' values. Each
    branch or step gets its own merged object in the slot; after the statement the slot holds
    the original object again. A branch or step that leaves another value in the slot (it
    rebinds the name) cannot be staged: the error names the variable.
    """

    def __init__(self, names, where):
        self.names, self.where = names, where

    def slots(self, values, objects):
        """{slot: index of the threaded object it holds} for the entries of `values` that are
        one of `objects`."""
        found = {}
        for slot, value in enumerate(values):
            for k, obj in enumerate(objects):
                if value is obj:
                    found[slot] = k
                    break
        return found

    def drop(self, values, slots):
        return tuple(v for i, v in enumerate(values) if i not in slots)

    def fill(self, values, slots, objects, count):
        """`count` values: `values` with `objects[slots[i]]` put back at each slot i."""
        rest = iter(values)
        return tuple(objects[slots[i]] if i in slots else next(rest) for i in range(count))

    def check(self, values, slots, objects):
        """Raises if a slot that held a threaded object at the start holds another value."""
        for i, k in slots.items():
            if values[i] is not objects[k]:
                raise _rebound(self.name(i), self.where)

    def name(self, slot):
        return self.names[slot] if self.names and slot < len(self.names) else 'a variable'


def _rebound(name, where):
    """The error for a name that holds a threaded NNX object and is rebound in a statement."""
    return sys.modules['flax.errors'].TraceContextError(
        'A staged {} assigns {!r}, which holds a Flax NNX object (a Variable or Module), '
        'another value. Inside staged control flow a name that holds an NNX object may only '
        'write it in place (`{}[...] = ...`, `{}.value += ...`): keep the other value in a '
        'new name.'.format(where, str(name), name, name))


def threaded_cond(threaded, run, branches, operands):
    """`run(true_fn', false_fn')` (a staged cond) with the array Variables' values as extra
    outputs.

    Args:
        threaded: a Threaded.
        run: stages a cond of two functions of no arguments returning tuples.
        branches: (true_fn, false_fn), functions of the operands returning tuples.
        operands: a tuple; an operand that is a threaded object is, in each branch, the
            object made for that branch.

    Returns:
        The branches' own outputs; the Variables a branch wrote hold the staged values. An
        output that holds a threaded object (see _References) is that object.
    """
    split = _Split(threaded)
    count, changed = len(split.values), set()
    refs, found = _References((), 'if'), {}
    slots = refs.slots(operands, threaded.objects())  # each branch gets its own objects there
    rest = refs.drop(operands, slots)

    def branch(fn, key):
        def run_branch():
            def go(objects):
                out = tuple(fn(*refs.fill(rest, slots, objects, len(operands))))
                found[key] = (refs.slots(out, objects), len(out))
                other = found.get(not key)
                if other is not None and other[0] != found[key][0]:
                    raise _rebound(_slot_name(threaded, other[0], found[key][0]), 'if')
                return refs.drop(out, found[key][0])

            out, values = split.step(go, split.values, changed, 'if')
            return out + values
        return run_branch

    flat = tuple(run(branch(branches[0], True), branch(branches[1], False)))
    split.write_back(flat[len(flat) - count:], changed)
    out_slots, size = found[True] if True in found else found[False]
    return refs.fill(flat[:len(flat) - count], out_slots, threaded.objects(), size)


def _slot_name(threaded, one, other):
    """The name of a threaded object that one branch's output holds and the other's not."""
    for k in set(one.values()) ^ set(other.values()):
        return threaded.names[k]
    return 'a variable'


def threaded_loop(threaded, run, fns, loop_vars, names):
    """`run(cond_fn', body_fn', loop_vars', names')` (a staged loop) carrying the array
    Variables' values as more loop variables.

    Args:
        threaded: a Threaded.
        run: stages a loop of a test and a body over a tuple of loop variables, given their
            names.
        fns: (cond_fn, body_fn), the loop's test and body, functions of the loop variables.
        loop_vars: a tuple; `names` their names.

    Returns:
        The final loop variables; the Variables the loop wrote hold their final values. A
        loop variable that holds a threaded object (see _References) is not carried: it is
        that object.
    """
    split, (cond_fn, body_fn) = _Split(threaded), fns
    n, changed = len(loop_vars), set()
    refs = _References(names, 'loop')
    slots = refs.slots(loop_vars, threaded.objects())
    m = n - len(slots)

    def test(*carry):
        return split.step(lambda objects: cond_fn(*refs.fill(carry[:m], slots, objects, n)),
                          carry[m:], changed, 'loop')[0]

    def step(carry, objects):
        out = tuple(body_fn(*refs.fill(carry[:m], slots, objects, n)))
        refs.check(out, slots, objects)
        return refs.drop(out, slots)

    def body(*carry):
        out, values = split.step(lambda objects: step(carry, objects), carry[m:], changed,
                                 'loop')
        return out + values

    final = tuple(run(test, body, refs.drop(loop_vars, slots) + split.values,
                      refs.drop(names, slots) + split.names))
    split.write_back(final[m:], changed)
    return refs.fill(final[:m], slots, threaded.objects(), n)
