"""TensorArrays the generated code holds as one preallocated buffer, and the rules writing them.

A TensorArray of fixed size whose every write has a fully known element shape is, in the
generated code, a numpy array of shape `(size,) + element_shape` made when the array is
created (zeros: an element never written reads as zeros, as the kernel's do): a write is
`buf[i] = value`, a read `buf[i]` (a copy for elements of rank >= 1, so that a later write
leaves it alone), its size `len(buf)`, and `stack()` the buffer itself where nothing reads
the array after it (else a copy). An array of Python-int or bool scalars is a Python list of
those scalars instead, turned into numpy once, by `stack()`; its reads are the Python
scalars the code holds for rank-0 ints and bools anyway.

The code generator finds these arrays with `BufferArrays` before it writes a line: every
`variant` value a TensorArray node makes, and every value bound to one across a `cond` or a
`while` (their subgraphs' inputs and outputs, keyed by op in `_BINDINGS`), is one *family*,
one storage object at run time. A family is held as a buffer when it has one creating node
(`tensor_array_new`, not `dynamic_size`), every node reading it is a TensorArray write, read,
size or stack (nothing else: no concat, unstack, pop, gradient or graph output), and its
writes agree on one fully known element shape. Anything else keeps the kernels' Python list.

The kernels' checks keep their meaning: an index out of range raises the kernel's error
(`state_ops.check_write_index`, `check_read_index`); dtype and shape are settled when the
graph is built (the TensorArray checks the dtype as it adds a write; a fully known shape was
merged into the array's element shape then).
"""
import numpy as np

from runtime.executor import emitters
from runtime.executor import scalars
from runtime.ops import registry
from runtime.ops import state_ops

_NUMERIC_KINDS = "biufc"  # the element dtypes a numpy buffer holds (not strings)
# What each TensorArray op does to a buffer family (keyed by op; the structured ops that bind
# families across subgraphs are in `_BINDINGS`). Any other node reading a variant value makes
# its family a list.
_MAKES, _WRITES, _READS, _STACKS = "makes", "writes", "reads", "stacks"
_ROLES = {"tensor_array_new": _MAKES, "tensor_array_write": _WRITES,
          "tensor_array_read": _READS, "tensor_array_size": _READS,
          "tensor_array_stack": _STACKS}
for _op in _ROLES:
    registry.get_op(_op)  # a misspelt or removed op fails here, at import


def _cond_bindings(node):
    """(outer tensor, inner tensor) pairs a cond binds: operands to its branches' inputs,
    branches' outputs to its outputs."""
    for _, branch in node.subgraphs():
        yield from zip(node.inputs[1:], branch.inputs)
        yield from zip(node.outputs, branch.outputs)


def _while_bindings(node):
    """The pairs a while binds: its inputs to both subgraphs' inputs, loop variables to the
    body's next values and to the node's outputs."""
    count = node.attrs["num_loop_vars"]
    body = node.attrs["body_graph"]
    yield from zip(node.inputs, node.attrs["cond_graph"].inputs)
    yield from zip(node.inputs, body.inputs)
    yield from zip(node.inputs[:count], body.outputs)
    yield from zip(node.inputs[:count], node.outputs)


# Structured op -> the (outer, inner) tensor pairs it binds to one value (a TensorArray
# carried through it stays one storage object). The structured ops register after this module
# loads; tests/runtime/executor/test_array_buffers.py checks both are registered structured ops.
_BINDINGS = {"cond": _cond_bindings, "while": _while_bindings}


class Buffer:
    """How the code holds one family: `np_dtype`, `element_shape` (a tuple of ints), `size`
    (an int where the creating node's size is a constant, else None) and `as_list` (a Python
    list of Python scalars, else a numpy array)."""

    __slots__ = ("np_dtype", "element_shape", "size", "as_list")

    def __init__(self, np_dtype, element_shape, size):
        self.np_dtype = np_dtype
        self.element_shape = element_shape
        self.size = size
        self.as_list = not element_shape and (np_dtype in scalars.PYTHON_INTS
                                              or np_dtype.kind == "b")


