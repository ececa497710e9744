"""The graph IR: a Graph of Nodes in topological order, each producing symbolic Tensors.

IR contract (the executors, the optimiser and runtime.function rely on it):

- ``Graph.nodes`` is a list of ``Node`` in topological *and program* order: every input of a
  node is produced by an earlier node of the same graph, and stateful nodes (prints, variable
  reads/writes, random draws, py_function, asserts, TensorArray ops, and control-flow nodes
  whose subgraphs contain any of these) appear in the order the program issued them.
  Executors run nodes in list order; that is what orders side effects. Each stateful node also
  lists the previous stateful node of its graph in ``node.control_inputs`` (TF's "^name").
- ``Node`` fields: ``op`` (registry op name, e.g. ``"add"``), ``name`` (unique in the graph,
  TensorFlow style ``add``, ``add_1``, ...), ``inputs`` (tuple of SymbolicTensor of this
  graph), ``attrs`` (dict of data; a live object is named by a ``ResourceKey``, held by
  the outermost graph in ``resources``), ``outputs`` (tuple of SymbolicTensor with
  ``.node``, ``.index``, ``.shape`` with None for unknown dims, ``.dtype``),
  ``control_inputs`` (tuple of Node),
  ``stateful``
  (bool: never prune, never fold, never reorder).
- Ordinary ops: ``runtime.ops.registry.get_op(node.op)`` gives an ``OpDef``;
  ``opdef.kernel(*input_values, **node.attrs)`` computes the node. The kernel returns one value
  when ``opdef.multi_output`` is False, else a sequence of ``len(node.outputs)`` values.
  Values are numpy arrays or numpy scalars; ``string`` values are object arrays of ``bytes``;
  ``variant`` values are runtime objects (TensorArray storage, mutated in place by the
  stateful TensorArray ops); a ``resource`` value is the Variable a ``var_handle`` node
  names (its attr ``resource``, a ResourceKey), the first input of the variable ops. A
  tensor's ``shape`` is None when even its rank is unknown (py_function outputs, stacks of
  TensorArrays whose element shape is unknown).
- ``placeholder`` nodes (no inputs; attrs ``dtype``, ``shape``) are the graph inputs, listed in
  ``graph.inputs`` (their output tensors). ``constant`` nodes have attr ``value`` (numpy).
- ``cond`` nodes: ``inputs = [pred, *operands]``; attrs ``true_graph`` and ``false_graph`` are
  Graphs whose ``inputs`` (placeholders) bind to ``operands`` one to one, and whose ``outputs``
  (equal count, dtypes) are the node outputs.
- ``while`` nodes: ``inputs = [*loop_vars, *captured]``; attrs ``cond_graph``, ``body_graph``
  and ``num_loop_vars``. Both subgraphs take all of ``inputs`` as their ``inputs``;
  ``cond_graph.outputs`` is one bool scalar; ``body_graph.outputs`` are the next loop vars
  (``num_loop_vars`` of them); the captured values stay constant across iterations. The node
  outputs are the final loop vars. (``maximum_iterations`` is lowered into an extra counter
  loop var and a condition, so the node needs nothing else.)
- Subgraphs never reference tensors of other graphs: outer tensors they use are *captured*
  (``graph.captures`` lists ``(outer_tensor, placeholder)``) and become explicit node inputs.

``str(graph)`` pretty-prints the IR::

    graph f(%x: float32[3], %y: float32[3]) {
      %add = add(%x, %y) : float32[3]
      return (%add)
    }
"""
import sys

import numpy as np

from runtime import context
from runtime import dtypes
from runtime import errors
from runtime.resources import ResourceKey
from runtime.resources import ResourceTensor
from runtime.tensor import EagerTensor
from runtime.tensor import SymbolicTensor
from runtime.tensor import format_shape
from runtime import graph_dot


# The two source node kinds every graph has, which are not registered ops: graph inputs and
# literal values (attr ``value``).
PLACEHOLDER = "placeholder"
CONSTANT = "constant"


def output_name(tensor):
    """A name for a symbolic tensor: its node's name, or the name of that output if it has one.

    Args:
        tensor: A SymbolicTensor.

    Returns:
        A str.
    """
    names = tensor.node.output_names
    return names[tensor.index] if names else tensor.node.name


class _PlaceholderAttrs:
    """Makes a placeholder's attrs, `{"dtype": ..., "shape": ...}` (see `_ConstantAttrs`)."""

    def __init__(self, dtype, shape):
        self.dtype = dtype
        self.shape = shape


