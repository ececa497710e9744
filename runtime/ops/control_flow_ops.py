"""The structured ops `cond` and `while`: their rules for the interpreter, codegen and optimiser.

The tracing functions that build these nodes are `runtime.control_flow.cond` and
`while_loop`; the node layouts are in `runtime.graph`'s docstring. The branch rules
(`branch_interpret`, `branch_prune`) serve every op that runs one of several subgraphs on the
same operands, picked by its first input: `cond` and `switch_case`. The code generator's rule
for `while` is in `while_code`, with the loop shapes it recognises.
"""
from runtime.ops import registry
from runtime.ops import while_code
from runtime import control_flow_grad


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


# -- cond -------------------------------------------------------------------------------------

def _cond_keys(node):
    return ("true_graph", "false_graph")


def _cond_choose(pred, count):
    return 0 if pred else 1


def _emit_cond(ctx, node, depth):
    tail = ctx.loop_tail
    tail = tail if tail is not None and tail.cond is node else None
    branches = (node.attrs["true_graph"], node.attrs["false_graph"])
    kinds = [tail.kind(ctx, graph) for graph in branches] if tail is not None else ()
    if all(kind == "false" or kind is None for kind in kinds) and \
            _emit_select(ctx, node, depth):  # a branch that breaks is a statement
        if tail is not None:
            tail.handled = all(kind == "false" for kind in kinds)
        return
    ctx.materialize_all(node.inputs[1:], depth)
    ctx.wrapped(node.inputs[0], depth)  # read once: it may stay an expression
    operands = [ctx.value(t) for t in node.inputs[1:]]
    names = ctx.output_names(node)

    def write_branch(graph, kind):
        """Writes one branch; one that sets a loop's exit flag breaks (see TailBreak)."""
        if isinstance(kind, while_code.TailBreak):  # the branch ends in a cond that may break
            kind.names = names
            ctx.loop_tail = kind
        kept = (tail.index,) if kind == "false" and tail.sets_loop_flag(names) else ()
        ctx.branch(graph, operands, names, depth + 1, node.inputs[1:], kept)
        ctx.loop_tail = tail
        if kind == "true":
            tail.emit_break(ctx, names, depth + 1)

    ctx.line(depth, f"if {ctx.truth(ctx.statement_text(node.inputs[0]))}:", node)
    for k, graph in enumerate(branches):
        kind = kinds[k] if kinds else None
        _, lines = ctx.lines_of(lambda: write_branch(graph, kind))
        if k and lines.only("pass"):
            continue  # no `else: pass`
        if k:
            ctx.line(depth, "else:", node)
        ctx.add_lines(lines)
    if tail is not None:
        tail.handled = all(k == "false" or k == "true" or
                           (isinstance(k, while_code.TailBreak) and k.handled) for k in kinds)
    for t, name in zip(node.outputs, names):
        ctx.set_value(t, name)


def _emit_select(ctx, node, depth):
    """Emits a cond whose branches only pick values as `a if pred else b` expressions.

    Returns:
        Whether the node was emitted (False: a branch computes something).
    """
    branches = (node.attrs["true_graph"], node.attrs["false_graph"])
    if any(not n.is_source for g in branches for n in g.nodes):
        return False
    single = len(node.outputs) == 1 and ctx.deferrable(node.outputs[0])
    for t in node.inputs:  # a single deferred output reads each operand at most once
        ctx.wrapped(t, depth) if single else ctx.materialize(t, depth)
    pred = ctx.value(node.inputs[0])
    operands = [ctx.value(t) for t in node.inputs[1:]]
    picked = []
    for graph in branches:
        ctx.bind(graph, operands)
        for n in graph.nodes:
            if not n.is_placeholder:
                ctx.emit_node(n, depth)
        picked.append([ctx.value(t) for t in graph.outputs])
    if single:
        a, b = picked[0][0], picked[1][0]
        value = a if a == b else pred if (a, b) == ("True", "False") else \
            f"{a} if {ctx.truth(pred)} else {b}"
        ctx.defer(node.outputs[0], value)
        return True
    names = ctx.output_names(node)
    assigns = []  # (target name, value text) in output order
    for t, name, a, b in zip(node.outputs, names, picked[0], picked[1]):
        targeted = ctx.is_target(t)
        if a == b or (a == "True" and b == "False"):  # bool constants are Python literals
            value = a if a == b else pred  # pred itself: a bool scalar, never deleted
            if not targeted:
                ctx.set_value(t, value)  # the same value: no copy
                continue
            if name != value:
                assigns.append((name, value))
        else:
            assigns.append((name, f"{a} if {ctx.truth(pred)} else {b}"))
        ctx.set_value(t, name)
    if not assigns:
        ctx.line(depth, "pass", node)
    else:
        # In parallel, as the cond picks them: a later value may read a name that an earlier
        # one assigns (the predicate's own variable, a swap).
        ctx.assign_values(assigns, depth, node)
    return True


def _cond_vjp(op, *dys):
    """A cond on the same predicate whose branches return their branch's vjp."""
    # late: control_flow imports this module as it loads
    from runtime import control_flow
    return control_flow_grad.branch_vjp(
        op, dys, _cond_keys(op.node),
        lambda fns: control_flow.cond(op.inputs[0], fns[0], fns[1]))


registry.register_structured(
    "cond", tf_name="If",
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
    "while", tf_name="While",
    interpret=_interpret_while, emit=while_code.emit_while, prune=_prune_while,
    vjp=lambda op, *dys: _control_flow_grad().while_vjp(op, *dys))


def _control_flow_grad():
    return control_flow_grad
