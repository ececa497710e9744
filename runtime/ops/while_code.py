"""How the code generator writes a `while` node: the loop shapes it recognises and its rule.

A staged loop becomes Python's own loop, its shape decided before any line is written:
`for i in range(i, n):` for a counted loop, `while test:` when the test is one expression,
`while True:` with `if not test: break` after the test's statements otherwise. A loop with a
`break` tests its flag where the flag is set (`TailBreak`), or at the end of the body. The
rule writes through an `EmitContext` (runtime.executor.emit_context).
"""
import operator

import numpy as np

from runtime.executor import loop_reads
from runtime.ops import registry


def _is_cond(node):
    """Whether `node` is a cond (this module's sibling op, control_flow_ops)."""
    return node.op == "cond"


class TailBreak:
    """A cond that computes the exit flag of a loop with a `break`, last in the loop's body (or
    in a branch of such a cond): each branch that sets the flag to True ends with the rest of
    the iteration and `break` (`found = k; total = add; break`), so the loop tests no flag at
    the end of every iteration.

    The flag is False as an iteration begins (the loop stops after one that set it), so a
    branch that passes it through keeps it False.

    Attributes:
        cond: The cond node.
        index: The flag's output index of `cond`.
        flag_in: The tensor of cond's graph that holds the flag as the iteration began.
        names: The names that cond's graph assigns its outputs to after it (the loop's names
            in the body; the outer cond's output names in a branch: set when that is emitted).
        outputs: The outputs of cond's graph.
        outer: The TailBreak of the cond whose branch holds this cond, or None.
        handled: Set once emitted: whether each branch breaks or keeps the flag False.
    """

    def __init__(self, cond, index, flag_in, names, outputs, outer):
        self.cond, self.index, self.flag_in = cond, index, flag_in
        self.names, self.outputs, self.outer = names, outputs, outer
        self.handled = False
        # the name of the loop's flag variable (the outermost TailBreak's is set by the loop)
        self.loop_flag = None if outer is None else outer.loop_flag

    @classmethod
    def of(cls, ctx, graph, flag, flag_in, names, outer=None):
        """The TailBreak of the cond computing output `flag` of `graph`, or None when that is
        not a cond, or code follows it in the graph."""
        cond = flag.node
        if not _is_cond(cond):
            return None
        after = graph.nodes[next(i for i, m in enumerate(graph.nodes) if m is cond) + 1:]
        if any(not (m.is_source or ctx.is_skipped(m)) for m in after):
            return None
        return cls(cond, flag.index, flag_in, names, graph.outputs, outer)

    def kind(self, ctx, branch):
        """What `branch` of the cond makes the flag: "true" (a constant True), "false" (the
        flag as the iteration began, or a constant False: autograph gives a loop's body its
        flags as False), a TailBreak (a cond last in the branch), or None."""
        flag = branch.outputs[self.index]
        if flag.node.is_constant:
            value = flag.node.attrs["value"]
            if value.dtype != np.bool_ or value.shape != ():
                return None
            return "true" if value else "false"
        operands = self.cond.inputs[1:]
        # the flag as the iteration began, in the branch (None: the cond does not take it)
        inner = next((t for t, u in zip(branch.inputs, operands) if u is self.flag_in), None)
        if inner is not None and flag is inner:
            return "false"
        return TailBreak.of(ctx, branch, flag, inner, None, self)

    def sets_loop_flag(self, names):
        """Whether the cond's flag output, assigned to `names`, goes straight into the loop's
        flag variable (so a branch that keeps the flag False need not assign it)."""
        return names[self.index] == self.loop_flag

    def emit_break(self, ctx, names, depth):
        """Emits, after a branch that assigned the cond's outputs to `names`, what the rest of
        the iteration assigns (each enclosing graph's outputs, out to the loop's names), then
        `break`."""
        frame = self
        while frame is not None:
            for t, name in zip(frame.cond.outputs, names):
                ctx.set_value(t, name)
            for t in frame.outputs:  # a constant after the cond (no line) is not bound yet
                if not ctx.has_value(t) and t.node.is_constant:
                    ctx.emit_node(t.node, depth)
            ctx.assign(frame.names, frame.outputs, depth)
            names = frame.names
            frame = frame.outer
        ctx.line(depth, "break")



