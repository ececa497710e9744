"""What an ONNX lowering rule is given: a `RuleContext` per node, over a `Builder` per graph.

A rule (`lowering.LOWER[op]`) reads `ctx.node` (the runtime Node), `ctx.inputs` (the ONNX
names of its inputs) and `ctx.attrs`, adds ONNX nodes with `ctx.emit` and `ctx.constant`,
lowers subgraphs with `ctx.inline` (into the current graph) or `ctx.subgraph` (an ONNX
GraphProto, for If and Loop attributes), and returns the ONNX names of the node's outputs.
"""
import numpy as np


class UnsupportedOpError(NotImplementedError):
    """A graph holds an op that the ONNX exporter cannot express (the message names it)."""


def onnx_dtype(dtype, where):
    """The ONNX element type (TensorProto enum) of a runtime DType."""
    from onnx import helper
    if dtype.np_dtype == object:
        raise UnsupportedOpError(f"{where}: {dtype.name} tensors are not exported to ONNX.")
    return helper.np_dtype_to_tensor_dtype(dtype.np_dtype)


class Builder:
    """The ONNX nodes of one graph being written (the model's graph or a subgraph).

    Names are unique in the whole model (ONNX subgraphs see their enclosing graphs' names),
    so every Builder of one export shares one `taken` set.
    """

    def __init__(self, lowering, taken):
        self.lowering = lowering  # the rule table (op -> rule)
        self.taken = taken  # names used anywhere in the model
        self.nodes = []  # onnx NodeProtos, in order

    def fresh(self, hint):
        """A new value name derived from `hint`."""
        base = "".join(c if c.isalnum() or c in "_." else "_" for c in hint) or "v"
        name, i = base, 0
        while name in self.taken:
            i += 1
            name = f"{base}_{i}"
        self.taken.add(name)
        return name

    def emit(self, op_type, inputs, outputs=1, hint=None, **attrs):
        """Adds one ONNX node; returns its output names (a list of `outputs` names)."""
        from onnx import helper
        names = [self.fresh(f"{hint or op_type}_{i}" if outputs > 1 else (hint or op_type))
                 for i in range(outputs)]
        self.nodes.append(helper.make_node(op_type, list(inputs), names,
                                           name=self.fresh("n_" + (hint or op_type)), **attrs))
        return names

    def constant(self, value, hint="const"):
        """Adds a Constant node holding `value` (a numpy value); returns its name."""
        from onnx import numpy_helper
        array = np.asarray(value)
        if array.dtype == object:
            raise UnsupportedOpError("A string constant is not exported to ONNX.")
        return self.emit("Constant", [], hint=hint, value=numpy_helper.from_array(array))[0]

    def inline(self, graph, bindings):
        """Lowers `graph`'s nodes into this builder, its inputs bound to ONNX names.

        Args:
            graph: A runtime Graph.
            bindings: ONNX names, one per `graph.inputs`.

        Returns:
            The ONNX names of `graph.outputs`.
        """
        names = {id(p): b for p, b in zip(graph.inputs, bindings)}
        for node in graph.nodes:
            if node.is_placeholder:
                if id(node.outputs[0]) not in names:
                    raise UnsupportedOpError(f"Placeholder {node.name!r} is not bound.")
                continue
            rule = self.lowering.get(node.op)
            if rule is None:
                # late: onnx.lowering imports this module as it loads
                from runtime.onnx.lowering import unsupported
                raise unsupported(node)
            ctx = RuleContext(self, node, [names[id(t)] for t in node.inputs])
            outputs = rule(ctx)
            for t, name in zip(node.outputs, outputs):
                names[id(t)] = name
        return [names[id(t)] for t in graph.outputs]

    def subgraph(self, graph, bindings, name, inputs=()):
        """An ONNX GraphProto computing `graph` (for an If branch or a Loop body).

        Args:
            graph: A runtime Graph.
            bindings: ONNX names for `graph.inputs`: outer names, or the subgraph's own inputs.
            name: The GraphProto's name.
            inputs: ValueInfoProtos of the subgraph's formal inputs (a Loop body's).

        Returns:
            The GraphProto; its outputs are Identity copies of `graph.outputs` (ONNX wants
            each output produced inside the subgraph), of unknown shape.
        """
        return self.graph_of(lambda child: child.inline(graph, bindings),
                             [t.dtype for t in graph.outputs], name, inputs)

    def graph_of(self, body, dtypes, name, inputs=()):
        """A GraphProto whose nodes `body(child builder)` adds; it returns the output names."""
        from onnx import helper
        child = Builder(self.lowering, self.taken)
        results = body(child)
        outputs = []
        for value, dtype in zip(results, dtypes):
            out = child.emit("Identity", [value], hint="out")[0]
            outputs.append(helper.make_tensor_value_info(out, onnx_dtype(dtype, name), None))
        return helper.make_graph(child.nodes, self.fresh(name), list(inputs), outputs)


class RuleContext:
    """What one lowering rule sees (see the module docstring).

    Attributes:
        node: The runtime Node being lowered.
        inputs: The ONNX names of its inputs, in order.
        attrs: Its attributes (`node.attrs`).
    """

    def __init__(self, builder, node, inputs):
        self.builder = builder
        self.node = node
        self.inputs = inputs
        self.attrs = node.attrs

    def emit(self, op_type, inputs, outputs=1, **attrs):
        """Adds an ONNX node; returns the list of its output names."""
        return self.builder.emit(op_type, inputs, outputs, hint=None, **attrs)

    def constant(self, value):
        """Adds a constant; returns its name."""
        return self.builder.constant(value)

    def int64(self, values):
        """A constant int64 vector (axes, shapes, indices); returns its name."""
        return self.builder.constant(np.asarray(values, dtype=np.int64))

    def dtype(self, tensor):
        """The ONNX element type of a runtime tensor."""
        return onnx_dtype(tensor.dtype, f"node {self.node.name!r}")

    def inline(self, graph, bindings):
        """Lowers `graph` into the current graph (see Builder.inline)."""
        return self.builder.inline(graph, bindings)

    def subgraph(self, graph, bindings, name, inputs=()):
        """Lowers `graph` into a GraphProto (see Builder.subgraph)."""
        return self.builder.subgraph(graph, bindings, name, inputs)

    def graph_of(self, body, dtypes, name, inputs=()):
        """A GraphProto built by `body(child builder)` (see Builder.graph_of)."""
        return self.builder.graph_of(body, dtypes, name, inputs)

    def unsupported(self, why):
        """The error for a node this rule cannot express (to raise)."""
        return UnsupportedOpError(f"Node {self.node.name!r} (op {self.node.op!r}) cannot be "
                                  f"exported to ONNX: {why}.")
