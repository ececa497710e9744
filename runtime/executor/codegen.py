"""The compiled executor: turns a Graph into one generated Python function calling numpy.

`compile(graph, inputs, outputs)` optimises the graph (runtime.executor.optimize), then emits
straight-line source: one statement per node, with an inline expression where one computes
exactly what the kernel computes (`add_1 = x + y`, see runtime.executor.emitters) and a direct
kernel call otherwise (`print_2 = _k_print(x, template=_a3)`). Structured ops write their own
source through their `emit` rule (runtime.ops.registry): `cond` becomes a native `if`/`else`
and `while` a native `while` loop with the subgraphs inlined as nested code, so no node is
dispatched at run time and a loop runs in constant stack depth. Constants, kernels
and attributes are hoisted into the function's globals; values that may be large are deleted
after their last use.

The code is shaped as a person would write it:
- rank-0 ints, float64 values and bools are Python ints, floats and bools
  (runtime.executor.scalars), ints wrapped back into int32/int64 range only where the exact
  result may leave it (`if n > 2147483647:`); a loop's test bounds its counter (`while i < n:`
  needs no wrap of `i + 1`); other rank-0 numbers are numpy scalars (faster than 0-d arrays);
- a scalar read once is computed where it is read (`while (n % 2) == 0:`), not in a local;
- a loop's test is its `while` condition when it is one expression, a counted loop is
  `for i in range(i, n)`, and in a loop with a `break` the branch that sets the flag ends
  the iteration and breaks itself (`if total > t: found = i; total = add; break`); where
  something else sets it, the loop tests it at the end of the body (`...; if done: break`),
  never in its condition;
- a loop reads single elements of an int or bool array from a memoryview made before it (a
  Python int, no numpy scalar; an array of static shape through a flat view, at
  `i * cols + j`), and one dimension of a shape is `x.shape[k]`; a float32
  element too, as a Python float, where every read of it is a comparison or (numpy >= 2)
  float32 arithmetic with a numpy operand, and that pays (runtime.executor.scalars);
- a value that is a loop variable's (or branch output's) next value is written straight into
  that variable when its old value is dead, so there are no copies or tuple shuffles.

The source is registered in `linecache` under "<runtime-graph NAME#N>", so tracebacks show
the generated lines. One `try/except` around the whole body (free in the hot path) maps the
failing line back to its node and prefixes the error message with
"While executing add_1 = add(x, y): ", exactly as the reference interpreter does.
"""
import builtins
import itertools
import keyword
import math
import sys

import numpy as np

from runtime.executor import array_buffers
from runtime.executor import element_code
from runtime.executor import emit_context
from runtime.executor import emitters
from runtime.executor import generated
from runtime.executor import loop_patterns
from runtime.executor import optimize as optimize_lib
from runtime.executor import scalars
from runtime.graph import PLACEHOLDER
from runtime.ops import registry

_INDENT = "    "
_counter = itertools.count()
# Values with at least this many elements (or of unknown size) are deleted after their last use.
LARGE_VALUE_ELEMENTS = 1024
_RESERVED = set(keyword.kwlist) | set(dir(builtins))


def compile(graph, inputs=None, outputs=None, *, optimize=True):  # noqa: A001 - contract name
    """Compiles `graph` into a Python function computing `outputs` from `inputs`.

    Args:
        graph: The Graph.
        inputs: The placeholder tensors bound to the call arguments, in order
            (default `graph.inputs`).
        outputs: The tensors whose values the call returns, in order (default `graph.outputs`).
        optimize: Fold constants, fuse identities and prune first (runtime.executor.optimize).

    Returns:
        A callable(*arrays) -> tuple with one numpy value per output. Its generated source is
        registered in linecache under its file name (`inspect.getsource` shows it).

    Raises:
        TypeError: if an output is not a symbolic tensor of `graph`.
    """
    return generate(graph, inputs, outputs, optimize=optimize).load()


def generate(graph, inputs=None, outputs=None, *, optimize=True):
    """Generates the source of the compiled function without loading it.

    Args:
        graph: The Graph.
        inputs: The input placeholders in order (default `graph.inputs`).
        outputs: The output tensors in order (default `graph.outputs`).
        optimize: Whether to run the optimiser first.

    Returns:
        A generated.GeneratedCode.

    Raises:
        TypeError: if an output is not a symbolic tensor of `graph`.
    """
    inputs = list(graph.inputs if inputs is None else inputs)
    outputs = list(graph.outputs if outputs is None else outputs)
    if optimize:
        graph = optimize_lib.optimize(graph, inputs, outputs)
    else:
        graph = optimize_lib.optimize(graph, inputs, outputs, fold=False, fuse=False,
                                      prune=False)
    return _Generator(graph).run()


