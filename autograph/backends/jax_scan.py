"""A counted loop that reads `xs[i]` and writes `ys[i]` becomes a `lax.scan` over xs and ys.

A staged `for i in range(n)` with a Python int `n` (or `for x in xs`) is `lax.fori_loop`,
which JAX runs as a scan that carries the index. In its body every read `xs[i]` of an array
defined outside the loop is a `dynamic_slice` plus jnp's negative-index handling (up to a
dozen equations), and every write `out = out.at[i].set(y)` (or a TensorArray-style
`dynamic_update_slice`) updates a buffer carried through the loop. A JAX user writes
`lax.scan(step, carry, xs)` instead, which slices xs and stacks ys with no equation at all.

`scan_loop` traces the body once and finds, in its jaxpr:
- reads: `dynamic_slice` of a loop-invariant array whose length is the trip count, at the
  loop index in its first dimension and 0 in the others, whole rows;
- writes: a loop variable that is a buffer of `count` rows, updated at the loop index with a
  whole row (`dynamic_update_slice` or `scatter`), and used by nothing else in the body.
It then runs the body's other equations as the step of a `lax.scan` with those arrays as xs
and those rows as ys. Indices are reasoned about exactly: the loop index `i` takes the values
0 to count - 1, so jnp's `i < 0` test is False and its select picks `i`. Every written row is
written once, so the stacked ys are the final buffer. Anything else keeps the loop as it is
(the traced body replayed in `lax.fori_loop`, so user code is traced once).

The rewrite reads jaxprs (equations, primitives, avals) and makes a new one with
`Jaxpr.replace`; evaluating it is `jax.core.eval_jaxpr`. If a JAX version changes those
structures, the analysis fails and the loop stays a fori_loop.
"""

import builtins

from autograph.backends.jax_values import jax_modules
from autograph.backends.jax_values import trace_to_jaxpr


class _Index:
    """The loop index: a value in [0, count - 1]."""


_INDEX = _Index()
_INDEX_VECTOR = ('index', 1)  # the loop index broadcast to shape (1,): scatter's indices


def scan_loop(count, body, state):
    """Runs `count` (a Python int > 0) iterations of `body(i, state) -> state`.

    Args:
        count: the trip count.
        body: the loop body, taking the index and the tuple of loop variables.
        state: the initial loop variables (a tuple of pytrees).

    Returns:
        The final loop variables as a tuple, or None when the body's output types differ from
        its input types (weak types that JAX's loops promote): the caller then runs the loop
        as `lax.fori_loop`, which traces the body again with promoted types.
    """
    m = jax_modules()
    tree_util = m.jax.tree_util
    leaves, tree = tree_util.tree_flatten(tuple(state))
    out_trees = []

    def flat_body(index, *leaves):
        out_leaves, out_tree = tree_util.tree_flatten(
            tuple(body(index, tree_util.tree_unflatten(tree, leaves))))
        out_trees.append(out_tree)
        return out_leaves

    closed, _ = trace_to_jaxpr(flat_body, 0, *leaves)
    jaxpr = closed.jaxpr
    if out_trees[0] != tree or [_type(v) for v in jaxpr.invars[1:]] != [
            _type(v) for v in jaxpr.outvars]:
        return None
    try:
        plan = _plan(jaxpr, count)
    except (AttributeError, KeyError, TypeError, ValueError):  # another JAX's jaxprs
        plan = None
    if plan is None:
        def replayed(index, flat_state):
            return tuple(m.jax.core.eval_jaxpr(jaxpr, closed.consts, index, *flat_state))
        final = m.lax.fori_loop(0, count, replayed, tuple(leaves))
    else:
        final = _run(plan, closed, count, leaves)
    return tuple(tree_util.tree_unflatten(tree, list(final)))


def _type(atom):
    aval = atom.aval
    return (aval.shape, aval.dtype, getattr(aval, 'weak_type', False))