class _ConstantAttrs:
    """Makes a constant's attrs, `{"value": ...}`, as the `__dict__` of an instance.

    A traced graph stays alive with its ConcreteFunction, and most of its nodes are
    placeholders and constants. An instance's `__dict__` is an ordinary dict whose keys table
    is shared by every instance of its class (CPython's key-sharing dicts): half the memory of
    a dict literal's. Adding a key to one of them gives it its own table; nothing else changes.
    """

    def __init__(self, value):
        self.value = value


def placeholder_attrs(dtype, shape):
    """A placeholder node's attrs, `{"dtype": ..., "shape": ...}`."""
    return _PlaceholderAttrs(dtype, shape).__dict__


def constant_attrs(value):
    """A constant node's attrs, `{"value": ...}`."""
    return _ConstantAttrs(value).__dict__


class Node:
    """One operation in a Graph (see the module docstring for the field contract)."""

    __slots__ = ("graph", "op", "name", "inputs", "attrs", "outputs", "control_inputs",
                 "stateful", "output_names")

    def __init__(self, graph, op, name, inputs, attrs):
        self.graph = graph
        self.op = op
        self.name = name
        # tuples, not lists: a traced graph lives as long as its ConcreteFunction, and a list
        # made by a comprehension has room for four items
        self.inputs = tuple(inputs)
        self.attrs = attrs
        self.outputs = ()
        self.control_inputs = ()  # set by Graph.add_node for a stateful node
        self.stateful = False
        # a name per output (the user's loop variables of an autograph while node), or None;
        # for people only: placeholders capturing an output and the Graphviz edges use it
        self.output_names = None

    @property
    def type(self):
        """The op name (TensorFlow's `Operation.type`)."""
        return self.op

    @property
    def is_placeholder(self):
        """True for a graph input."""
        return self.op == PLACEHOLDER

    @property
    def is_constant(self):
        """True for a literal value (its numpy value is `attrs['value']`)."""
        return self.op == CONSTANT

    @property
    def is_source(self):
        """True for a placeholder or a constant: the nodes that are not registered ops."""
        return self.op == PLACEHOLDER or self.op == CONSTANT

    def subgraphs(self):
        """Returns the (attr name, Graph) pairs held in this node's attrs."""
        return [(k, v) for k, v in self.attrs.items() if isinstance(v, Graph)]

    def format(self):
        """Returns the one-line text form, e.g. '%add_1 = add(%x, %y) : float32[3]'."""
        outs = self.outputs
        args = ", ".join(_ref(t) for t in self.inputs)
        attrs = {k: v for k, v in self.attrs.items() if not isinstance(v, Graph)}
        text = f"{self.op}({args})"
        if attrs:
            text += " {" + ", ".join(f"{k}={_format_attr(v)}" for k, v in attrs.items()) + "}"
        if not outs:
            return text
        lhs = ", ".join(_ref(t) for t in outs)
        types = ", ".join(t.dtype.name + format_shape(t.shape) for t in outs)
        return f"{lhs} = {text} : {types}"

    def short(self):
        """Returns the form used in error messages: 'add_1 = add(x, y)'."""
        args = ", ".join(t.ref_name for t in self.inputs)
        lhs = ", ".join(t.ref_name for t in self.outputs)
        call = f"{self.op}({args})"
        return f"{lhs} = {call}" if lhs else call

    def __repr__(self):
        return f"<Node {self.format()}>"


def _ref(tensor):
    node = tensor.node
    if len(node.outputs) == 1:
        return "%" + node.name
    return f"%{node.name}:{tensor.index}"


