"""The structured ops `cond` and `while`: their rules for the interpreter, codegen and optimiser.

The tracing functions that build these nodes are `runtime.control_flow.cond` and
`while_loop`; the node layouts are in `runtime.graph`'s docstring. The branch rules
(`branch_interpret`, `branch_emit`, `branch_prune`) serve every op that runs one of several
subgraphs on the same operands, picked by its first input: `cond` and `switch_case`.
"""
import math
import operator

import numpy as np

from runtime.ops import registry


# -- branching ops: inputs = [selector, *operands], one subgraph per branch --------------------

def branch_interpret(keys, choose):
    """Returns the `interpret` rule of a branching op.

    Args:
        keys: Callable(node) -> the attr names of the branch subgraphs, in branch order.
        choose: Callable(selector value, number of branches) -> the branch index to run.

    Returns:
        The rule.
    """
    def interpret(interpreter, node):
        plans = [interpreter.plan(node.attrs[key]) for key in keys(node)]
        run_plan = interpreter.run_plan
        count = len(plans)

        def run(args):
            return run_plan(plans[choose(args[0], count)], args[1:])

        return run

    return interpret


def branch_prune(keys):
    """Returns the `prune` rule of a branching op.

    Branches lose the outputs nobody reads; the node loses the operands no branch reads.

    Args:
        keys: Callable(node) -> the attr names of the branch subgraphs.

    Returns:
        The rule.
    """
    def prune(ctx):
        node = ctx.node
        known = ctx.known_inputs(start=1)
        kept_outputs = [i for i in range(len(node.outputs)) if ctx.output_needed(i)]
        branches = {key: ctx.analyse(key, known, kept_outputs) for key in keys(node)}
        used = set()
        for live in branches.values():
            used |= live.used
        if not ctx.pruning:
            used |= {j for j in range(len(node.inputs) - 1) if j not in known}
        operands = sorted(used)  # indices into the branch inputs
        return ctx.decide(
            dead=ctx.pruning and not kept_outputs and not node.stateful,
            kept_inputs=[0] + [j + 1 for j in operands], kept_outputs=kept_outputs,
            subgraphs={key: (live, operands, kept_outputs, node.inputs[1:])
                       for key, live in branches.items()})

    return prune


def emit_branch(gen, graph, operands, names, depth, sources=None):
    """Emits one branch inline: binds its inputs, emits its nodes, assigns `names`.

    `sources` are the operand tensors (see `bind`)."""
    gen.bind(graph, operands, sources)
    start = len(gen.lines)
    gen.block(graph, depth, out_names=names)
    gen.assign(names, graph.outputs, depth)
    if len(gen.lines) == start:
        gen.line(depth, "pass")


def output_names(gen, node):
    """The local names of a structured node's outputs (targets where the block set them)."""
    return [gen.output_name(t, f"{node.name}_{t.index}" if len(node.outputs) > 1 else node.name)
            for t in node.outputs]


# -- cond -------------------------------------------------------------------------------------

def _cond_keys(node):
    return ("true_graph", "false_graph")


def _cond_choose(pred, count):
    return 0 if pred else 1