def _row_reads(jaxpr, symbols, uses, count):
    """The whole-row reads at the loop index of constant buffers of `count` rows: (the
    equations they replace, the scan inputs that stand for the rows, and per read (position
    in the constants, whether the rows need a unit axis))."""
    constvars = {var: k for k, var in enumerate(jaxpr.constvars)}
    removed, inputs, reads = set(), [], []
    for k, eqn in enumerate(jaxpr.eqns):
        if eqn.primitive.name != 'dynamic_slice':
            continue
        operand, indices = eqn.invars[0], eqn.invars[1:]
        shape = operand.aval.shape
        if (_is_literal(operand) or operand not in constvars or not shape or shape[0] != count
                or tuple(eqn.params.get('slice_sizes', ())) != (1,) + tuple(shape[1:])
                or not _at_index(symbols, indices)):
            continue
        row = eqn.outvars[0]
        removed.add(k)
        squeeze = _only_user(jaxpr, uses, row, k)
        if squeeze is not None and jaxpr.eqns[squeeze].primitive.name == 'squeeze' and tuple(
                jaxpr.eqns[squeeze].params.get('dimensions', ())) == (0,):
            removed.add(squeeze)
            inputs.append(jaxpr.eqns[squeeze].outvars[0])
            reads.append((constvars[operand], False))
        else:
            inputs.append(row)
            reads.append((constvars[operand], True))
    return removed, inputs, reads


def _is_literal(atom):
    return hasattr(atom, 'val')  # a jax.core Literal; a Var has no value


class _Plan:
    """What `_run` needs: the rewritten body and where its inputs and outputs come from."""

    def __init__(self, jaxpr, consts_kept, index_live, kept, reads, writes):
        self.jaxpr = jaxpr
        self.consts_kept = consts_kept  # positions of closed.consts the new jaxpr keeps
        self.index_live = index_live  # whether the body still needs the index
        self.kept = kept  # positions of the loop variables carried by the scan
        self.reads = reads  # [(position in closed.consts, whether rows need a unit axis)]
        self.writes = writes  # [(position of the loop variable, its shape if ys need a reshape)]


def _plan(jaxpr, count):
    """The scan of a traced loop body, or None when it reads and writes no row at the index.

    jaxpr's inputs are (index, *loop variables); its outputs the next loop variables.
    """
    index, carried = jaxpr.invars[0], jaxpr.invars[1:]
    symbols = _symbols(jaxpr, index, count)
    uses, producer = {}, {}
    for k, eqn in enumerate(jaxpr.eqns):
        for atom in eqn.invars:
            if not _is_literal(atom):
                uses[atom] = uses.get(atom, 0) + 1
        for var in eqn.outvars:
            producer[var] = k
    for atom in jaxpr.outvars:
        if not _is_literal(atom):
            uses[atom] = uses.get(atom, 0) + 1
    removed, inputs, reads = _row_reads(jaxpr, symbols, uses, count)
    outputs, writes = [], []
    for position, (before, after) in enumerate(zip(carried, jaxpr.outvars)):
        found = _row_write(jaxpr, symbols, uses, producer, (before, after), count)
        if found is None:
            continue
        k, row, reshape = found
        removed.add(k)
        outputs.append(row)
        writes.append((position, tuple(before.aval.shape) if reshape else None))
    if not reads and not writes:
        return None
    written = {position for position, _ in writes}
    kept = [p for p in range(len(carried)) if p not in written]
    outvars = [jaxpr.outvars[p] for p in kept] + outputs
    eqns, live = _live_equations(jaxpr, removed, outvars)
    consts_kept = [k for k, var in enumerate(jaxpr.constvars) if var in live]
    index_live = index in live
    new = jaxpr.replace(
        constvars=[jaxpr.constvars[k] for k in consts_kept],
        invars=([index] if index_live else []) + [carried[p] for p in kept] + inputs,
        outvars=outvars, eqns=eqns)
    return _Plan(new, consts_kept, index_live, kept, reads, writes)


