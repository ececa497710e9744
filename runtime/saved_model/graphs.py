"""A traced graph as JSON, and back: GraphDef's nodes and library, checked on the way in.

The JSON form of a graph (see docs/saved_model.md):

    {"name": str, "inputs": [tensor name], "outputs": [tensor name],
     "nodes": [node], "functions": [function]}
    node:     {"name", "op" (the registry op), "inputs" (tensor names; "^name" orders a
               stateful node after another), "attrs" ({name: tagged value}), "outputs"
               ([[shape or null, dtype name]]), "stateful", "output_names"}
    function: {"name", "graph_name", "inputs": [placeholder names], "outputs": [tensor names],
               "nodes": [node]}   (a cond branch, a while body...: the GraphDef library)

Reading checks every name, op, attribute and reference before a Graph is built: an op must be
registered (and not one that holds Python code, like py_function), attribute names must be
identifiers (the code generator writes them as keyword arguments), inputs must name outputs
of earlier nodes, a function may only use functions listed before it (no cycles), and a
`resource` tensor must be a `var_handle` naming a variable of the file, read only by the
variable ops (`state_ops.VARIABLE_OPS`).
"""
import keyword

from runtime import control_flow_grad  # noqa: F401 - registers the ops gradients use
from runtime import graph_def as graph_def_lib
from runtime.graph import CONSTANT
from runtime.graph import PLACEHOLDER
from runtime.ops import registry
from runtime.saved_model.encoding import DTYPES
from runtime.saved_model.encoding import SavedModelError
from runtime.saved_model.encoding import decode
from runtime.saved_model.encoding import encode
from runtime.dtypes import DType
from runtime.dtypes import resource
from runtime.ops.state_ops import VARIABLE_OPS
from runtime.resources import ResourceKey

# Ops that name Python code (a callable) in their attributes: a graph holding one is neither
# saved nor loaded (TensorFlow's SavedModel cannot restore a py_function either).
NOT_LOADABLE = {"py_function": "it calls a Python function, which a saved model cannot hold"}
assert set(NOT_LOADABLE) <= set(registry.OPS), "NOT_LOADABLE names an unregistered op"

_NAME_PUNCTUATION = set("_.-/>:")
_MAX_NAME = 256


def encode_graph(graph, refs):
    """The JSON form of `graph` (its GraphDef: nodes, library, resources as data)."""
    graph_def = graph.as_graph_def()
    resources = graph_def.resources

    def nodes(node_defs):
        return [_encode_node(n, resources, refs) for n in node_defs]

    functions = [{"name": f.signature.name, "graph_name": f.graph_name,
                  "inputs": [arg.name for arg in f.signature.input_arg],
                  "outputs": list(f.outputs), "nodes": nodes(f.node_def)}
                 for f in graph_def.library.function]
    return {"name": graph_def.name, "inputs": list(graph_def.inputs),
            "outputs": list(graph_def.outputs), "nodes": nodes(graph_def.node),
            "functions": functions}


def _encode_node(node_def, resources, refs):
    if node_def.op_name in NOT_LOADABLE:
        raise SavedModelError(f"Node {node_def.name!r} ({node_def.op_name}) cannot be saved: "
                              f"{NOT_LOADABLE[node_def.op_name]}.")
    attrs = {}
    for key, value in node_def.attr.items():
        if isinstance(value, graph_def_lib.ResourceRef):
            value = resources[value.key]
        attrs[key] = encode(value, refs, f"Attribute {key!r} of node {node_def.name!r} "
                                         f"({node_def.op_name})")
    return {"name": node_def.name, "op": node_def.op_name, "inputs": list(node_def.input),
            "attrs": attrs,
            "outputs": [[None if shape is None else list(shape), dtype.name]
                        for shape, dtype in node_def.output_specs],
            "stateful": node_def.stateful,
            "output_names": None if node_def.output_names is None else list(
                node_def.output_names)}