class _Readers:
    """Who reads each tensor, per graph: (node, input index) pairs, indexed once per graph."""

    def __init__(self):
        self._index = {}  # id(graph) -> {id(tensor): [(node, input index)]}

    def __call__(self, graph, tensor):
        index = self._index.get(id(graph))
        if index is None:
            index = self._index[id(graph)] = {}
            for n in graph.nodes:
                for j, u in enumerate(n.inputs):
                    index.setdefault(id(u), []).append((n, j))
        return index.get(id(tensor), [])


def _only_output(readers, graph, tensor, k):
    """Whether `tensor` is read in `graph` only as its output k."""
    return not readers(graph, tensor) and [o is tensor for o in graph.outputs].count(True) == 1 \
        and graph.outputs[k] is tensor


def _counter_steps(readers, graph, value, k):
    """The `value + constant` nodes taking loop counter `value` to `graph`'s output k, when
    that is all that happens to it (through conds too), else None."""
    steps = []
    reads = readers(graph, value)
    if not reads:
        return steps if _only_output(readers, graph, value, k) else None
    if any(o is value for o in graph.outputs):
        return None
    for n, j in reads:
        if registry.OPS[n.op].kernel is operator.add and not n.attrs:
            constant = n.inputs[1 - j].node.is_constant
            if not constant or not _only_output(readers, graph, n.outputs[0], k):
                return None
            steps.append(n)
        elif _is_cond(n) and j > 0:
            found = [m for m, t in enumerate(n.outputs) if _only_output(readers, graph, t, k)]
            if not found:
                return None
            for _, branch in n.subgraphs():
                inner = _counter_steps(readers, branch, branch.inputs[j - 1], found[0])
                if inner is None:
                    return None
                steps += inner
        else:
            return None
    return steps


def _lazy_counters(node, skip):
    """Loop variables only ever stepped by constants (`steps += 1`) and not read by the test:
    wrapped once after the loop instead of at every step. Their magnitude grows at most
    linearly with the iterations, and `+` commutes with the wrap, so the result is the same.

    Returns:
        (k, step nodes) pairs.
    """
    n = node.attrs["num_loop_vars"]
    cond_graph, body_graph = node.attrs["cond_graph"], node.attrs["body_graph"]
    found = []
    readers = _Readers()
    for k in range(n):
        t = node.outputs[k]
        if k == skip or t.shape != () or t.dtype.np_dtype.kind != "i" or \
                readers(cond_graph, cond_graph.inputs[k]):
            continue
        steps = _counter_steps(readers, body_graph, body_graph.inputs[k], k)
        if steps:
            found.append((k, steps))
    return found


def _conjunct(test):
    """`p and q` is `cond(p, q, False)`: where it is true, so is p. Returns the innermost p."""
    while _is_cond(test.node):
        false_graph = test.node.attrs["false_graph"]
        value = false_graph.outputs[test.index].node
        if not value.is_constant or value.attrs["value"].dtype != bool or \
                bool(value.attrs["value"]):
            break
        test = test.node.inputs[0]
    return test


_COMPARISONS = (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne)


def _is_false(tensor):
    """Whether `tensor` is the output of a constant False."""
    node = tensor.node
    return node.is_constant and node.attrs["value"].dtype == bool and \
        not bool(node.attrs["value"])


def _position(tensors, tensor):
    """The index of `tensor` in `tensors` (by identity: `==` on tensors is an op), or None."""
    return next((j for j, t in enumerate(tensors) if t is tensor), None)