class BufferArrays:
    """The TensorArray values of one graph (and its subgraphs) held as buffers.

    Attributes:
        buffers: id of a variant tensor -> its family's Buffer (only the buffer families).
        last_stacks: the stack nodes after which nothing reads their array: they return the
            buffer itself.
    """

    def __init__(self, graph):
        self._parent = {}  # id(variant tensor) -> id of its parent in the union-find
        self._tensors = {}  # id(variant tensor) -> the tensor (keeps ids meaningful)
        self._nodes = []  # (node, its role, id of the variant tensor it reads or makes)
        self._bad = set()  # ids of tensors whose family cannot be a buffer
        self._walk(graph)
        for t in graph.outputs:
            self._bad_if_variant(t)
        for t in graph.inputs:
            self._bad_if_variant(t)
        self.buffers = self._families()
        self.last_stacks = self._last_stacks(graph)

    def buffer(self, tensor):
        """The Buffer holding `tensor`'s array, or None (the kernels' list)."""
        return self.buffers.get(id(tensor))

    def _find(self, key):
        parent = self._parent
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    def _add(self, tensor):
        key = id(tensor)
        if key not in self._parent:
            self._parent[key] = key
            self._tensors[key] = tensor
        return key

    def _union(self, a, b):
        if a.dtype.name != "variant" or b.dtype.name != "variant":
            return
        ra, rb = self._find(self._add(a)), self._find(self._add(b))
        if ra != rb:
            self._parent[ra] = rb

    def _bad_if_variant(self, tensor):
        if tensor.dtype.name == "variant":
            self._bad.add(self._add(tensor))

    def _walk(self, graph):
        for node in graph.nodes:
            if node.is_source:  # a subgraph's inputs are bound by the node holding it
                continue
            role = _ROLES.get(node.op)
            if role is not None:
                handle = node.outputs[0] if role is _MAKES else node.inputs[0]
                self._nodes.append((node, role, self._add(handle)))
                if role is _WRITES:
                    self._union(node.inputs[0], node.outputs[0])
            elif node.op in _BINDINGS:
                for outer, inner in _BINDINGS[node.op](node):
                    self._union(outer, inner)
                for _, subgraph in node.subgraphs():
                    self._walk(subgraph)
            else:
                for t in node.inputs + node.outputs:
                    self._bad_if_variant(t)
                for _, subgraph in node.subgraphs():
                    self._walk(subgraph)

    def _families(self):
        """root id -> Buffer for every family that may be a buffer; then per tensor id."""
        news, shapes, bad = {}, {}, {self._find(k) for k in self._bad}
        for node, role, key in self._nodes:
            root = self._find(key)
            if role is _MAKES:
                news.setdefault(root, []).append(node)
            elif role is _WRITES:
                shapes.setdefault(root, set()).add(node.inputs[2].shape)
        found = {}
        for root, made in news.items():
            shape = _element_shape(made, shapes.get(root, set()))
            if root in bad or len(made) != 1 or shape is None:
                continue
            np_dtype = made[0].attrs["dtype"].np_dtype
            if np_dtype.kind in _NUMERIC_KINDS:
                found[root] = Buffer(np_dtype, shape, _constant_int(made[0].inputs[0]))
        return {key: found[self._find(key)] for key in self._parent
                if self._find(key) in found}

    def _last_stacks(self, graph):
        """The top-level stacks of buffer families that no later top-level node reads."""
        last = {}
        for i, node in enumerate(graph.nodes):
            for t in node.inputs:
                if id(t) in self.buffers:
                    last[self._find(id(t))] = (i, node)
        return {node for _, node in last.values() if _ROLES.get(node.op) is _STACKS}


def _constant_int(tensor):
    """The value of `tensor` as an int where it is a constant, else None."""
    return int(tensor.node.attrs["value"]) if tensor.node.is_constant else None


def _element_shape(news, written):
    """The one fully known element shape of a family, or None."""
    if len(news) != 1 or news[0].attrs["dynamic_size"]:
        return None
    declared = news[0].attrs["element_shape"]
    if declared is not None:
        written = written | {tuple(declared)}
    if len(written) != 1:
        return None
    shape = next(iter(written))
    if shape is None or None in shape:
        return None
    return tuple(shape)


# -- the rules ---------------------------------------------------------------------------------

@emitters.register_statement("tensor_array_new")
def _new(node, args, ctx, depth):
    """`buf = [0] * n` (scalars) or `buf = np.zeros((n, ...), dtype)`."""
    buffer = ctx.buffers.buffer(node.outputs[0])
    if buffer is None:
        return False
    size = ctx.wrapped(node.inputs[0], depth)
    name = ctx.new_name(node.name)
    if buffer.as_list:
        zero = "False" if buffer.np_dtype.kind == "b" else "0"
        ctx.line(depth, f"{name} = [{zero}] * {size}", node)
    else:
        low = ctx.bounds(node.inputs[0])
        if low is None or low[0] < 0:  # the kernel makes an empty array of a negative size
            size = f"max({size}, 0)"
        zeros = ctx.global_(np.zeros, "np_zeros")
        dtype = ctx.global_(buffer.np_dtype.type, buffer.np_dtype.name)
        shape = ", ".join([size] + [str(d) for d in buffer.element_shape])
        shape = f"({shape},)" if not buffer.element_shape else f"({shape})"
        ctx.line(depth, f"{name} = {zeros}({shape}, {dtype})", node)
    ctx.env[node.outputs[0]] = name
    return True


