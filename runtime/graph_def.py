"""GraphDef: a graph as data, TensorFlow-shaped, and the way back (`from_graph_def`).

`as_graph_def(graph)` describes a Graph with plain values only: each NodeDef has its name,
TensorFlow's op type (`op`), the registry op it rebuilds as (`op_name`), its inputs by name,
its output specs and its attributes, where

- a subgraph (a cond branch, a while body) is a `FunctionRef` to a FunctionDef of
  `library.function` (and, as TensorFlow 2 lists functional control flow, its name is also
  in `attr[key + "_name"]`);
- a live object a node names by its `ResourceKey` (a Variable's `var_handle`, a py_function's
  callable, a dataset, an iterator's state: `runtime.resources`) is a `ResourceRef` whose key
  indexes `GraphDef.resources`, which holds the object itself: the one place a GraphDef holds
  live objects, so that what writes it out knows exactly what it must supply again. It comes
  back as the ResourceKey of the object `resources` holds (a loaded model's own Variable).

`GraphDef.version` is `VERSION` (2: variables are `var_handle` inputs of the ops on them, no
longer attributes of those ops); `from_graph_def` refuses another. The round trip keeps
`str(graph)`, and running the rebuilt graph gives the same outputs.
"""
import numpy as np

from runtime import dtypes
from runtime.graph import CONSTANT
from runtime.graph import PLACEHOLDER
from runtime.graph import Graph
from runtime.graph import constant_attrs
from runtime.graph import placeholder_attrs
from runtime.ops import registry
from runtime.ops.io_ops import Slot
from runtime.ops.slicing import TensorIndex
from runtime import resources as resources_lib
from runtime.resources import ResourceKey
from runtime.tensor import SymbolicTensor
from runtime.tensor_shape import TensorSpec

VERSION = 2  # the layout below; a change that old GraphDefs cannot follow increments it

# Attribute values that are data: numbers, strings, arrays, dtypes, slices, getitem specs'
# tensor positions, print templates' slots, TensorSpecs (an iterator's element specs),
# ResourceKeys (a variable handle's name), and tuples, lists and dicts of them.
_DATA = (type(None), bool, int, float, str, bytes, np.ndarray, np.generic, dtypes.DType, slice,
         type(Ellipsis), TensorIndex, Slot, TensorSpec, ResourceKey)


def _is_data(value):
    if isinstance(value, _DATA):
        return True
    if isinstance(value, (tuple, list)):
        return all(_is_data(v) for v in value)
    if isinstance(value, dict):
        return all(_is_data(k) and _is_data(v) for k, v in value.items())
    return False


class _Ref:
    """An attribute standing for something a GraphDef holds elsewhere, by its key."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __repr__(self):
        return f"{type(self).__name__}({self.key!r})"


class FunctionRef(_Ref):
    """An attribute holding a subgraph: `key` is its FunctionDef's name in the library."""

    __slots__ = ()


class ResourceRef(_Ref):
    """An attribute holding a live object: `key` indexes `GraphDef.resources`."""

    __slots__ = ()


class NodeDef:
    """TensorFlow-style node description: .name, .op, .input (names), .attr, .device; and
    what rebuilding it needs: .op_name, .output_specs ((shape, DType) pairs), .stateful,
    .output_names (the user's names of its outputs, or None)."""

    __slots__ = ("name", "op", "input", "attr", "device", "op_name", "output_specs",
                 "stateful", "output_names")

    def __init__(self, name, op, inputs, attr):
        self.name = name
        self.op = op
        self.input = inputs
        self.attr = attr
        self.device = ""
        self.op_name = op
        self.output_specs = []
        self.stateful = False
        self.output_names = None

    def __repr__(self):
        return f"NodeDef(name={self.name!r}, op={self.op!r}, input={self.input!r})"


class ArgDef:
    """An input or output of a FunctionDef's signature: .name and .type (a DType)."""

    __slots__ = ("name", "type")

    def __init__(self, name, type):  # noqa: A002 - TensorFlow's field name
        self.name = name
        self.type = type

    def __repr__(self):
        return f"ArgDef(name={self.name!r}, type={self.type.name})"