def _flag_form(conjunction):
    """(negation, branch, test) of a loop test `cond(not done, test, False)` (branch: the
    true graph and the operands it is bound to) or `cond(i < n, not done, False)` (branch:
    None), where `negation` is the node that may be `not done`; or None."""
    true_graph, false_graph = conjunction.attrs["true_graph"], conjunction.attrs["false_graph"]
    operands = conjunction.inputs[1:]
    pred = conjunction.inputs[0]
    if pred.node.op == "logical_not":  # `cond(not done, test, False)`
        negation, branch, test = pred.node, (true_graph, operands), true_graph.outputs[0]
        false = false_graph.outputs[0]
        if not (_is_false(false) or (false.node.is_placeholder and
                                     operands[_position(false_graph.inputs, false)] is pred)):
            return None
        read = [t for m in true_graph.nodes for t in m.inputs] + [test]
        if any(operands[_position(true_graph.inputs, t)] is pred
               for t in read if t.node.is_placeholder):
            return None  # the test reads `not done` itself
        return negation, branch, test
    if _is_false(false_graph.outputs[0]):  # `cond(i < n, not done, False)`
        negation, test = true_graph.outputs[0].node, pred
        if negation.is_placeholder:  # computed before the cond and passed in
            negation = operands[_position(true_graph.inputs, true_graph.outputs[0])].node
        elif any(not m.is_source and m is not negation for m in true_graph.nodes):
            return None
        return negation, None, test
    return None


def _exit_flag(node):
    """A loop test `test and not done` on a flag that starts False: the loop of a `break`.

    autograph stages a loop with a `break` with a flag in its test: `for i in range(n)` as
    `cond(i < n, not done, False)`, and `while test` as `cond(not done, test, False)` (the
    test inside the branch). Python's `while test: ...; if done: break` runs the same
    iterations: done is False on entry, and after each iteration both exit exactly when done.
    In the first form the staged loop reads `i < n` once more after the break, so the rest of
    its test may only be comparisons of scalars (they cannot raise, and reading them has no
    effect); the second reads its test exactly when Python does.

    Returns:
        (k, test, skipped, branch): the flag's loop-variable index; the tensor the loop still
        tests; the nodes of the cond graph that the `break` replaces (the `cond`, and the
        `not` when it is there); and for the second form (the branch graph computing the test,
        the cond's operands it is bound to), else None. Or None when the test is not so.
    """
    n = node.attrs["num_loop_vars"]
    cond_graph = node.attrs["cond_graph"]
    conjunction = cond_graph.outputs[0].node
    if not _is_cond(conjunction) or len(conjunction.outputs) != 1:
        return None
    form = _flag_form(conjunction)
    if form is None:
        return None
    negation, branch, test = form
    true_graph, operands = conjunction.attrs["true_graph"], conjunction.inputs[1:]
    if negation.op != "logical_not":
        return None
    done = negation.inputs[0]
    inside = negation.graph is true_graph
    if inside:
        if not done.node.is_placeholder:
            return None
        done = operands[_position(true_graph.inputs, done)]
    k = _position(cond_graph.inputs[:n], done)
    if k is None or not _is_false(node.inputs[k]):
        return None
    skipped = {conjunction} if inside else {conjunction, negation}
    if any(t is negation.outputs[0] for m in cond_graph.nodes if m not in skipped
           for t in m.inputs):
        return None
    for m in cond_graph.nodes:
        if not m.is_source and m not in skipped and (
                registry.OPS[m.op].kernel not in _COMPARISONS or m.attrs or
                any(t.shape != () for t in m.inputs)):
            return None
    return k, test, skipped, branch