def _emit_cond(gen, node, depth):
    tail = gen.tail if gen.tail is not None and gen.tail.cond is node else None
    branches = (node.attrs["true_graph"], node.attrs["false_graph"])
    kinds = [tail.kind(gen, graph) for graph in branches] if tail is not None else ()
    if all(kind == "false" or kind is None for kind in kinds) and \
            _emit_select(gen, node, depth):  # a branch that breaks is a statement
        if tail is not None:
            tail.handled = all(kind == "false" for kind in kinds)
        return
    gen.materialize_all(node.inputs[1:], depth)
    pred = gen.wrapped(node.inputs[0], depth)  # read once: it may stay an expression
    operands = [gen.env[t] for t in node.inputs[1:]]
    names = output_names(gen, node)
    gen.line(depth, f"if {gen.truth(gen.statement_text(node.inputs[0]))}:", node)
    sources = node.inputs[1:]
    for k, graph in enumerate(branches):
        start = len(gen.lines)
        if k:
            gen.line(depth, "else:", node)
        kind = kinds[k] if kinds else None
        if isinstance(kind, _TailBreak):  # the branch ends in a cond that may break
            kind.names = names
            gen.tail = kind
        emit_branch(gen, graph, operands, names, depth + 1, sources)
        gen.tail = tail
        if kind == "true":
            tail.emit_break(gen, names, depth + 1)
        if k and len(gen.lines) == start + 2 and gen.lines[-1].endswith(" pass"):
            gen.drop_lines(start)  # no `else: pass`
    if tail is not None:
        tail.handled = all(k == "false" or k == "true" or
                           (isinstance(k, _TailBreak) and k.handled) for k in kinds)
    for t, name in zip(node.outputs, names):
        gen.env[t] = name


class _TailBreak:
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
        outer: The _TailBreak of the cond whose branch holds this cond, or None.
        handled: Set once emitted: whether each branch breaks or keeps the flag False.
    """

    def __init__(self, cond, index, flag_in, names, outputs, outer):
        self.cond, self.index, self.flag_in = cond, index, flag_in
        self.names, self.outputs, self.outer = names, outputs, outer
        self.handled = False

    @classmethod
    def of(cls, gen, graph, flag, flag_in, names, outer=None):
        """The _TailBreak of the cond computing output `flag` of `graph`, or None when that is
        not a cond, or code follows it in the graph."""
        cond = flag.node
        if cond.op != "cond":
            return None
        after = graph.nodes[next(i for i, m in enumerate(graph.nodes) if m is cond) + 1:]
        if any(not (m.is_source or m in gen.skip) for m in after):
            return None
        return cls(cond, flag.index, flag_in, names, graph.outputs, outer)

    def kind(self, gen, branch):
        """What `branch` of the cond makes the flag: "true" (a constant True), "false" (the
        flag as the iteration began), a _TailBreak (a cond last in the branch), or None."""
        flag = branch.outputs[self.index]
        if flag.node.is_constant:
            value = flag.node.attrs["value"]
            return "true" if value.dtype == np.bool_ and value.shape == () and value else None
        operands = self.cond.inputs[1:]
        inner = next((t for t, u in zip(branch.inputs, operands) if u is self.flag_in), None)
        if inner is not None and flag is inner:
            return "false"
        return _TailBreak.of(gen, branch, flag, inner, None, self) if inner is not None \
            else None

    def emit_break(self, gen, names, depth):
        """Emits, after a branch that assigned the cond's outputs to `names`, what the rest of
        the iteration assigns (each enclosing graph's outputs, out to the loop's names), then
        `break`."""
        frame = self
        while frame is not None:
            for t, name in zip(frame.cond.outputs, names):
                gen.env[t] = name
            for t in frame.outputs:  # a constant after the cond (no line) is not bound yet
                if t not in gen.env and t.node.is_constant:
                    gen.emit_node(t.node, depth)
            gen.assign(frame.names, frame.outputs, depth)
            names = frame.names
            frame = frame.outer
        gen.line(depth, "break")


def _emit_select(gen, node, depth):
    """Emits a cond whose branches only pick values as `a if pred else b` expressions.

    Returns:
        Whether the node was emitted (False: a branch computes something).
    """
    branches = (node.attrs["true_graph"], node.attrs["false_graph"])
    if any(not n.is_source for g in branches for n in g.nodes):
        return False
    single = len(node.outputs) == 1 and gen.deferrable(node.outputs[0])
    for t in node.inputs:  # a single deferred output reads each operand at most once
        gen.wrapped(t, depth) if single else gen.materialize(t, depth)
    pred = gen.env[node.inputs[0]]
    operands = [gen.env[t] for t in node.inputs[1:]]
    picked = []
    for graph in branches:
        gen.bind(graph, operands)
        for n in graph.nodes:
            if not n.is_placeholder:
                gen.emit_node(n, depth)
        picked.append([gen.env[t] for t in graph.outputs])
    if single:
        a, b = picked[0][0], picked[1][0]
        value = a if a == b else pred if (a, b) == ("True", "False") else \
            f"{a} if {gen.truth(pred)} else {b}"
        gen.defer(node.outputs[0], value)
        return True
    names = output_names(gen, node)
    assigns = []  # (target name, value text) in output order
    for t, name, a, b in zip(node.outputs, names, picked[0], picked[1]):
        targeted = t in gen.targets
        if a == b or (a == "True" and b == "False"):  # bool constants are Python literals
            value = a if a == b else pred  # pred itself: a bool scalar, never deleted
            if not targeted:
                gen.env[t] = value  # the same value: no copy
                continue
            if name != value:
                assigns.append((name, value))
        else:
            assigns.append((name, f"{a} if {gen.truth(pred)} else {b}"))
        gen.env[t] = name
    if not assigns:
        gen.line(depth, "pass", node)
    else:
        # In parallel, as the cond picks them: a later value may read a name that an earlier
        # one assigns (the predicate's own variable, a swap).
        gen.assign_values(assigns, depth, node)
    return True


def _cond_vjp(op, *dys):
    """A cond on the same predicate whose branches return their branch's vjp."""
    from runtime import control_flow
    from runtime import control_flow_grad
    return control_flow_grad.branch_vjp(
        op, dys, _cond_keys(op.node),
        lambda fns: control_flow.cond(op.inputs[0], fns[0], fns[1]))