def _run(plan, closed, count, leaves):
    """The loop as a lax.scan of the plan's jaxpr; returns the final flat loop variables."""
    m = jax_modules()
    consts = [closed.consts[k] for k in plan.consts_kept]
    xs = []
    for position, unit_axis in plan.reads:
        value = closed.consts[position]
        xs.append(m.numpy.expand_dims(value, 1) if unit_axis else value)
    nkept = len(plan.kept)

    def step(carry, rows):
        outs = m.jax.core.eval_jaxpr(plan.jaxpr, consts, *carry, *rows)
        carry_out = tuple(outs[:nkept])
        if plan.index_live:
            carry_out = (carry[0] + 1,) + carry_out
        return carry_out, tuple(outs[nkept:])

    init = tuple(leaves[p] for p in plan.kept)
    if plan.index_live:
        init = (0,) + init
    carry, ys = m.lax.scan(step, init, tuple(xs), length=count)
    carry = carry[1:] if plan.index_live else carry
    final = list(leaves)
    for position, value in zip(plan.kept, carry):
        final[position] = value
    for (position, shape), value in zip(plan.writes, ys):
        final[position] = value if shape is None else value.reshape(shape)
    return final


def _symbols(jaxpr, index, count):
    """Scalar facts: which vars equal the loop index (in [0, count - 1]) or a constant.

    Returns a dict from var to `_INDEX`, `_INDEX_VECTOR` or a Python int or bool. It follows
    what jnp's indexing emits: conversions, comparisons decided by the index's range, adds of
    constants, selects on a decided predicate, and the (1,)-broadcast of scatter's indices.
    """
    symbols = {index: _INDEX}
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        args = [_known(a, symbols) for a in eqn.invars]
        if len(eqn.outvars) != 1:
            continue
        out = None
        if name == 'select_n':  # needs only its predicate decided
            if type(args[0]) in (builtins.bool, builtins.int) and 0 <= args[0] < len(args) - 1:
                out = args[1 + builtins.int(args[0])]
        elif any(a is None for a in args):
            continue
        elif name == 'convert_element_type':
            if getattr(eqn.params.get('new_dtype'), 'kind', None) in ('i', 'u'):
                out = args[0] if args[0] is _INDEX else builtins.int(args[0])
        elif name in _COMPARISONS:
            out = _compare(name, args[0], args[1], count)
        elif name == 'add':
            if args[0] is _INDEX or args[1] is _INDEX:
                other = args[1] if args[0] is _INDEX else args[0]
                out = _INDEX if other is not _INDEX and other == 0 else None
            elif args[0] is not _INDEX_VECTOR and args[1] is not _INDEX_VECTOR:
                out = builtins.int(args[0]) + builtins.int(args[1])
        elif name == 'broadcast_in_dim':
            if args[0] is _INDEX and tuple(eqn.params.get('shape', ())) == (1,):
                out = _INDEX_VECTOR
        if out is not None:
            symbols[eqn.outvars[0]] = out
    return symbols


# comparison -> (ranges a, b) -> (always true, always false), a range being (lowest, highest)
_COMPARISONS = {'lt': lambda a, b: (a[1] < b[0], a[0] >= b[1]),
                'le': lambda a, b: (a[1] <= b[0], a[0] > b[1]),
                'gt': lambda a, b: (a[0] > b[1], a[1] <= b[0]),
                'ge': lambda a, b: (a[0] >= b[1], a[1] < b[0])}


def _compare(name, a, b, count):
    """A comparison decided by the ranges of its operands, else None."""
    if a is _INDEX_VECTOR or b is _INDEX_VECTOR:
        return None
    ranges = [(0, count - 1) if x is _INDEX else (builtins.int(x), builtins.int(x))
              for x in (a, b)]
    true, false = _COMPARISONS[name](*ranges)
    return True if true else False if false else None