class _Loop:
    """What the while rule decided about one loop before writing it.

    Attributes:
        node: The while node.
        names: The local names of the loop variables.
        test: The tensor the loop tests (the test inside an exit-flag conjunction).
        flag: The exit flag's loop-variable index (a loop with a `break`), or None.
        branch: For `cond(not done, test, False)`: (the graph computing the test, the
            operands it is bound to); else None.
        counted: (k, bound, increment) of a counted loop written as `for` (loop_patterns),
            or None.
        value: The body's `1 + i` node that the `for` iterates itself, or None.
    """

    def __init__(self, ctx, node, names):
        self.node, self.names = node, names
        cond_graph = node.attrs["cond_graph"]
        self.test, self.flag, self.branch, skipped = cond_graph.outputs[0], None, None, None
        exit_flag = _exit_flag(node)
        if exit_flag is not None:  # `while test: ...; if done: break`
            self.flag, self.test, skipped, self.branch = exit_flag
            ctx.skip(skipped)
        loop = ctx.counting_loop(node, self.test, skipped) if self.branch is None else None
        if loop is not None:  # i + 1 while i < bound: the counter only grows from its start
            ctx.grows_from(cond_graph.inputs[loop[0]], node.inputs[loop[0]])
        # a break leaves a `for` loop's counter one short of the while loop's
        if loop is not None and self.flag is not None and \
                not ctx.output_unused(node.outputs[loop[0]]):
            loop = None
        self.counted = loop
        # the body's `1 + i` when Python can iterate it: the counter is not read after the
        # loop (asked before the nested blocks are written: they replace the block read)
        self.value = None
        if loop is not None and ctx.output_unused(node.outputs[loop[0]]):
            self.value = ctx.offset_counter(node, loop[0], loop[2])


def emit_while(ctx, node, depth):
    """The code generator's rule for `while` (see the module docstring)."""
    names = _enter(ctx, node, depth)
    loop = _Loop(ctx, node, names)
    (emitted, positions), test_lines = ctx.lines_of(lambda: _write_test(ctx, loop, depth))
    if emitted:  # the test needs statements: `while True:` and a break after them
        loop.counted = None
        ctx.line(depth, "while True:", node)
        ctx.add_lines(test_lines)
        ctx.line(depth + 1, f"if not {ctx.truth(ctx.value(loop.test))}:", node)
        ctx.line(depth + 2, "break")
    elif loop.counted is not None:
        ctx.line(depth, _for_header(ctx, loop), node)
    else:  # the test is one expression: `while i < n:`
        ctx.line(depth, f"while {ctx.truth(ctx.statement_text(loop.test))}:", node)
    lazy = _lazy_counters(node, loop.counted[0] if loop.counted is not None else None)
    for _, steps in lazy:
        ctx.wrap_later(steps)
    body_graph = node.attrs["body_graph"]
    # The body runs only where the test held: `i < n` bounds i (no wrap needed for i + 1).
    for t, interval in ctx.refine_when_true(_conjunct(loop.test)):
        if t in positions:
            ctx.set_interval(body_graph.inputs[positions[t]], interval)
    _write_body(ctx, loop, depth)
    _leave(ctx, loop, lazy, depth)


def _enter(ctx, node, depth):
    """Writes what comes before the loop (its variables' first values, memoryviews, Python
    float copies, row offsets) and binds the subgraphs' inputs; returns the variables' names."""
    n = node.attrs["num_loop_vars"]
    cond_graph, body_graph = node.attrs["cond_graph"], node.attrs["body_graph"]
    for t in node.inputs[:n]:  # each read once: it may stay an expression
        ctx.wrapped(t, depth)
    ctx.materialize_all(node.inputs[n:], depth)
    walk = loop_reads.ElementReads()
    read = walk.inputs_read(node)
    compared = {id(node.inputs[j]) for g in (cond_graph, body_graph)
                for j, t in enumerate(g.inputs) if j >= n and id(t) in walk.compared}
    for t in node.inputs[n:]:
        if id(t) in read:  # arrays read by element: a memoryview
            ctx.view(t, depth, node)
        if id(t) in compared:  # a scalar compared with a Python float: a Python float copy
            ctx.float_copy(t, depth, node)
    ctx.read_as_python_floats(walk.floats)
    captured = [ctx.value(t) for t in node.inputs[n:]]
    names = [ctx.new_name(body_graph.inputs[i].node.name) for i in range(n)]
    for name, t in zip(names, node.inputs):
        ctx.line(depth, f"{name} = {ctx.statement_text(t)}")
    sources = [None] * n + list(node.inputs[n:])  # loop variables change; captures do not
    ctx.bind(cond_graph, names + captured, sources)
    ctx.bind(body_graph, names + captured, sources)
    ctx.row_offsets(body_graph, body_graph.inputs[n:], depth, node)
    return names