registry.register_structured(
    "cond", tf_name="If", stateless_tf_name="StatelessIf",
    interpret=branch_interpret(_cond_keys, _cond_choose), emit=_emit_cond,
    prune=branch_prune(_cond_keys), vjp=_cond_vjp)


# -- while ------------------------------------------------------------------------------------

def _interpret_while(interpreter, node):
    cond_plan = interpreter.plan(node.attrs["cond_graph"])
    body_plan = interpreter.plan(node.attrs["body_graph"])
    n = node.attrs["num_loop_vars"]
    run_plan = interpreter.run_plan

    def run(args):
        # A native loop: no recursion, one iteration's values alive at a time.
        captured = tuple(args[n:])
        values = tuple(args)
        while run_plan(cond_plan, values)[0]:
            values = run_plan(body_plan, values)
            if captured:
                values = values + captured
        return values[:n]

    return run


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
        elif n.op == "cond" and j > 0:
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
    while test.node.op == "cond":
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
    if conjunction.op != "cond" or len(conjunction.outputs) != 1:
        return None
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
    elif _is_false(false_graph.outputs[0]):  # `cond(i < n, not done, False)`
        negation, branch, test = true_graph.outputs[0].node, None, pred
        if negation.is_placeholder:  # computed before the cond and passed in
            negation = operands[_position(true_graph.inputs, true_graph.outputs[0])].node
        elif any(not m.is_source and m is not negation for m in true_graph.nodes):
            return None
    else:
        return None
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