def _known(atom, symbols):
    """What is known of an equation input: a scalar int or bool literal's value, or the
    symbol of a var (`_symbols`); else None."""
    if not _is_literal(atom):
        return symbols.get(atom)
    val = atom.val
    if getattr(val, 'shape', ()) != ():
        return None
    if isinstance(val, (builtins.bool, builtins.int)):
        return val
    kind = getattr(getattr(val, 'dtype', None), 'kind', None)
    if kind == 'b':
        return builtins.bool(val)
    return builtins.int(val) if kind in ('i', 'u') else None


def _at_index(symbols, indices):
    """Whether dynamic_slice-style start indices are (loop index, 0, 0, ...)."""
    return bool(indices) and symbols.get(indices[0]) is _INDEX and builtins.all(
        _is_zero(symbols, a) for a in indices[1:])


def _is_zero(symbols, atom):
    found = _known(atom, symbols)
    return type(found) is builtins.int and found == 0


def _only_user(jaxpr, uses, var, after):
    """The index of the one equation that uses `var` (none of the outputs do), else None."""
    if uses.get(var) != 1:
        return None
    for k in range(after + 1, len(jaxpr.eqns)):
        if any(a is var for a in jaxpr.eqns[k].invars):
            return k
    return None


def _row_write(jaxpr, symbols, uses, producer, change, count):
    """(equation, row, reshape) when `change`, a loop variable's (before, after), is a
    whole-row write at the loop index of a buffer of `count` rows that nothing else in the
    body uses."""
    before, after = change
    if _is_literal(after) or after not in producer or uses.get(before) != 1 or uses.get(
            after) != 1:
        return None
    shape = before.aval.shape
    if not shape or shape[0] != count:
        return None
    k = producer[after]
    eqn = jaxpr.eqns[k]
    name = eqn.primitive.name
    if not eqn.invars or eqn.invars[0] is not before:
        return None
    if name == 'dynamic_update_slice':
        update, indices = eqn.invars[1], eqn.invars[2:]
        if tuple(update.aval.shape) != (1,) + tuple(shape[1:]) or not _at_index(symbols, indices):
            return None
        if _type(update)[1:] != _type(before)[1:]:
            return None
        source = None if _is_literal(update) else producer.get(update)
        if source is not None and uses.get(update) == 1:
            bcast = jaxpr.eqns[source]
            operand = bcast.invars[0] if bcast.invars else None
            if (bcast.primitive.name == 'broadcast_in_dim' and operand is not None
                    and tuple(operand.aval.shape) == tuple(shape[1:])
                    and tuple(bcast.params.get('broadcast_dimensions', ())) == tuple(
                        range(1, len(shape)))
                    and _type(operand)[1:] == _type(before)[1:]):
                return k, operand, False
        return k, update, True
    if name == 'scatter' and len(eqn.invars) == 3:
        indices, update = eqn.invars[1], eqn.invars[2]
        numbers = eqn.params['dimension_numbers']
        if (symbols.get(indices) is not _INDEX_VECTOR
                or eqn.params.get('update_jaxpr') is not None
                or tuple(numbers.update_window_dims) != tuple(range(len(shape) - 1))
                or tuple(numbers.inserted_window_dims) != (0,)
                or tuple(numbers.scatter_dims_to_operand_dims) != (0,)
                or tuple(getattr(numbers, 'operand_batching_dims', ()))
                or tuple(update.aval.shape) != tuple(shape[1:])
                or _type(update)[1:] != _type(before)[1:]):
            return None
        return k, update, False
    return None


def _live_equations(jaxpr, removed, outvars):
    """The equations (not in `removed`) that `outvars` need, or that have effects, in order,
    and the set of vars they read."""
    live = {a for a in outvars if not _is_literal(a)}
    kept = []
    for k in range(len(jaxpr.eqns) - 1, -1, -1):
        if k in removed:
            continue
        eqn = jaxpr.eqns[k]
        if eqn.effects or any(v in live for v in eqn.outvars):
            kept.append(eqn)
            live.update(a for a in eqn.invars if not _is_literal(a))
    kept.reverse()
    return kept, live
