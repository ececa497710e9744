"""The machinery of the structured ops' gradients: branch by branch, and staged backward loops.

Each structured op declares its gradient rule in its own module, in the vjp slot of
`register_structured` (the registry's vjp contract, `vjp(op, *dys)`; `op.node` is the
structured node). The rules are built from the pieces here; `record_node` records a new
structured node on the active tapes with its op's rule.

- branching ops (`cond`, `switch_case`; `branch_vjp`): a new node of the same op on the same
  selector whose branches replay the forward branch under a tape and return its vjp (zeros
  for operands a branch does not use).
- while (`while_vjp`): the forward loop gets a stack (a per-execution Python list behind a
  `variant` tensor) onto which every iteration pushes its loop variables and the values the
  backward products read: one entry per iteration, memory linear in the trip count. The
  backward loop pops them in reverse, differentiates the body (traced by replaying it under a
  tape, then rewired to read the saved values: `_save_instead_of_replay`, so the optimiser
  prunes the replay) and carries the loop variables' gradients and the sums of the captured
  values' gradients.

Variables read inside branches and bodies receive gradients like captured tensors.
"""
from runtime import context
from runtime import dtypes
from runtime.graph import Graph
from runtime.ops.registry import OPS
from runtime.ops.registry import OpKind
from runtime.ops.registry import apply
from runtime.ops.registry import get_op
from runtime.ops.registry import register
from runtime.tensor import EagerTensor
from runtime.tensor import SymbolicTensor
from runtime.ops import tensor_array_grad
from runtime import gradients
from runtime.gradients import GradientTape
from runtime.gradients import UnconnectedGradients
from runtime.ops.state_ops import handle_variable
from runtime.variables import Variable
from runtime.ops.math_ops import greater
from runtime.ops.creation_ops import zeros_like

_VARIANT = dtypes.variant


# -- the per-iteration stack ------------------------------------------------------------------

class _LoopStack:
    """What a forward while loop pushes its loop variables onto (one list per execution)."""

    __slots__ = ("items",)

    def __init__(self):
        self.items = []

    def __repr__(self):
        return f"LoopStack(depth={len(self.items)})"


@register("loop_stack_new", infer=lambda: ((), _VARIANT), kind=OpKind.STATE,
          tf_name="StackV2")
def _stack_new_kernel():
    return _LoopStack()


@register("loop_stack_push", infer=lambda stack, *values: [], kind=OpKind.STATE,
          multi_output=True, tf_name="StackPushV2")
def _stack_push_kernel(stack, *values):
    stack.items.append(values)
    return []


def _infer_pop(stack, specs):
    return list(specs)


@register("loop_stack_pop", infer=_infer_pop, kind=OpKind.STATE, multi_output=True,
          tf_name="StackPopV2")
def _stack_pop_kernel(stack, specs):
    return list(stack.items.pop())


@register("loop_stack_size", infer=lambda stack: ((), dtypes.int32), kind=OpKind.STATE,
          tf_name="StackSize")
def _stack_size_kernel(stack):
    return dtypes.int32.as_numpy_dtype(len(stack.items))


# -- replaying a subgraph ---------------------------------------------------------------------

def _needed(graph):
    """The nodes graph.outputs depend on through data inputs, in graph order."""
    seen = set()
    stack = [t.node for t in graph.outputs if not isinstance(t, EagerTensor)]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(t.node for t in node.inputs)
    return [n for n in graph.nodes if id(n) in seen]