class _ElementReads:
    """The walk over a while node's subgraphs (and the conds and whiles inside them) that finds
    what they read element by element (codegen reads those from a memoryview), and which
    float32 elements the code holds as Python floats (see `_python_float_reads`).

    Attributes:
        floats: The getitem nodes whose float32 element is read as a Python float.
        compared: ids of the loop-invariant float32 scalars (a while's captures) compared with
            such an element: codegen makes a Python float copy of them before the loop.
    """

    def __init__(self):
        self.floats = set()
        self.compared = set()
        self._readers = {}  # id(graph) -> id(tensor) -> the nodes reading it

    def inputs_read(self, node, origin=None, invariant=frozenset()):
        """The ids of the inputs of `node` (a cond or a while) that its subgraphs read element
        by element, themselves or in a cond or while inside.

        Args:
            node: The node.
            origin: id of a tensor of node's graph -> the tensor the code binds it to, where
                that is another (a cond branch's input: the cond's operand).
            invariant: ids of the loop-invariant tensors of the innermost enclosing while.
        """
        from runtime.executor import scalars
        offset = {"cond": 1, "while": 0}.get(node.op)  # node input of the subgraphs' input 0
        if offset is None:
            return set()
        origin = origin or {}
        found = set()
        for _, graph in node.subgraphs():
            # A cond's branches are inlined where its operands are (a Python float stays one);
            # a while binds loop variables and captures, never Python floats.
            if offset:
                inner = _branch_origin(graph, node, origin)
                inner_invariant = invariant
            else:
                inner = {}
                inner_invariant = {id(t) for t in graph.inputs[node.attrs["num_loop_vars"]:]}
            read = set()
            for n in graph.nodes:
                if n.is_source:
                    continue
                if scalars.element_read(n):
                    read.add(id(n.inputs[0]))
                elif scalars.float_element_read(n):
                    compared = set()
                    saves = self._python_float_reads(n.outputs[0], graph, inner,
                                                     inner_invariant, compared)
                    if scalars.READ_SAVES + saves > 0:
                        read.add(id(n.inputs[0]))
                        self.floats.add(n)
                        self.compared |= compared
                read |= self.inputs_read(n, inner, inner_invariant)
            found.update(id(node.inputs[j + offset]) for j, t in enumerate(graph.inputs)
                         if id(t) in read)
        return found

    def _readers_in(self, graph):
        """id(tensor) -> the nodes of `graph` reading it (once per read)."""
        found = self._readers.get(id(graph))
        if found is None:
            found = self._readers[id(graph)] = {}
            for n in graph.nodes:
                for t in n.inputs:
                    found.setdefault(id(t), []).append(n)
        return found

    def _python_float_reads(self, tensor, graph, origin, invariant, compared):
        """What holding float32 `tensor` as a Python float saves in its reads in `graph` (ns;
        see scalars.READ_SAVES), or -inf where a read may not take one. Reads that may:
        comparisons, arithmetic with a numpy float32 operand (scalars.python_float_reader),
        and conds whose branches read it so; not an output of the graph.

        `origin` maps the ids of `graph`'s inputs bound to other tensors to them: an operand
        whose origin is a float32 element read may be a Python float itself. A comparison
        with a loop-invariant float32 scalar (its id in `invariant`) compares with a Python
        float copy of it; the ids of those are added to `compared`.
        """
        from runtime.executor import scalars
        if any(t is tensor for t in graph.outputs):
            return -math.inf

        def may_be_python_float(t):
            t = origin.get(id(t), t)
            return not t.node.is_source and scalars.float_element_read(t.node)

        def python_operand(t):  # a constant, or a loop-invariant scalar (then it is copied)
            t = origin.get(id(t), t)
            if t.node.is_constant:
                return True
            if id(t) in invariant and t.dtype == tensor.dtype and t.shape == ():
                compared.add(id(t))
                return True
            return False

        saves = 0
        for n in dict.fromkeys(self._readers_in(graph).get(id(tensor), ())):
            if n.op == "cond" and n.inputs[0] is not tensor:
                for _, branch in n.subgraphs():
                    inner = _branch_origin(branch, n, origin)
                    saves += sum(self._python_float_reads(t, branch, inner, invariant, compared)
                                 for t, u in zip(branch.inputs, n.inputs[1:]) if u is tensor)
                continue
            saving = scalars.python_float_reader(n, tensor, may_be_python_float, python_operand)
            if saving is None:
                return -math.inf
            saves += saving
        return saves