class _Namer:
    """Hands out identifiers unique in the generated module (torch.fx `_Namespace` style)."""

    def __init__(self):
        self._used = set(_RESERVED) | {"_annotate_error", "_e"}

    def new(self, hint, private=False):
        """Returns a fresh identifier derived from `hint` ('_'-prefixed when private)."""
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in str(hint)) or "v"
        base = base.strip("_") or "v"
        if base[0].isdigit():
            base = "v" + base
        if private:
            base = "_" + base
        name = base
        i = 1
        while name in self._used:
            name = f"{base}_{i}"
            i += 1
        self._used.add(name)
        return name


def _tuple_items(names):
    """'a' -> 'a,' and 'a', 'b' -> 'a, b' (tuple display items)."""
    if len(names) == 1:
        return names[0] + ","
    return ", ".join(names)


def _is_large(tensor):
    shape = tensor.shape
    if shape is None or None in shape:
        return tensor.dtype.name != "variant"
    return math.prod(shape) >= LARGE_VALUE_ELEMENTS


class _Generator(scalars.ScalarCode, element_code.ElementCode):
    """Emits the source of one graph (subgraphs are emitted inline by the same instance)."""

    def __init__(self, graph):
        self.graph = graph
        self.context = emit_context.EmitContext(self)  # what structured ops' rules see
        self.namer = _Namer()
        self.namespace = {"__builtins__": builtins}
        self.lines = []
        self.line_nodes = {}  # 1-based line number -> generated.NodeLabel
        self.env = {}  # tensor -> source expression of its value
        self.const = {}  # tensor -> compile-time value (constants)
        self._globals_by_id = {}  # id(value) -> global name (values kept alive by namespace)
        self._scalars = {}  # (dtype, bytes) of a numpy scalar constant -> its global name
        # Tensor -> the name its producer assigns it to directly: a name of the block's
        # outputs (a loop variable, a branch output) when the old value is dead by then.
        self.targets = {}
        self._uses = {}  # tensor -> number of reads in the block being emitted
        self._consumer = {}  # tensor read once in its block -> the node reading it (or None)
        # (graph, position, last_use, readers) of the node being emitted, for `_dead_buffer`.
        self._block = (None, 0, {}, {})
        # Arrays made by an elementwise ufunc in this code: no other value shares their memory.
        self.fresh = set()
        self.skip = set()  # nodes a structured op's rule computes itself (a range's increment)
        # The cond whose branches end the innermost loop being emitted (a
        # while_code.TailBreak), or None.
        self.tail = None
        self.python_ready = set()  # Python-scalar outputs a statement left as Python scalars
        self.buffers = array_buffers.BufferArrays(graph)  # TensorArrays held as buffers
        self.shape_tuples = set()  # shapes held as `x.shape`, read only for one dimension
        self.init_scalar_state()  # scalars.ScalarCode's
        self.init_element_state()  # element_code.ElementCode's

    # -- helpers used by emitters and structured ops' emit rules ---------------------------

    def global_(self, value, hint):
        """Binds `value` as a global of the generated code and returns its name."""
        name = self._globals_by_id.get(id(value))
        if name is None:
            # interned: the compiled code's names are, and most globals (`_int32`,
            # `_k_add`, ...) recur in every compiled function, so they share one string
            name = sys.intern(self.namer.new(hint, private=True))
            self.namespace[name] = value
            self._globals_by_id[id(value)] = name
        return name

    def known(self, tensor):
        """Returns the compile-time value of `tensor`, or None."""
        return self.const.get(tensor)

    def scalar_global(self, value):
        """Returns the global holding numpy scalar `value`, shared by equal scalars."""
        key = (value.dtype.str, value.tobytes())
        name = self._scalars.get(key)
        if name is None:
            text = str(value.item()).replace("-", "m").replace(".", "_").replace("+", "")
            name = self.global_(value, f"{value.dtype.name}_{text}")
            self._scalars[key] = name
        return name

    def literal(self, value):
        """Returns source for an attribute value: a literal when exact, else a global."""
        if value is None or type(value) in (bool, int, str):
            return repr(value)
        if type(value) is float and np.isfinite(value):
            return repr(value)
        if type(value) is tuple and all(v is None or type(v) in (bool, int, str)
                                        for v in value):
            return repr(value)
        return self.global_(value, "a")

    # -- emission -------------------------------------------------------------------------

    def line(self, depth, text, node=None):
        """Appends one source line at `depth`, mapped to `node` for error messages."""
        self.lines.append(_INDENT * depth + text)
        if node is not None:
            self.line_nodes[len(self.lines)] = generated.NodeLabel.of(node)

    def lines_of(self, write):
        """Calls `write()` with the lines it writes kept apart; returns (its result, Lines)."""
        saved = self.lines, self.line_nodes
        self.lines, self.line_nodes = [], {}
        try:
            result = write()
        finally:
            written = emit_context.Lines(self.lines, self.line_nodes)
            self.lines, self.line_nodes = saved
        return result, written

    def add_lines(self, written):
        """Appends the Lines of `lines_of`, their error labels renumbered."""
        base = len(self.lines)
        self.lines.extend(written.texts)
        for number, label in written.labels.items():
            self.line_nodes[base + number] = label

    def run(self):
        """Emits the whole function and returns a GeneratedCode."""
        graph = self.graph
        fn_name = self.namer.new(graph.name or "graph")
        params = []
        prologue = []
        raw = {}  # top-level tensor -> expression of the caller's own object
        for t in graph.inputs:
            name = self.namer.new(t.node.name)
            params.append(name)
            self.env[t] = name
            if scalars.python_scalar(t):
                scalar = self.namer.new(t.node.name)
                prologue.append(f"{scalar} = {scalars.to_python_text(t, name)}")
                self.env[t] = scalar
                raw[t] = name
            elif scalars.is_scalar(t):
                scalar = self.namer.new(t.node.name)
                ndarray = self.global_(np.ndarray, "ndarray")
                prologue.append(f"{scalar} = {name}[()] if {name}.__class__ is {ndarray} "
                                f"else {name}")
                self.env[t] = scalar
                raw[t] = name
        filename = f"<runtime-graph {graph.name}#{next(_counter)}>"
        self.line(0, f"def {fn_name}({', '.join(params)}):")
        self.line(1, "try:")
        for text in prologue:
            self.line(2, text)
        self.block(graph, 2, raw)
        outs = []
        for t in graph.outputs:
            if t in raw:
                outs.append(raw[t])
            elif scalars.python_scalar(t):
                outs.append(self.numpy_arg(t, 2))
            else:
                outs.append(self.env[t])
        self.line(2, "return (" + _tuple_items(outs) + ")")
        self.line(1, "except Exception as _e:")
        self.line(2, "_annotate_error(_e)")
        self.line(2, "raise")
        source = "\n".join(self.lines) + "\n"
        return generated.GeneratedCode(source, self.namespace, fn_name, filename, self.line_nodes)

    def block(self, graph, depth, raw=None, out_names=None):
        """Emits the nodes of `graph` (its placeholders must already be bound in env).

        Args:
            graph: The graph or subgraph.
            depth: The indentation depth.
            raw: Top level only: tensor -> expression of the caller's own object.
            out_names: The names the caller assigns the graph's outputs to after the block
                (`assign`); a node whose output is only that output writes the name itself
                when nothing after it reads the name's old value.

        Returns:
            Whether any line was emitted.
        """
        nodes = [n for n in graph.nodes if n.op != PLACEHOLDER]
        last_use = {}
        uses = {}
        consumer = {}
        readers = {}
        for i, node in enumerate(nodes):
            for t in node.inputs:
                last_use[t] = i
                uses[t] = uses.get(t, 0) + 1
                consumer[t] = node
                readers.setdefault(t, []).append(node)
        for t in graph.outputs:
            last_use[t] = len(nodes)
            uses[t] = uses.get(t, 0) + 1
            consumer[t] = None
        start = len(self.lines)
        output_ids = {id(t) for t in graph.outputs}
        for i, node in enumerate(nodes):
            if node in self.skip:
                continue
            if out_names is not None and any(uses.get(t) == 1 and id(t) in output_ids
                                             for t in node.outputs):
                self._target_outputs(graph, nodes, i, uses, out_names)
            self._uses = uses
            self._consumer = consumer
            self._block = (graph, i, last_use, readers)
            self.emit_node(node, depth, raw)
            dead = [self.env[t] for t in node.outputs if t not in last_use and self._local(t)]
            inputs = [t for t in node.inputs
                      if last_use.get(t) == i and self._local(t) and t.node.graph is graph]
            if inputs:
                views = self.views
                dead += [self.env[t] for t in inputs]
                dead += [views.pop(t) for t in inputs if t in views]
            if dead:
                self.line(depth, "del " + ", ".join(sorted(set(dead))))
        return len(self.lines) > start

    def _target_outputs(self, graph, nodes, i, uses, out_names):
        """Lets `nodes[i]` assign its outputs straight to `out_names` where that is safe.

        Safe: the output is read only as the graph output, and no later node (nor another
        output of the graph) reads the name's old value, directly or in a deferred expression.
        """
        node = nodes[i]
        candidates = [t for t in node.outputs if uses.get(t) == 1]
        later = {t for n in nodes[i:] for t in n.outputs}
        read = set()
        for n in nodes[i + 1:]:
            for t in n.inputs:
                if t not in later:
                    read |= scalars.names_in(self.env[t])
        for t in graph.outputs:
            if t not in later:
                read |= scalars.names_in(self.env[t])
        for t in candidates:
            for k, out in enumerate(graph.outputs):
                if out is t and out_names[k] not in read:
                    self.targets[t] = out_names[k]

    def assign(self, names, tensors, depth):
        """Assigns the values of `tensors` to `names`, all at once (a parallel assignment).

        Self-assignments (a value its producer already wrote to the name) are left out; the
        rest is one line per name, or one tuple assignment when a value reads a name
        assigned before it.
        """
        pairs = [(name, scalars.bare(self.env[t])) for name, t in zip(names, tensors)]
        self.assign_values([(name, value) for name, value in pairs if name != value], depth)

    def assign_values(self, pairs, depth, node=None):
        """Emits `name = value` for (name, source text) pairs, as one parallel assignment.

        One line per name, or one tuple assignment when a value reads a name assigned
        before it (every value is read before any name is written).
        """
        written = set()
        parallel = False
        for name, value in pairs:
            if written & scalars.names_in(value):
                parallel = True
            written.add(name)
        if parallel:
            self.line(depth, ", ".join(n for n, _ in pairs) + " = "
                      + ", ".join(v for _, v in pairs), node)
        else:
            for name, value in pairs:
                self.line(depth, f"{name} = {value}", node)

    def _local(self, tensor):
        """True for large values held in a local that this block defines."""
        return _is_large(tensor) and not tensor.node.is_source

    def emit_node(self, node, depth, raw=None):
        """Emits one node (constants become globals; `raw` maps tensors to unconverted names)."""
        op = node.op
        if node.is_constant:
            self._emit_constant(node, raw)
            return
        opdef = registry.OPS[op]
        if opdef.structured:  # the rule materializes the operands it reads more than once
            registry.EMIT[op](self.context, node, depth)
            return
        rule = self._python_rule(node)
        if rule is not None:
            self._emit_python(node, rule, depth)
            return
        args = self._args(node, emitters.takes_python_ints(node), depth)
        if emitters.statement(node, args, self, depth):
            self._to_python(node.outputs, depth)
            return
        args = self._args(node, emitters.takes_python_ints(node, kernel_call=True), depth)
        args, python_bool = self.python_float_args(node, args)
        expr = emitters.expression(node, args, self)
        if expr is not None and not opdef.multi_output and not python_bool and \
                scalars.python_scalar(node.outputs[0]):
            expr = scalars.to_python_text(node.outputs[0], expr)
        if expr is not None and not opdef.multi_output and self._defer(node):
            self.env[node.outputs[0]] = f"({expr})"
            self.deferred.add(node.outputs[0])
            return
        if node.outputs and node.outputs[0].shape and emitters.makes_new_array(node):
            self.fresh.add(node.outputs[0])
        ufunc = emitters.ufunc_for(node)
        if ufunc is not None and node.outputs[0].shape:
            buffer = self._dead_buffer(node)
            if buffer is not None:  # the result goes into a dead input's memory
                fn = self.global_(ufunc, "np_" + ufunc.__name__)
                expr = f"{fn}({', '.join(args)}, out={args[buffer]})"
        if expr is None:
            kernel = self.global_(opdef.kernel, "k_" + op)
            parts = args + [f"{k}={self.literal(v)}" for k, v in node.attrs.items()]
            expr = f"{kernel}({', '.join(parts)})"
            if not opdef.multi_output and scalars.python_scalar(node.outputs[0]):
                expr = scalars.to_python_text(node.outputs[0], expr)
        outs = node.outputs
        names = [self.targets.get(t) or self.namer.new(
            t.node.name if len(outs) == 1 else f"{node.name}_{t.index}") for t in outs]
        for t, name in zip(outs, names):
            self.env[t] = name
        if not opdef.multi_output:
            self.line(depth, f"{names[0]} = {expr}", node)
        elif not names:
            self.line(depth, expr, node)
        else:
            self.line(depth, _tuple_items(names) + f" = {expr}", node)
            self._to_python(outs, depth)

    def _emit_constant(self, node, raw):
        """Binds a constant: a Python literal, a shared numpy scalar or a global array."""
        value = node.attrs["value"]
        t = node.outputs[0]
        self.const[t] = value
        if raw is not None:
            raw[t] = self.global_(value, node.name)
        if scalars.python_scalar(t):
            self.env[t] = scalars.literal(value[()]) or self.global_(value.item(), node.name)
            if scalars.python_int(t):
                self.interval[t] = (int(value), int(value))
        elif scalars.is_scalar(t):
            self.env[t] = self.scalar_global(value[()])
        else:
            self.env[t] = self.global_(value, node.name)

    def _args(self, node, python_ints, depth):
        """Source of `node`'s operands: numpy values, or Python ints after the first one; and
        Python floats as they are for an elementwise ufunc of float64 operands that are not
        all Python floats (numpy computes it on the float as on a float64)."""
        floats = emitters.ufunc_for(node) is not None and \
            all(scalars.python_float(t) or t.dtype.np_dtype == np.float64 for t in node.inputs) \
            and not all(scalars.python_float(t) for t in node.inputs)
        args = []
        for k, t in enumerate(node.inputs):
            if (python_ints and k) or (floats and scalars.python_float(t)):
                self.materialize(t, depth)
                args.append(self.env[t])
            else:
                args.append(self.numpy_arg(t, depth))
        return args

    def _dead_buffer(self, node):
        """The index of an input whose array can hold `node`'s elementwise result, or None.

        The input must be an array this code made with an elementwise ufunc (no view or other
        value shares it: not an input, a constant, a loop variable or an operand), read only by
        elementwise ufuncs, at its last read here, with the result's shape and dtype.
        """
        graph, i, last_use, readers = self._block
        out = node.outputs[0]
        shape = out.shape
        if shape is None or None in shape or any(u.dtype != out.dtype for u in node.inputs):
            return None
        for k, u in enumerate(node.inputs):
            if (u in self.fresh and u.node.graph is graph and last_use.get(u) == i
                    and u.shape == shape
                    and all(emitters.ufunc_for(n) is not None for n in readers[u])):
                return k
        return None

    def bind(self, subgraph, exprs, sources=None):
        """Binds the inputs of `subgraph` to source expressions (for structured ops' rules).

        Args:
            subgraph: The subgraph.
            exprs: One source expression per input.
            sources: The tensors the expressions hold, when they hold the same value at every
                read (what is known about their values carries over).
        """
        for t, expr in zip(subgraph.inputs, exprs):
            self.env[t] = expr
        for t, source in zip(subgraph.inputs, sources or ()):
            if source in self.interval:
                self.interval[t] = self.interval[source]
            if source in self.views:
                self.views[t] = self.views[source]
            if source in self.python_floats:
                self.python_floats.add(t)
            if source in self.float_copies:
                self.float_copies[t] = self.float_copies[source]

    def sole_reader(self, tensor):
        """The node reading `tensor`, when that is its one read in the block being emitted."""
        return self._consumer.get(tensor) if self._uses.get(tensor) == 1 else None

    def python_text(self, tensor, expr):
        """`expr` (a numpy value of rank-0 `tensor`) as the Python scalar the code holds."""
        return scalars.to_python_text(tensor, expr)

    def new_name(self, hint):
        """Returns a fresh local name derived from `hint`."""
        return self.namer.new(hint)

    def offset_counter(self, node, k, increment):
        """`loop_patterns.offset_counter` for a while node's counting loop: the `1 + i` node."""
        return loop_patterns.offset_counter(node.attrs["body_graph"], k, increment)

    def output_unused(self, tensor):
        """Whether nothing after the node being emitted reads `tensor` (in its block).

        Ask before emitting the node's own subgraphs: `block` then describes theirs.
        """
        return tensor not in self._block[2]

    def counting_loop(self, node, test=None, ignore=None):
        """`loop_patterns.counting_loop` for a while node: (k, bound, increment) or None."""
        return loop_patterns.counting_loop(node.attrs["cond_graph"], node.attrs["body_graph"],
                                      node.attrs["num_loop_vars"], test, ignore)

    def statement_text(self, tensor):
        """The expression of `tensor`'s value as a statement uses it (no outer parentheses)."""
        return scalars.bare(self.env[tensor])

    def truth(self, expr):
        """`expr` where only its truth is read (`if`, `while`, `not`; see scalars.truth)."""
        return scalars.truth(expr)

    def output_name(self, tensor, hint):
        """The name a structured node assigns `tensor` to: its target, or a fresh name."""
        return self.targets.get(tensor) or self.namer.new(hint)