def replay(graph, inputs, prune=True, env=None):
    """Re-issues the ops of `graph` on `inputs` in the current context.

    Ops are recorded by active tapes like any others, which is what the gradient rules rely
    on.

    Args:
        graph: A traced Graph (a branch or loop body).
        inputs: One Tensor per `graph.inputs`.
        prune: Run only the nodes the outputs depend on (for recomputation, so prints and
            asserts do not repeat); False copies every node.
        env: Optional dict, filled with id(tensor of `graph`) -> the Tensor standing for it.

    Returns:
        The list of Tensors standing for `graph.outputs`.
    """
    env = {} if env is None else env
    env.update((id(ph), t) for ph, t in zip(graph.inputs, inputs))
    for node in (_needed(graph) if prune else graph.nodes):
        if node.is_placeholder:
            continue
        args = [env[id(t)] for t in node.inputs]
        if node.is_constant:
            outs = [EagerTensor(node.attrs["value"])]
        elif node.op == "var_handle":  # the variable's own handle, captured where it is used
            outs = [node.attrs["resource"].resolve().handle]
        elif node.op == "read_variable":  # recorded by the tapes as a read of the variable
            outs = [args[0].numpy().read_value()]
        elif OPS[node.op].structured:
            outs = _copy_structured(node, args)
        else:
            opdef = get_op(node.op)
            outs = apply(opdef, args, node.attrs)
            if not opdef.multi_output:
                outs = [outs]
        for old, new in zip(node.outputs, outs):
            env[id(old)] = new
    return [t if isinstance(t, EagerTensor) else env[id(t)] for t in graph.outputs]


def _copy_structured(node, args):
    graph = context.get_graph()
    if graph is None:
        raise NotImplementedError(f"Replaying a {node.op} node eagerly is not supported.")
    inputs = [graph.capture(t) for t in args]
    copy = graph.add_node(node.op, inputs, dict(node.attrs),
                          [(t.shape, t.dtype) for t in node.outputs], node.name, node.stateful)
    record_node(copy, args)
    return copy.outputs


# -- recording --------------------------------------------------------------------------------

def variables_read(graphs):
    """The Variables read in `graphs` and their subgraphs, in first-read order."""
    found = {}
    pending = list(graphs)
    while pending:
        graph = pending.pop()
        for node in graph.nodes:
            if node.op == "read_variable":
                variable = handle_variable(node.inputs[0])
                found.setdefault(id(variable), variable)
            pending.extend(sub for _, sub in node.subgraphs())
    return list(found.values())


def record_node(node, inputs=None):
    """Records a structured node on the active tapes (with its variables as inputs).

    Nothing is recorded for an op without a gradient rule.

    Args:
        node: The control-flow Node just added to the graph being built.
        inputs: The tensors given for its inputs before capture into the graph (the ones a
            tape tracks), default `node.inputs`.
    """
    rule = OPS[node.op].vjp
    if not context._state.tapes or rule is None:
        return
    variables = [v for v in variables_read([g for _, g in node.subgraphs()])
                 if v.dtype.is_floating]
    for variable in variables:
        gradients.note_variable_access(variable)
    inputs = list(node.inputs if inputs is None else inputs)
    gradients.record(rule, inputs + variables, node.outputs,
                     node.attrs, node=node)


def _sum(a, b):
    return gradients._add(a, b)


def _floating(values):
    """Positions of the differentiable values: floating, or variant (TensorArray handles)."""
    return [i for i, v in enumerate(values) if v.dtype.is_floating or v.dtype is _VARIANT]


def _zeros_like(t):
    if t.dtype is _VARIANT:
        return tensor_array_grad.zeros()
    return zeros_like(t)


def _subgraph_vjp(graph, operands, variables, seeds, in_index, trace=None):
    """Replays `graph` on `operands` under a tape; returns grads of operands[in_index] + vars.

    `seeds` are (output index, upstream gradient) pairs: the outputs differentiated.

    `trace`, when given, is a dict that receives `env` (the replay's tensor map) and `mid`
    (the number of nodes of the current graph when the replay ended and the vector-Jacobian
    products began).
    """
    watched = [operands[i] for i in in_index]
    env = {}
    with GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(watched)
        tape.watch(variables)
        outs = replay(graph, operands, env=env)
    if trace is not None:
        current = context.get_graph()
        trace.update(env=env, graph=current, mid=len(current.nodes))
    targets = [outs[i] for i, _ in seeds]
    return tape.gradient(targets, watched + list(variables),
                         output_gradients=[dy for _, dy in seeds],
                         unconnected_gradients=UnconnectedGradients.ZERO)