class FunctionSignature:
    """A FunctionDef's signature: .name, .input_arg and .output_arg (ArgDefs)."""

    __slots__ = ("name", "input_arg", "output_arg")

    def __init__(self, name, input_arg, output_arg):
        self.name = name
        self.input_arg = input_arg
        self.output_arg = output_arg


class FunctionDef:
    """One subgraph as TensorFlow lists it: .signature, .node_def, .ret (output -> tensor);
    .graph_name (the subgraph's own name) and .outputs (its outputs by tensor name)."""

    __slots__ = ("signature", "node_def", "ret", "graph_name", "outputs")

    def __init__(self, signature, node_def, ret):
        self.signature = signature
        self.node_def = node_def
        self.ret = ret
        self.graph_name = signature.name
        self.outputs = []

    def __repr__(self):
        return f"FunctionDef({self.signature.name!r}, {len(self.node_def)} nodes)"


class FunctionDefLibrary:
    """`GraphDef.library`: `.function` lists a FunctionDef per subgraph, nested ones too."""

    __slots__ = ("function",)

    def __init__(self, functions):
        self.function = functions


class GraphDef:
    """TensorFlow-style graph description; `.node` lists NodeDefs in topological order.

    Attributes:
        node: The NodeDefs of the graph itself.
        library: A FunctionDefLibrary: one FunctionDef per subgraph (cond branches, while
            cond and body, switch_case branches, at any depth), as TensorFlow 2 lists its
            functional control flow.
        version: The layout's version (`VERSION`).
        name: The graph's name; inputs and outputs: its inputs and outputs by tensor name.
        resources: ResourceRef key -> the live object it stands for.
    """

    __slots__ = ("node", "library", "version", "name", "inputs", "outputs", "resources")

    def __init__(self, nodes, library=None):
        self.node = nodes
        self.library = library if library is not None else FunctionDefLibrary([])
        self.version = VERSION
        self.name = "graph"
        self.inputs = []
        self.outputs = []
        self.resources = {}

    def __repr__(self):
        return "\n".join(repr(n) for n in self.node)


class _Writer:
    """The state of one `as_graph_def`: function names taken, resources met."""

    def __init__(self):
        self.functions = []
        self.taken = set()
        self.resources = {}  # key -> object
        self._keys = {}  # id(object) -> key

    def attr(self, value):
        """The data form of one attribute value."""
        if type(value) is ResourceKey:  # the live object it names, by reference
            value = value.resolve()
        elif _is_data(value):
            return value
        key = self._keys.get(id(value))
        if key is None:
            key = self._keys[id(value)] = f"resource_{len(self._keys)}"
            self.resources[key] = value
        return ResourceRef(key)

    def function(self, sub):
        """Adds a FunctionDef of subgraph `sub` (its own subgraphs first); returns its name."""
        name = sub.name
        suffix = 0
        while name in self.taken:  # function names are unique in a library, as in TF
            suffix += 1
            name = f"{sub.name}_{suffix}"
        self.taken.add(name)
        body = self.node_defs(sub)
        signature = FunctionSignature(
            name, [ArgDef(t.node.name, t.dtype) for t in sub.inputs],
            [ArgDef(f"output_{i}", t.dtype) for i, t in enumerate(sub.outputs or ())
             if isinstance(t, SymbolicTensor)])
        ret = {f"output_{i}": t.ref_name for i, t in enumerate(sub.outputs or ())
               if isinstance(t, SymbolicTensor)}
        function = FunctionDef(signature, body, ret)
        function.graph_name = sub.name
        function.outputs = [t.ref_name for t in sub.outputs or ()]
        self.functions.append(function)
        return name

    def node_defs(self, graph):
        """The NodeDefs of `graph`, adding a FunctionDef per subgraph (depth first)."""
        nodes = []
        for node in graph.nodes:
            inputs = [t.ref_name for t in node.inputs]
            inputs += ["^" + c.name for c in node.control_inputs]
            attrs = {}
            for key, value in node.attrs.items():
                if isinstance(value, Graph):
                    name = self.function(value)
                    attrs[key], attrs[key + "_name"] = FunctionRef(name), name
                else:
                    attrs[key] = self.attr(value)
            node_def = NodeDef(node.name, registry.tf_name(node.op, node), inputs, attrs)
            node_def.op_name = node.op
            node_def.output_specs = [(t.shape, t.dtype) for t in node.outputs]
            node_def.stateful = node.stateful
            node_def.output_names = node.output_names
            nodes.append(node_def)
        return nodes