def _branch_origin(branch, cond, origin):
    """id of each input of `branch` (a graph of `cond`) -> the tensor the code binds it to:
    the cond's operand, or that operand's own origin in `origin` (branches are inlined)."""
    return {id(t): origin.get(id(u), u) for t, u in zip(branch.inputs, cond.inputs[1:])}


def _emit_while(gen, node, depth):
    n = node.attrs["num_loop_vars"]
    cond_graph = node.attrs["cond_graph"]
    body_graph = node.attrs["body_graph"]
    for t in node.inputs[:n]:  # each read once: it may stay an expression
        gen.wrapped(t, depth)
    gen.materialize_all(node.inputs[n:], depth)
    walk = _ElementReads()
    read = walk.inputs_read(node)
    compared = {id(node.inputs[j]) for g in (cond_graph, body_graph)
                for j, t in enumerate(g.inputs) if j >= n and id(t) in walk.compared}
    for t in node.inputs[n:]:
        if id(t) in read:  # arrays read by element: a memoryview
            gen.view(t, depth, node)
        if id(t) in compared:  # a scalar compared with a Python float: a Python float copy
            gen.float_copy(t, depth, node)
    gen.read_as_python_floats(walk.floats)
    captured = [gen.env[t] for t in node.inputs[n:]]
    names = [gen.new_name(body_graph.inputs[i].node.name) for i in range(n)]
    for name, t in zip(names, node.inputs):
        gen.line(depth, f"{name} = {gen.statement_text(t)}")
    sources = [None] * n + list(node.inputs[n:])  # loop variables change; captures do not
    gen.bind(cond_graph, names + captured, sources)
    gen.bind(body_graph, names + captured, sources)
    gen.row_offsets(body_graph, body_graph.inputs[n:], depth, node)
    header = len(gen.lines)
    gen.line(depth, "while True:", node)
    exit_flag = _exit_flag(node)
    test, skipped, branch = cond_graph.outputs[0], None, None
    if exit_flag is not None:  # `while test: ...; if done: break`
        k_flag, test, skipped, branch = exit_flag
        gen.skip.update(skipped)
    loop = gen.counting_loop(node, test, skipped) if branch is None else None
    if loop is not None:  # i + 1 while i < bound: the counter only grows from its first value
        gen.grows_from(cond_graph.inputs[loop[0]], node.inputs[loop[0]])
    # a break leaves a `for` loop's counter one short of the while loop's
    if loop is not None and exit_flag is not None and \
            not gen.output_unused(node.outputs[loop[0]]):
        loop = None
    # the body's `1 + i` when Python can iterate it: the counter is not read after the loop
    # (asked before the nested blocks are emitted: they replace the block being read)
    value = None
    if loop is not None and gen.output_unused(node.outputs[loop[0]]):
        value = gen.offset_counter(node, loop[0], loop[2])
    emitted = gen.block(cond_graph, depth + 1)
    positions = {t: k for k, t in enumerate(cond_graph.inputs)}
    if branch is not None:  # the test is computed in the cond's branch: bound to its operands
        true_graph, operands = branch
        gen.bind(true_graph, [gen.env.get(t) for t in operands], operands)
        emitted = gen.block(true_graph, depth + 1) or emitted
        positions = {t: positions[u] for t, u in zip(true_graph.inputs, operands)
                     if u in positions}
    if emitted:
        gen.line(depth + 1, f"if not {gen.truth(gen.env[test])}:", node)
        gen.line(depth + 2, "break")
        loop = None
    elif loop is not None:  # `for i in range(i, n):`, the increment left to range
        k, bound, increment = loop
        counter, bound = names[k], gen.statement_text(bound)
        if value is None:
            header_text = f"for {counter} in range({counter}, {bound}):"
        else:
            # `for v in range(i + 1, n + 1):`, the body's v = 1 + i (ints: a numpy bound must
            # not wrap at + 1)
            name = gen.new_name(value.name)
            header_text = f"for {name} in range(int({counter}) + 1, int({bound}) + 1):"
            gen.skip.add(value)
            gen.env[value.outputs[0]] = name
        gen.lines[header] = gen.lines[header].replace("while True:", header_text)
        gen.skip.add(increment)
        gen.env[increment.outputs[0]] = counter
    else:  # the test is one expression: `while i < n:`
        text = gen.truth(gen.statement_text(test))
        gen.lines[header] = gen.lines[header].replace("while True:", f"while {text}:")
    lazy = _lazy_counters(node, loop[0] if loop is not None else None)
    for _, steps in lazy:
        gen.lazy.update(steps)
    # The body runs only where the test held: `i < n` bounds i (no wrap needed for i + 1).
    for t, interval in gen.refine_when_true(_conjunct(test)):
        if t in positions:
            gen.interval[body_graph.inputs[positions[t]]] = interval
    start = len(gen.lines)
    # the cond setting the flag breaks itself
    tail = None if exit_flag is None else _TailBreak.of(
        gen, body_graph, body_graph.outputs[k_flag], body_graph.inputs[k_flag], names)
    outer_tail, gen.tail = gen.tail, tail
    gen.block(body_graph, depth + 1, out_names=names)
    gen.tail = outer_tail
    gen.assign(names, body_graph.outputs, depth + 1)
    if exit_flag is not None and not (tail is not None and tail.handled):
        gen.line(depth + 1, f"if {names[k_flag]}:", node)
        gen.line(depth + 2, "break")
    if len(gen.lines) == start:
        gen.line(depth + 1, "pass")
    if loop is not None and value is None and exit_flag is None:
        # a while loop leaves i at n (or at its start when that is past n)
        gen.line(depth, f"if {counter} < {bound}:", node)
        gen.line(depth + 1, f"{counter} = {bound}", node)
    for k, _ in lazy:
        gen.wrap_local(names[k], node.outputs[k], depth)
    for t, name in zip(node.outputs, names):
        gen.env[t] = name