def branch_vjp(op, dys, keys, rebuild):
    """The gradient rule of a branching op (inputs = [selector, *operands]), such as cond.

    Args:
        op: The recorded op (`op.node` the forward node; `op.inputs` its inputs, then the
            Variables its branches read).
        dys: One upstream gradient per output (None where nothing depends on it).
        keys: The attr names of the branch subgraphs, in branch order.
        rebuild: Callable(branch functions) -> what the op returns when it runs them on the
            forward node's selector (`op.inputs[0]`); e.g. `cond(pred, *fns)`.

    Returns:
        One gradient per input of `op` (None for the selector and non-float inputs).
    """
    node = op.node
    n = len(node.inputs)
    operands = op.inputs[1:n]
    variables = op.inputs[n:]
    out_index = _floating(node.outputs)
    in_index = [i for i in _floating(operands) if op.needs_gradient(1 + i)]
    var_index = [k for k in range(len(variables)) if op.needs_gradient(n + k)]
    variables = [variables[k] for k in var_index]
    dys = [dys[i] if dys[i] is not None else _zeros_like(node.outputs[i]) for i in out_index]
    if not in_index and not variables:
        return [None] * len(op.inputs)

    def branch(graph):
        return lambda: tuple(_subgraph_vjp(graph, operands, variables,
                                           list(zip(out_index, dys)), in_index))

    grads = rebuild([branch(node.attrs[key]) for key in keys])
    result = [None] * len(op.inputs)
    for k, i in enumerate(in_index):
        result[1 + i] = grads[k]
    for k, j in enumerate(var_index):
        result[n + j] = grads[len(in_index) + k]
    return result


def _new_stack(node):
    """A fresh stack per execution of the forward while node, made just before the loop."""
    graph = node.graph
    with context.graph_scope(graph):
        stack = apply(OPS["loop_stack_new"], [], {})
    graph.nodes.remove(stack.node)
    graph.nodes.insert(graph.nodes.index(node), stack.node)
    return stack


def _push_iterations(node, stack, saved):
    """Makes the forward while node push its loop variables, then `saved`, at every iteration.

    The node gets one more captured input (`stack`) and fresh cond/body graphs that take it;
    at the end of each iteration the body pushes the iteration's loop variables and the values
    of `saved` (tensors of the original body graph the backward loop reads instead of
    recomputing them).
    """
    graph = node.graph
    n = node.attrs["num_loop_vars"]

    def rebuilt(old, push):
        sub = Graph(old.name, outer_graph=graph)
        with context.graph_scope(sub):
            phs = [sub.placeholder(t.dtype, t.shape, name=t.node.name) for t in old.inputs]
            stack_ph = sub.placeholder(_VARIANT, (), name="loop_stack")
            env = {}
            outs = replay(old, phs, prune=False, env=env)
            if push:
                apply(OPS["loop_stack_push"], [stack_ph] + phs[:n] +
                      [env[id(t)] for t in saved], {})
            sub.outputs = [sub.capture(t) for t in outs]
        return sub

    node.attrs["cond_graph"] = rebuilt(node.attrs["cond_graph"], push=False)
    node.attrs["body_graph"] = rebuilt(node.attrs["body_graph"], push=True)
    node.inputs += (stack,)
    node.stateful = True


def _save_instead_of_replay(trace, pop, body):
    """Rewires the backward body to read forward values from the stack, not from its replay.

    The vector-Jacobian products (the nodes after `trace['mid']`) read some values that the
    replay of the forward body recomputed (a tanh's output, a matmul's operand). Each such
    value computed by a pure node becomes one more output of the `pop`, and the products read
    that instead; the replayed nodes nobody reads any more are pruned by the optimiser, so the
    backward loop costs the products alone. Returns the original body tensors to push, in pop
    order.
    """
    graph = trace["graph"]
    originals = {id(t): t for original in body.nodes for t in original.outputs}
    origin = {id(tensor): originals[oid] for oid, tensor in trace["env"].items()
              if oid in originals}
    replay_nodes = set(map(id, graph.nodes[:trace["mid"]]))
    saved, substitute = [], {}
    readers = graph.nodes[trace["mid"]:]
    for reader in readers:
        for t in reader.inputs:
            key = id(t)
            if key in substitute or key not in origin:
                continue
            producer = t.node
            if id(producer) not in replay_nodes or producer.stateful or producer.is_source:
                continue
            substitute[key] = None
            saved.append(t)
    if not saved:
        return []
    base = len(pop.outputs)
    specs = list(pop.attrs["specs"])
    for k, t in enumerate(saved):
        new = SymbolicTensor(pop, base + k, t.shape, t.dtype)
        pop.outputs += (new,)
        specs.append((t.shape, t.dtype))
        substitute[id(t)] = new
    pop.attrs["specs"] = specs
    for reader in readers:
        reader.inputs = tuple([substitute.get(id(t), t) for t in reader.inputs])
    graph.outputs = [substitute.get(id(t), t) for t in graph.outputs]
    return [origin[id(t)] for t in saved]


