"""Re-adds a loaded graph's nodes to the graph being traced, so tapes record them.

A loaded function runs as a tf.function whose Python function is this replay: tracing it
copies the loaded graph node by node, each through the path user code takes (`apply` for a
registered op, the Variable's handle for a `var_handle`, `Variable.read_value` for a read,
the structured-op node plus its tape record for cond, while and switch_case), so that
gradient tapes see each op as they would have when the graph was first traced. The rules are
keyed by op; ops without an entry use `apply`.
"""
from runtime import context
from runtime import control_flow
from runtime.graph import CONSTANT
from runtime.graph import constant_attrs
from runtime.ops import registry


def _constant(graph, node, inputs):
    del inputs
    t = node.outputs[0]
    return graph.add_node(CONSTANT, [], constant_attrs(node.attrs["value"]),
                          [(t.shape, t.dtype)], node.name).outputs


def _var_handle(graph, node, inputs):
    del graph, inputs
    return [node.attrs["resource"].resolve().handle]  # captured where it is used


def _read_variable(graph, node, inputs):
    del graph, node
    return [inputs[0].numpy().read_value()]  # inputs[0]: the Variable's eager handle


def _structured(graph, node, inputs):
    new = graph.add_node(node.op, inputs, dict(node.attrs),
                         [(t.shape, t.dtype) for t in node.outputs], node.name, node.stateful)
    control_flow.record_gradient(new)
    return new.outputs


def _op(graph, node, inputs):
    del graph
    out = registry.apply(registry.OPS[node.op], inputs, dict(node.attrs), node.name)
    return out if registry.OPS[node.op].multi_output else [out]


# op -> rule(graph being traced, loaded node, its inputs there) -> the new node's outputs
REPLAY = {CONSTANT: _constant, "var_handle": _var_handle, "read_variable": _read_variable}
assert set(REPLAY) - {CONSTANT} <= set(registry.OPS), "REPLAY names an unregistered op"


def replay_graph(graph, inputs):
    """Adds the nodes of `graph` to the graph being traced, its inputs bound to `inputs`.

    Args:
        graph: A Graph rebuilt from a saved GraphDef (its subgraphs are used as they are).
        inputs: Symbolic tensors of the graph being traced, one per `graph.inputs`.

    Returns:
        The tensors standing for `graph.outputs`.
    """
    target = context.get_graph()
    values = {id(p): t for p, t in zip(graph.inputs, inputs)}
    for node in graph.nodes:
        if node.is_placeholder:
            continue
        rule = REPLAY.get(node.op)
        if rule is None:
            rule = _structured if node.op in registry.CONTROL_FLOW else _op
        outputs = rule(target, node, [values[id(t)] for t in node.inputs])
        for old, new in zip(node.outputs, outputs):
            values[id(old)] = new
    return [values[id(t)] for t in graph.outputs]