def decode_graph(data, refs, where):
    """The GraphDef that JSON `data` describes, every part checked (see the module docstring).

    Args:
        data: The parsed JSON of one graph.
        refs: The Refs of this load (arrays and Variables); its `functions` is set here.
        where: Text naming the graph for errors.

    Returns:
        A runtime.graph_def.GraphDef whose attributes hold data and the loaded Variables.

    Raises:
        SavedModelError: naming what is wrong.
    """
    _keys(data, {"name", "inputs", "outputs", "nodes", "functions"}, where)
    functions = []
    refs.functions = set()
    for item in _list(data["functions"], where + ": functions"):
        _keys(item, {"name", "graph_name", "inputs", "outputs", "nodes"}, where)
        name = _name(item["name"], where)
        place = f"{where}, function {name!r}"
        if name in refs.functions:
            raise SavedModelError(f"{place} is listed twice.")
        node_defs = _decode_nodes(item["nodes"], item["inputs"], item["outputs"], refs, place)
        specs = {n.name: n.output_specs for n in node_defs}
        signature = graph_def_lib.FunctionSignature(
            name, [graph_def_lib.ArgDef(arg, specs[arg][0][1]) for arg in item["inputs"]], [])
        function = graph_def_lib.FunctionDef(signature, node_defs, {})
        function.graph_name = _name(item["graph_name"], place)
        function.outputs = list(item["outputs"])
        functions.append(function)
        refs.functions.add(name)  # only later functions and the graph itself may use it
    node_defs = _decode_nodes(data["nodes"], data["inputs"], data["outputs"], refs, where)
    graph_def = graph_def_lib.GraphDef(node_defs, graph_def_lib.FunctionDefLibrary(functions))
    graph_def.name = _name(data["name"], where)
    graph_def.inputs = list(data["inputs"])
    graph_def.outputs = list(data["outputs"])
    return graph_def


def _decode_nodes(items, inputs, outputs, refs, where):
    """NodeDefs of one graph, checking that every reference names an earlier output."""
    node_defs, available, names, handles = [], set(), set(), set()
    for item in _list(items, where + ": nodes"):
        node_def = _decode_node(item, refs, where)
        if node_def.name in names:
            raise SavedModelError(f"{where}: two nodes are named {node_def.name!r}.")
        for ref in node_def.input:
            known = ref[1:] in names if ref.startswith("^") else ref in available
            if not known:
                raise SavedModelError(f"{where}: node {node_def.name!r} reads {ref!r}, which "
                                      f"is not an output of an earlier node.")
        _check_handles(node_def, handles, f"{where}, node {node_def.name!r}")
        names.add(node_def.name)
        available.update(_ref_names(node_def))
        if node_def.op_name == "var_handle":
            handles.add(node_def.name)
        node_defs.append(node_def)
    placeholders = {n.name for n in node_defs if n.op_name == PLACEHOLDER}
    for ref in _list(inputs, where + ": inputs"):
        if ref not in placeholders:
            raise SavedModelError(f"{where}: input {ref!r} is not a placeholder of the graph.")
    for ref in _list(outputs, where + ": outputs"):
        if ref not in available:
            raise SavedModelError(f"{where}: output {ref!r} is not a tensor of the graph.")
    return node_defs


def _check_handles(node_def, handles, place):
    """Raises unless the node's resource tensors are variables' handles, used as such."""
    if node_def.op_name == "var_handle":
        if not isinstance(node_def.attr.get("resource"), ResourceKey) or (
                node_def.output_specs != [((), resource)] or node_def.input):
            raise SavedModelError(f"{place}: a var_handle names a variable of the file and "
                                  f"makes one resource scalar.")
    elif any(dtype is resource for _, dtype in node_def.output_specs):
        raise SavedModelError(f"{place}: only a var_handle makes a resource tensor.")
    reads = [ref in handles for ref in node_def.input]
    if any(reads[1:]) or (node_def.op_name in VARIABLE_OPS) != (reads[:1] == [True]):
        raise SavedModelError(f"{place}: only the variable ops read a variable's handle, as "
                              f"their first input.")


def _ref_names(node_def):
    return [node_def.name if i == 0 else f"{node_def.name}:{i}"
            for i in range(len(node_def.output_specs))]