def _prune_while(ctx):
    """Loop variables survive when read after the loop, by the condition or by a survivor."""
    node = ctx.node
    n = node.attrs["num_loop_vars"]
    known = ctx.known_inputs(start=0)
    known = {j: v for j, v in known.items() if j >= n}  # captures only: loop vars change
    # The condition reads the same loop variables whatever survives: analysed once, and what
    # it reads seeds the body's fixpoint (usually reached in one round then).
    cond_live = ctx.analyse("cond_graph", known, [0])
    kept = {i for i in range(n) if ctx.output_needed(i)} | {i for i in cond_live.used if i < n}
    while True:
        body_live = ctx.analyse("body_graph", known, sorted(kept))
        used = cond_live.used | body_live.used
        grown = kept | {i for i in used if i < n}
        if grown == kept:
            break
        kept = grown
    if not ctx.pruning:
        used |= {j for j in range(n, len(node.inputs)) if j not in known}
    loop_vars = sorted(kept)
    keep = loop_vars + sorted(j for j in used if j >= n)
    # A while loop nobody reads and without side effects is dropped (as TensorFlow does).
    dead = ctx.pruning and not node.stateful and not any(ctx.output_needed(i) for i in kept)
    return ctx.decide(
        dead=dead, kept_inputs=keep, kept_outputs=loop_vars,
        subgraphs={"cond_graph": (cond_live, keep, [0], node.inputs),
                   "body_graph": (body_live, keep, loop_vars, node.inputs)},
        attrs={"num_loop_vars": len(loop_vars)})


registry.register_structured(
    "while", tf_name="While", stateless_tf_name="StatelessWhile",
    interpret=_interpret_while, emit=_emit_while, prune=_prune_while,
    vjp=lambda op, *dys: _control_flow_grad().while_vjp(op, *dys))


def _control_flow_grad():
    from runtime import control_flow_grad
    return control_flow_grad