def _format_attr(value):
    if isinstance(value, (np.ndarray, np.generic)):
        if value.ndim == 0:
            item = value.item()
            return repr(item) if isinstance(item, str) else str(item)
        return np.array2string(np.asarray(value), separator=",", threshold=8,
                               edgeitems=3).replace("\n", "")
    if isinstance(value, dtypes.DType):
        return value.name
    if isinstance(value, (list, tuple)):
        inner = ",".join(_format_attr(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    name = getattr(value, "_graph_attr_name", None)
    if name is not None:
        return name
    return repr(value)


class Graph:
    """A dataflow graph being built or executed.

    Args:
        name: A name used in printing and error messages.
        outer_graph: The enclosing graph for control-flow branch/body graphs; outer tensors
            used inside are captured. None for a top-level (function) graph.
    """

    # A traced graph and its subgraphs live as long as their ConcreteFunction: no __dict__.
    __slots__ = ("name", "outer_graph", "nodes", "inputs", "outputs", "captures", "_captured",
                 "_constants", "_used_names", "_next_suffix", "_last_stateful", "resources",
                 "__weakref__")

    def __init__(self, name="graph", outer_graph=None):
        self.name = name
        self.outer_graph = outer_graph
        self.nodes = []  # topological and program order
        self.inputs = []  # placeholder outputs, bound to the executor's input values in order
        self.outputs = []  # result tensors (set by whoever builds the graph)
        self.captures = []  # (outer tensor, placeholder) pairs, in capture order
        self._captured = {}  # id(outer tensor) -> (outer tensor, placeholder)
        self._constants = {}  # id(eager tensor) -> (eager tensor, constant tensor)
        self._used_names = set()
        self._next_suffix = {}  # base name -> next suffix to try
        self._last_stateful = None  # last stateful node, for control_inputs
        # key -> live object (a Variable, a py_function's callable...) that a ResourceKey in
        # this graph or its subgraphs names: the outermost graph keeps them alive (`hold`;
        # None until one is held)
        self.resources = None

    # -- naming ---------------------------------------------------------------------------

    def unique_name(self, base):
        """Returns `base`, or `base_1`, `base_2`, ... : the first not yet used in this graph.

        Args:
            base: The desired name.

        Returns:
            A name unique within this graph (it is reserved).
        """
        used = self._used_names
        if used is None:  # released (release_build_state): every name belongs to a node
            used = self._used_names = {node.name for node in self.nodes}
            self._next_suffix = {}
        if base not in used:
            used.add(base)
            return base
        next_suffix = self._next_suffix
        i = next_suffix.get(base, 1)
        while f"{base}_{i}" in used:
            i += 1
        next_suffix[base] = i + 1
        name = sys.intern(f"{base}_{i}")  # `Const_1`, `add_2`...: the same in many graphs
        used.add(name)
        return name

    def release_build_state(self):
        """Frees what only building needs, in this graph and its subgraphs.

        A traced function's graph stays alive with its ConcreteFunction; the name set and the
        capture and constant memos are a third of it. They are rebuilt if building resumes
        (from the nodes' names; a tensor captured again gets a new placeholder).
        """
        stack = [self]
        while stack:
            g = stack.pop()
            g._used_names = g._captured = g._constants = g._next_suffix = None
            for node in g.nodes:
                for value in node.attrs.values():
                    if isinstance(value, Graph):
                        stack.append(value)

    # -- building -------------------------------------------------------------------------

    def add_node(self, op, inputs, attrs, output_specs, name=None, stateful=False):
        """Appends a node; its inputs must already belong to this graph.

        Args:
            op: The op name.
            inputs: A sequence of SymbolicTensors of this graph (kept as a tuple).
            attrs: Dict of attributes.
            output_specs: List of (shape, dtype) pairs, one per output.
            name: Desired node name (made unique); defaults to `op`.
            stateful: Whether the node has side effects (never pruned, folded or reordered).

        Returns:
            The new Node.
        """
        node = Node(self, op, self.unique_name(name or op), inputs, attrs)
        if stateful:
            node.stateful = True
            if self._last_stateful is not None:
                node.control_inputs = (self._last_stateful,)
        node.outputs = tuple([SymbolicTensor(node, i, shape, dtype)
                              for i, (shape, dtype) in enumerate(output_specs)])
        if stateful:
            self._last_stateful = node
        self.nodes.append(node)
        return node

    def create_op(self, opdef, inputs, attrs, name=None):
        """Adds a node for a registered op, inferring its output shapes and dtypes.

        Args:
            opdef: A runtime.ops.registry.OpDef.
            inputs: List of Tensors (captured into this graph as needed).
            attrs: Dict of attributes (the kernel's keyword arguments).
            name: Optional node name.

        Returns:
            The list of output SymbolicTensors.
        """
        inputs = [self.capture(t) for t in inputs]
        for value in attrs.values():
            if type(value) is ResourceKey:  # the graph keeps what its nodes name alive
                self.hold(value, value.resolve())
        if any(t.shape is None for t in inputs):
            specs = _infer_unknown_rank(opdef, inputs, attrs)
        else:
            specs = opdef.infer(*inputs, **attrs)
            if not opdef.multi_output:
                specs = (specs,)
        return self.add_node(opdef.name, inputs, attrs, specs, name or opdef.name,
                             opdef.stateful).outputs

    def placeholder(self, dtype, shape, name=None):
        """Adds a graph input.

        Args:
            dtype: A DType.
            shape: A tuple of ints and Nones, or None for an unknown rank.
            name: Optional name (defaults to 'placeholder').

        Returns:
            The placeholder's SymbolicTensor (also appended to `graph.inputs`).
        """
        dtype = dtypes.as_dtype(dtype)
        shape = None if shape is None else tuple(shape)  # None: unknown rank
        node = self.add_node(PLACEHOLDER, [], placeholder_attrs(dtype, shape),
                             [(shape, dtype)], name or "placeholder")
        tensor = node.outputs[0]
        self.inputs.append(tensor)
        return tensor

    def constant(self, value, name=None):
        """Adds a constant node holding a numpy value.

        Args:
            value: A numpy array or scalar.
            name: Optional name (defaults to 'Const').

        Returns:
            The constant's SymbolicTensor.
        """
        dtype = dtypes.from_numpy(value.dtype)
        node = self.add_node(CONSTANT, [], constant_attrs(value), [(value.shape, dtype)],
                             name or "Const")
        return node.outputs[0]

    def capture(self, tensor):
        """Returns a tensor of this graph standing for `tensor`.

        Symbolic tensors of this graph are returned as is. Tensors of an enclosing graph become
        placeholders recorded in `captures` (recursively through intermediate graphs). Eager
        tensors become constant nodes, and an eager resource handle (`Variable.handle`) a
        `var_handle` node naming it by key (once per tensor object).

        Args:
            tensor: A Tensor.

        Returns:
            A SymbolicTensor of this graph.

        Raises:
            TypeError: if `tensor` belongs to a graph that does not enclose this one.
        """
        if type(tensor) is SymbolicTensor:
            if tensor.node.graph is self:
                return tensor
            if self._captured is None:
                self._captured = {}
            hit = self._captured.get(id(tensor))
            if hit is not None:
                return hit[1]
            if self.outer_graph is None:
                raise _leaked_error(tensor, self)
            try:
                outer = self.outer_graph.capture(tensor)
            except TypeError:
                raise _leaked_error(tensor, self) from None
            placeholder = self.placeholder(tensor.dtype, tensor.shape,
                                           name=output_name(tensor))
            self.captures.append((outer, placeholder))
            self._captured[id(tensor)] = (tensor, placeholder)
            return placeholder
        if type(tensor) is EagerTensor:
            if self._constants is None:
                self._constants = {}
            hit = self._constants.get(id(tensor))
            if hit is not None:
                return hit[1]
            const = self.constant(tensor._value)
            self._constants[id(tensor)] = (tensor, const)
            return const
        if type(tensor) is ResourceTensor:
            return self._capture_resource(tensor)
        raise TypeError(f"Expected a Tensor, found {type(tensor).__name__}: {tensor!r}.")

    def _capture_resource(self, handle):
        """The `var_handle` node standing for eager resource `handle` (once per handle): its
        attribute is the handle's ResourceKey (data); the outermost graph holds the object."""
        if self._constants is None:
            self._constants = {}
        hit = self._constants.get(id(handle))
        if hit is not None:
            return hit[1]
        self.hold(handle.key, handle._value)
        node = self.add_node("var_handle", [], {"resource": handle.key},
                             [((), dtypes.resource)], handle.key.label)
        self._constants[id(handle)] = (handle, node.outputs[0])
        return node.outputs[0]

    def hold(self, key, resource):
        """Keeps `resource`, which ResourceKey `key` names in an attribute of this graph,
        alive as long as the outermost graph (in its `resources`)."""
        owner = self
        while owner.outer_graph is not None:
            owner = owner.outer_graph
        if owner.resources is None:
            owner.resources = {}
        owner.resources[key.key] = resource

    def is_stateful(self):
        """True when any node of this graph is stateful."""
        return any(node.stateful for node in self.nodes)

    def as_default(self):
        """Context manager making this the graph that ops are added to."""
        return context.graph_scope(self)

    # -- views ----------------------------------------------------------------------------

    def get_operations(self):
        """Returns the nodes (TensorFlow's name for them)."""
        return list(self.nodes)

    def as_graph_def(self):
        """Returns the GraphDef of this graph: data only, `Graph.from_graph_def` inverts it.

        `.node` items have .name, .op (TF op type), .input: 'node' for output 0, 'node:i'
        otherwise, and '^node' for control inputs (see runtime/graph_def.py).
        """
        from runtime import graph_def  # graph_def builds Graphs: it imports this module
        return graph_def.as_graph_def(self)

    @staticmethod
    def from_graph_def(graph_def, resources=None):
        """Rebuilds the Graph a GraphDef describes (`as_graph_def` inverted).

        Args:
            graph_def: A GraphDef of a supported `version`.
            resources: dict of the objects its ResourceRefs name (variables, TensorArray
                storage, py_function callables); default `graph_def.resources`.

        Returns:
            A Graph whose str() equals that of the graph the GraphDef was made of.

        Raises:
            ValueError: for another GraphDef version, or a ResourceRef with no resource.
        """
        from runtime import graph_def as graph_def_lib  # it imports this module
        return graph_def_lib.from_graph_def(graph_def, resources)

    def to_dot(self):
        """Returns the graph in Graphviz dot syntax (see runtime/graph_dot.py)."""
        return graph_dot.to_dot(self)

    def pretty(self, indent=""):
        """Returns the text form (what str(graph) prints).

        Args:
            indent: A prefix for every line.

        Returns:
            A string.
        """
        params = ", ".join(f"%{t.node.name}: {t.dtype.name}{format_shape(t.shape)}"
                           for t in self.inputs)
        lines = [f"{indent}graph {self.name}({params}) {{"]
        _pretty_body(self, indent + "  ", lines)
        outs = ", ".join(_ref(t) if isinstance(t, SymbolicTensor) else repr(t)
                         for t in self.outputs)
        lines.append(f"{indent}  return ({outs})")
        lines.append(indent + "}")
        return "\n".join(lines)

    def __str__(self):
        return self.pretty()

    def __repr__(self):
        return f"<Graph {self.name!r}: {len(self.nodes)} nodes>"


class _RankProxy:
    """Stands in for an input of unknown rank while inferring only the output dtypes."""

    __slots__ = ("shape", "dtype", "node")

    def __init__(self, tensor):
        self.shape = () if tensor.shape is None else tensor.shape
        self.dtype = tensor.dtype
        self.node = tensor.node


def _infer_unknown_rank(opdef, inputs, attrs):
    """Output specs when an input has unknown rank.

    Rules that handle a None shape (elementwise, reductions, ...) answer directly; for the
    others, the rule runs on rank-0 stand-ins for its dtypes and the shapes become unknown.
    """
    try:
        specs = opdef.infer(*inputs, **attrs)
        return specs if opdef.multi_output else (specs,)
    except TypeError:
        pass
    try:
        specs = opdef.infer(*[_RankProxy(t) for t in inputs], **attrs)
        specs = specs if opdef.multi_output else (specs,)
        return [(None, dtype) for _, dtype in specs]
    except (TypeError, ValueError, IndexError, errors.OpError):
        if opdef.multi_output:
            raise
        return [(None, inputs[0].dtype)]


def _pretty_body(graph, indent, lines):
    for node in graph.nodes:
        if node.is_placeholder:
            continue
        lines.append(indent + node.format())
        for key, sub in node.subgraphs():
            text = sub.pretty(indent + "  ")
            lines.append(text.replace(f"graph {sub.name}(", f"{key} {sub.name}(", 1))


def _leaked_error(tensor, graph):
    return TypeError(
        f"The tensor '{tensor.name}' belongs to graph '{tensor.node.graph.name}', which does not "
        f"enclose graph '{graph.name}' being built here. It leaked out of the trace or "
        f"tf.cond/tf.while_loop branch that created it (e.g. it was stored in a Python list, "
        f"a global or an attribute, or a function called in a staged branch or loop assigned "
        f"it through `nonlocal`). Return it from that function instead, or recompute it here.")


def leaked_eager_error(tensor):
    """Returns the TypeError for a symbolic tensor used in eager execution.

    Args:
        tensor: The SymbolicTensor.

    Returns:
        A TypeError to raise.
    """
    return TypeError(
        f"The symbolic tensor '{tensor.name}' of graph '{tensor.node.graph.name}' was used "
        f"outside that graph, in eager execution. It leaked out of a tf.function trace or a "
        f"tf.cond/tf.while_loop branch (e.g. it was stored in a Python list, global or "
        f"attribute). Return it from the function instead and use the returned value.")