def _decode_node(item, refs, where):
    _keys(item, {"name", "op", "inputs", "attrs", "outputs", "stateful", "output_names"}, where)
    name = _name(item["name"], where)
    place = f"{where}, node {name!r}"
    op = item["op"]
    if op not in (PLACEHOLDER, CONSTANT) and (not isinstance(op, str) or op not in registry.OPS):
        raise SavedModelError(f"{place}: op {_text(op)} is not an op of this runtime; a saved "
                              f"model may only use registered ops.")
    if op in NOT_LOADABLE:
        raise SavedModelError(f"{place}: op {op!r} cannot be loaded: {NOT_LOADABLE[op]}.")
    attrs = {}
    for key, value in _dict(item["attrs"], place).items():
        if not key.isidentifier() or keyword.iskeyword(key):
            raise SavedModelError(f"{place}: attribute name {key!r} is not an identifier.")
        attrs[key] = decode(value, refs, f"{place}, attribute {key!r}")
    _check_source_attrs(op, attrs, place)
    inputs = _list(item["inputs"], place)
    if not all(isinstance(ref, str) for ref in inputs):
        raise SavedModelError(f"{place}: inputs must be tensor names.")
    node_def = graph_def_lib.NodeDef(name, registry.tf_name(op), list(inputs), attrs)
    node_def.op_name = op
    node_def.output_specs = [_spec(spec, place) for spec in _list(item["outputs"], place)]
    if op in (PLACEHOLDER, CONSTANT) and (inputs or len(node_def.output_specs) != 1):
        raise SavedModelError(f"{place}: a {op} has no inputs and one output.")
    if not isinstance(item["stateful"], bool):
        raise SavedModelError(f"{place}: 'stateful' must be true or false.")
    node_def.stateful = item["stateful"]
    output_names = item["output_names"]
    if output_names is not None:
        output_names = [_name(n, place) for n in _list(output_names, place)]
    node_def.output_names = output_names
    return node_def


def _check_source_attrs(op, attrs, place):
    import numpy as np
    if op == PLACEHOLDER and not (isinstance(attrs.get("dtype"), DType) and (
            attrs.get("shape") is None or isinstance(attrs.get("shape"), tuple))):
        raise SavedModelError(f"{place}: a placeholder needs a dtype and a shape.")
    if op == CONSTANT and not isinstance(attrs.get("value"), (np.ndarray, np.generic)):
        raise SavedModelError(f"{place}: a constant needs an array value.")


def _spec(spec, where):
    if not (isinstance(spec, list) and len(spec) == 2 and spec[1] in DTYPES):
        raise SavedModelError(f"{where}: output spec {_text(spec)} is not [shape, dtype].")
    shape = spec[0]
    if shape is not None:
        if not isinstance(shape, list) or not all(
                d is None or (type(d) is int and d >= 0) for d in shape):
            raise SavedModelError(f"{where}: shape {_text(shape)} is not a list of sizes.")
        shape = tuple(shape)
    return shape, DTYPES[spec[1]]


def _name(value, where):
    """Checks a node or graph name: letters, digits and `_.-/>:`, at most 256 characters."""
    if not isinstance(value, str) or not value or len(value) > _MAX_NAME or not all(
            c in _NAME_PUNCTUATION or ("a" + c).isidentifier() for c in value):
        raise SavedModelError(f"{where}: {_text(value)} is not a valid name (letters, digits "
                              f"and _.-/>: only).")
    return value


def _keys(data, expected, where):
    if not isinstance(data, dict) or set(data) != expected:
        found = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise SavedModelError(f"{where}: expected an object with keys {sorted(expected)}, "
                              f"found {found}.")


def _list(value, where):
    if not isinstance(value, list):
        raise SavedModelError(f"{where}: expected a list, found {type(value).__name__}.")
    return value


def _dict(value, where):
    if not isinstance(value, dict):
        raise SavedModelError(f"{where}: expected an object, found {type(value).__name__}.")
    return value


def _text(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