def _write_test(ctx, loop, depth):
    """Writes the statements the test needs (in the loop); returns whether there were any,
    and the loop-variable index of each tensor the test's graph reads as an input."""
    cond_graph = loop.node.attrs["cond_graph"]
    emitted = ctx.block(cond_graph, depth + 1)
    positions = {t: k for k, t in enumerate(cond_graph.inputs)}
    if loop.branch is not None:  # the test is computed in the cond's branch
        true_graph, operands = loop.branch
        ctx.bind(true_graph, [ctx.value(t) if ctx.has_value(t) else None for t in operands],
                 operands)
        emitted = ctx.block(true_graph, depth + 1) or emitted
        positions = {t: positions[u] for t, u in zip(true_graph.inputs, operands)
                     if u in positions}
    return emitted, positions


def _for_header(ctx, loop):
    """`for i in range(i, n):`, the increment left to range (or `for v in range(i + 1,
    n + 1):` where the body reads the counter only as v = 1 + i)."""
    k, bound, increment = loop.counted
    counter, bound = loop.names[k], ctx.statement_text(bound)
    loop.counted = (k, bound, increment)
    if loop.value is None:
        header = f"for {counter} in range({counter}, {bound}):"
    else:  # ints: a numpy bound must not wrap at + 1
        name = ctx.new_name(loop.value.name)
        header = f"for {name} in range(int({counter}) + 1, int({bound}) + 1):"
        ctx.skip({loop.value})
        ctx.set_value(loop.value.outputs[0], name)
    ctx.skip({increment})
    ctx.set_value(increment.outputs[0], counter)
    return header


def _write_body(ctx, loop, depth):
    """Writes the body, the assignment of the next values and the flag's `break`."""
    node, names = loop.node, loop.names
    body_graph = node.attrs["body_graph"]
    start = ctx.line_count()
    # the cond setting the flag breaks itself
    tail = None if loop.flag is None else TailBreak.of(
        ctx, body_graph, body_graph.outputs[loop.flag], body_graph.inputs[loop.flag], names)
    if tail is not None:
        tail.loop_flag = names[loop.flag]
    outer_tail, ctx.loop_tail = ctx.loop_tail, tail
    ctx.block(body_graph, depth + 1, out_names=names)
    ctx.loop_tail = outer_tail
    ctx.assign(names, body_graph.outputs, depth + 1)
    if loop.flag is not None and not (tail is not None and tail.handled):
        ctx.line(depth + 1, f"if {names[loop.flag]}:", node)
        ctx.line(depth + 2, "break")
    if ctx.line_count() == start:
        ctx.line(depth + 1, "pass")


def _leave(ctx, loop, lazy, depth):
    """Writes what follows the loop and binds the while node's outputs."""
    node, names = loop.node, loop.names
    if loop.counted is not None and loop.value is None and loop.flag is None:
        # a while loop leaves i at n (or at its start when that is past n)
        counter, bound = names[loop.counted[0]], loop.counted[1]
        ctx.line(depth, f"if {counter} < {bound}:", node)
        ctx.line(depth + 1, f"{counter} = {bound}", node)
    for k, _ in lazy:
        ctx.wrap_local(names[k], node.outputs[k], depth)
    for t, name in zip(node.outputs, names):
        ctx.set_value(t, name)