def as_graph_def(graph):
    """The GraphDef of `graph` (see the module docstring; `Graph.as_graph_def`)."""
    writer = _Writer()
    graph_def = GraphDef(writer.node_defs(graph), FunctionDefLibrary(writer.functions))
    graph_def.name = graph.name
    graph_def.inputs = [t.ref_name for t in graph.inputs]
    graph_def.outputs = [t.ref_name for t in graph.outputs or ()]
    graph_def.resources = writer.resources
    return graph_def


def from_graph_def(graph_def, resources=None):
    """The Graph of `graph_def` (see `Graph.from_graph_def`)."""
    if graph_def.version != VERSION:
        raise ValueError(f"This runtime reads GraphDef version {VERSION}, found version "
                         f"{graph_def.version!r}: make the GraphDef again with this runtime.")
    resources = graph_def.resources if resources is None else resources
    functions = {f.signature.name: f for f in graph_def.library.function}
    reader = _Reader(functions, resources)
    graph = reader.graph(graph_def.name, graph_def.node, graph_def.inputs, graph_def.outputs)
    for key, resource in reader.held:
        graph.hold(key, resource)
    return graph


class _Reader:
    """Rebuilds graphs from NodeDefs, each subgraph from its FunctionDef."""

    def __init__(self, functions, resources):
        self.functions = functions
        self.resources = resources
        self.held = []  # (ResourceKey, object) of every ResourceRef met: the graph keeps them

    def key(self, resource):
        """The ResourceKey naming `resource` in the rebuilt graph (its own, if it has one)."""
        key = resources_lib.register(resource, resources_lib.label_of(resource))
        self.held.append((key, resource))
        return key

    def graph(self, name, node_defs, inputs, outputs):
        graph = Graph(name)
        tensors = {}  # ref name -> tensor
        for node_def in node_defs:
            node = self.node(graph, node_def, tensors)
            for t in node.outputs:
                tensors[t.ref_name] = t
        graph.inputs = [tensors[ref] for ref in inputs]
        graph.outputs = [tensors[ref] for ref in outputs]
        graph.release_build_state()
        return graph

    def node(self, graph, node_def, tensors):
        inputs = [tensors[ref] for ref in node_def.input if not ref.startswith("^")]
        attrs = {}
        for key, value in node_def.attr.items():
            if isinstance(value, FunctionRef):
                function = self.functions[value.key]
                attrs[key] = self.graph(
                    function.graph_name, function.node_def,
                    [arg.name for arg in function.signature.input_arg], function.outputs)
            elif isinstance(value, ResourceRef):
                if value.key not in self.resources:
                    raise ValueError(f"Node {node_def.name!r} needs resource {value.key!r}, "
                                     f"which the resources given do not hold.")
                attrs[key] = self.key(self.resources[value.key])
            elif not (key.endswith("_name") and isinstance(
                    node_def.attr.get(key[:-len("_name")]), FunctionRef)):
                attrs[key] = value
        if node_def.op_name == PLACEHOLDER:  # the attrs Graph.placeholder makes
            attrs = placeholder_attrs(attrs["dtype"], attrs["shape"])
        elif node_def.op_name == CONSTANT:
            attrs = constant_attrs(attrs["value"])
        node = graph.add_node(node_def.op_name, inputs, attrs, node_def.output_specs,
                              node_def.name, node_def.stateful)
        node.output_names = node_def.output_names
        return node