def _checked_index(node, check, buffer, args, ctx, depth):
    """Writes the test of index `args[1]` against the buffer's length, unless its interval is
    known to be inside a constant size; where it fails `check` (state_ops.check_write_index
    or check_read_index) raises the kernel's error. Returns the index text."""
    handle, index = args[:2]
    interval = ctx.bounds(node.inputs[1])
    if interval is None or interval[0] < 0 or buffer.size is None \
            or interval[1] >= buffer.size:
        check = ctx.global_(check, check.__name__)
        ctx.line(depth, f"if not 0 <= {index} < len({handle}):", node)
        ctx.line(depth + 1, f"{check}({index}, len({handle}))", node)
    return index


@emitters.register_statement("tensor_array_write", python_ints=True)
def _write(node, args, ctx, depth):
    """A buffer's `buf[i] = value`; else the list's `items[i] = value` for a write in range and
    the kernel otherwise (growth, errors)."""
    buffer = ctx.buffers.buffer(node.inputs[0])
    if buffer is None:
        return _list_write(node, args, ctx, depth)
    index = _checked_index(node, state_ops.check_write_index, buffer, args, ctx, depth)
    if buffer.as_list:
        value = ctx.wrapped(node.inputs[2], depth)
        value = scalars.bare(value) if value.startswith("(") else value
    else:
        value = ctx.numpy_arg(node.inputs[2], depth)
    ctx.line(depth, f"{args[0]}[{index}] = {value}", node)
    ctx.env[node.outputs[0]] = args[0]
    return True


def _list_write(node, args, ctx, depth):
    """`items[i] = value` for a write in range, the kernel otherwise (growth, errors).

    Returns:
        Whether the node was emitted (False: the value's shape is not fully known).
    """
    shape = node.inputs[2].shape
    if shape is None or None in shape:
        return False
    handle, index = args[:2]
    value = ctx.numpy_arg(node.inputs[2], depth)  # a rank-0 value is stored as numpy
    kernel = ctx.global_(registry.OPS["tensor_array_write"].kernel, "k_tensor_array_write")
    ctx.line(depth, f"if 0 <= {index} < len({handle}.items):", node)
    ctx.line(depth + 1, f"{handle}.items[{index}] = {value}", node)
    ctx.line(depth, "else:", node)
    ctx.line(depth + 1, f"{kernel}({handle}, {index}, {value})", node)
    ctx.env[node.outputs[0]] = handle  # the kernel returns the storage it was given
    return True


@emitters.register_statement("tensor_array_read", python_ints=True)
def _read(node, args, ctx, depth):
    """`buf[i]` (a copy of an element of rank >= 1)."""
    buffer = ctx.buffers.buffer(node.inputs[0])
    if buffer is None:
        return False
    index = _checked_index(node, state_ops.check_read_index, buffer, args, ctx,
                           depth)
    out = node.outputs[0]
    name = ctx.new_name(node.name)
    copy = ".copy()" if buffer.element_shape else ""
    ctx.line(depth, f"{name} = {args[0]}[{index}]{copy}", node)
    ctx.env[out] = name
    if buffer.as_list:
        ctx.python_ready.add(out)
    return True


@emitters.register_statement("tensor_array_size")
def _size(node, args, ctx, depth):
    """`len(buf)`: a Python int."""
    if ctx.buffers.buffer(node.inputs[0]) is None:
        return False
    out = node.outputs[0]
    ctx.env[out] = f"len({args[0]})"
    ctx.python_ready.add(out)
    return True


@emitters.register_statement("tensor_array_stack")
def _stack(node, args, ctx, depth):
    """`np.array(buf, dtype)` of a list; the buffer itself, or a copy where the array is read
    later."""
    buffer = ctx.buffers.buffer(node.inputs[0])
    if buffer is None:
        return False
    name = ctx.new_name(node.name)
    if buffer.as_list:
        array = ctx.global_(np.array, "np_array")
        dtype = ctx.global_(buffer.np_dtype.type, buffer.np_dtype.name)
        ctx.line(depth, f"{name} = {array}({args[0]}, {dtype})", node)
    elif node in ctx.buffers.last_stacks:
        name = args[0]
    else:
        ctx.line(depth, f"{name} = {args[0]}.copy()", node)
    ctx.env[node.outputs[0]] = name
    return True