def while_vjp(op, *dys):
    """The gradient rule of `while`: a staged backward loop over the pushed iterations.

    When a tape records this gradient (a gradient of a gradient), the stack would be a side
    channel it cannot differentiate: the rule is then `control_flow_grad_nested`'s, of pure
    ops only.
    """
    # late: control_flow_grad_nested imports this module as it loads
    from runtime import control_flow_grad_nested as nested
    if nested.recorded_here(list(op.inputs) + list(dys)):
        return nested.while_vjp_recomputed(op, *dys)
    return _while_vjp_stacked(op, *dys)


def _while_vjp_stacked(op, *dys):
    """`while_vjp` with the per-iteration stack (see the module docstring)."""
    # late: control_flow imports this module as it loads
    from runtime.control_flow import while_loop
    node = op.node
    n = node.attrs["num_loop_vars"]
    n_inputs = len(op.inputs) - len([v for v in op.inputs if _is_variable(v)])
    loop_in = op.inputs[:n]
    captured = op.inputs[n:n_inputs]
    var_index = [k for k in range(len(op.inputs) - n_inputs)
                 if op.needs_gradient(n_inputs + k)]
    variables = [op.inputs[n_inputs + k] for k in var_index]
    body = node.attrs["body_graph"]
    lv_index = _floating(loop_in)  # every iteration's gradient flows through all of them
    cap_index = [j for j in _floating(captured) if op.needs_gradient(n + j)]
    if not lv_index:
        return [None] * len(op.inputs)
    stack = _new_stack(node)
    traces = {}  # id(backward body graph) -> (pop node, trace) of each trace of body_fn
    specs = [(t.shape, t.dtype) for t in node.outputs]
    init_d = [dys[i] if dys[i] is not None else _zeros_like(node.outputs[i]) for i in lv_index]
    init_c = [_zeros_like(captured[j]) for j in cap_index]
    init_v = [_zeros_like(v.read_value()) for v in variables]
    k1, k2 = len(init_d), len(init_d) + len(init_c)

    def cond_fn(*acc):
        return greater(apply(OPS["loop_stack_size"], [stack], {}), 0)

    def body_fn(*acc):
        state = apply(OPS["loop_stack_pop"], [stack], {"specs": specs})
        operands = list(state) + list(captured)
        in_index = lv_index + [n + j for j in cap_index]
        trace = {}
        grads = _subgraph_vjp(body, operands, variables, list(zip(lv_index, acc[:k1])),
                              in_index, trace)
        traces[id(trace["graph"])] = (state[0].node, trace)
        new_d = grads[:k1]
        new_c = [_sum(a, g) for a, g in zip(acc[k1:k2], grads[k1:k1 + len(cap_index)])]
        new_v = [a + g for a, g in zip(acc[k2:], grads[k1 + len(cap_index):])]
        return tuple(new_d) + tuple(new_c) + tuple(new_v)

    final = while_loop(cond_fn, body_fn, tuple(init_d + init_c + init_v))
    if not isinstance(final, (list, tuple)):
        final = [final]
    backward = final[0].node
    pop, trace = traces[id(backward.attrs["body_graph"])]
    _push_iterations(node, stack, _save_instead_of_replay(trace, pop, body))
    return placed(len(op.inputs), (lv_index, final[:k1]),
                  ([n + j for j in cap_index], final[k1:k2]),
                  ([n_inputs + j for j in var_index], final[k2:]))


def placed(length, *groups):
    """A list of `length` Nones with each group's values at its positions.

    Args:
        length: The list's length (a gradient rule's: one entry per op input).
        *groups: (positions, values) pairs.
    """
    result = [None] * length
    for positions, values in groups:
        for position, value in zip(positions, values):
            result[position] = value
    return result


def _is_variable(value):
    return isinstance(value, Variable)

