"""The XLA lowering of a graph: runs the graph's nodes through the rules of `xla.LOWER` on jax
values inside one `jax.jit` (imported only by runtime.executor.xla.import_jax).

A value is a numpy array while it is known when the function is traced (constants, shapes,
what is computed from them only: the op's own numpy kernel computes it, exactly as the numpy
executors do), and a jax value otherwise. Variables are state threaded through the program:
the jitted function takes their values and returns the new values of those it assigned, which
the call stores back. TensorArrays are one fixed-size jax array each (see xla_structured).
"""
import jax
import numpy as np

from autograph.backends.jax_values import enable_x64
from runtime.executor import array_buffers
from runtime.executor import xla
from runtime.resources import ResourceKey
from runtime.executor import xla_rules  # noqa: F401 - registers the ordinary ops' rules
from runtime.executor import xla_structured  # noqa: F401 - cond, while, state
from runtime.ops import registry

_WIDE_KINDS = {8, 16}  # itemsizes of the dtypes that need jax's x64 mode


class LoweringContext:
    """What a lowering rule sees (JAX's LoweringRuleContext).

    Attributes:
        buffers: The array_buffers.BufferArrays of the graph: how each TensorArray lowers.
        variables: The Variables the graph uses, in a fixed order.
        state: Variable index -> its current value in the program being traced.
    """

    __slots__ = ("buffers", "variables", "state", "_index")

    def __init__(self, buffers, variables, state):
        self.buffers = buffers
        self.variables = variables
        self._index = {id(v): i for i, v in enumerate(variables)}
        self.state = dict(state)

    def variable_index(self, variable):
        """The position of `variable` in the program's state."""
        return self._index[id(variable)]

    def state_values(self):
        """The current values of all variables, in order (a loop's or a branch's carry)."""
        return tuple(self.state[i] for i in range(len(self.variables)))

    def with_state(self, values):
        """A context like this one whose variables hold `values` (inside a loop or a branch)."""
        return LoweringContext(self.buffers, self.variables, enumerate(values))

    def run(self, graph, args, inputs=None, outputs=None):
        """Lowers the nodes of `graph` with `inputs` (default its inputs) bound to `args`;
        returns the values of `outputs` (default its outputs)."""
        env = dict(zip(graph.inputs if inputs is None else inputs, args))
        for node in graph.nodes:
            if node.is_constant:
                env[node.outputs[0]] = node.attrs["value"]
            elif not node.is_source:
                values = lower_node(self, node, [env[t] for t in node.inputs])
                env.update(zip(node.outputs, values))
        return [env[t] for t in (graph.outputs if outputs is None else outputs)]


def lower_node(ctx, node, values):
    """The values of `node`'s outputs, computed from `values` (its inputs' values)."""
    opdef = registry.OPS[node.op]
    if not opdef.structured and not opdef.stateful and all(map(xla.is_known, values)):
        out = opdef.kernel(*values, **node.attrs)  # known now: computed as numpy computes it
    else:
        rule = xla.LOWER.get(node.op)
        if rule is None:
            raise xla.not_lowerable(node, xla.CANNOT_LOWER.get(
                node.op, "it has no lowering rule yet (add one to runtime/executor/"
                         "xla_rules.py with register_lowering)"))
        out = rule(ctx, node, *values)
    return tuple(out) if opdef.multi_output or opdef.structured else (out,)


def _walk(graph):
    for node in graph.nodes:
        yield node
        for _, subgraph in node.subgraphs():
            yield from _walk(subgraph)


def _check(graph):
    """Raises NotLowerableError for the first node without a lowering, or with a string value
    (before tracing)."""
    for node in _walk(graph):
        if any(t.dtype.name == "string" for t in node.outputs):
            raise xla.not_lowerable(node, "XLA has no string type")
        if not node.is_source and node.op not in xla.LOWER:
            raise xla.not_lowerable(node, xla.CANNOT_LOWER.get(
                node.op, "it has no lowering rule yet"))


def _variables(graph):
    """The Variables the graph's ResourceKeys (its `var_handle` nodes') name, in first-use
    order."""
    found = {}
    for node in _walk(graph):
        for value in node.attrs.values():
            if type(value) is ResourceKey:
                variable = value.resolve()
                found.setdefault(id(variable), variable)
    return list(found.values())


def _needs_x64(graph):
    tensors = list(graph.inputs)
    for node in _walk(graph):
        tensors.extend(node.outputs)
    return any(t.dtype.np_dtype.itemsize in _WIDE_KINDS and t.dtype.np_dtype.kind in "iufc"
               for t in tensors if t.dtype.name not in ("variant", "string"))


class Compiled:
    """A graph lowered to JAX and compiled with `jax.jit`; `function` runs the program.

    The jitted program takes the call's arrays and then the variables' values, flat, and
    returns the outputs and then the new values of the variables it assigns (`_assigned`,
    found when it is traced).

    Args:
        graph: The Graph (optimised).
        inputs: Its input placeholders in call order.
        outputs: The tensors to return.
    """

    def __init__(self, graph, inputs, outputs):
        self._graph = graph
        self._inputs = list(inputs)
        self._outputs = list(outputs)
        _check(graph)
        self._buffers = array_buffers.BufferArrays(graph)
        self._variables = _variables(graph)
        self._assigned = ()  # indices of the variables the program assigns
        self._x64 = _needs_x64(graph) and not jax.config.jax_enable_x64
        self._jitted = jax.jit(self._program)

    def _program(self, *flat):
        count = len(self._inputs)
        state = flat[count:]
        ctx = LoweringContext(self._buffers, self._variables, enumerate(state))
        outs = ctx.run(self._graph, flat[:count], self._inputs, self._outputs)
        self._assigned = tuple(i for i, v in ctx.state.items() if v is not state[i])
        return tuple(outs) + tuple(ctx.state[i] for i in self._assigned)

    def function(self):
        """The callable(*arrays) -> tuple of numpy values that runs the program."""
        jitted, asarray = self._jitted, np.asarray
        if self._x64:
            return self._call_x64
        if not self._variables:
            return lambda *arrays: tuple(map(asarray, jitted(*arrays)))
        return self._call

    def _call(self, *arrays):
        variables = self._variables
        results = self._jitted(*arrays, *[v._value for v in variables])
        count = len(self._outputs)
        for i, value in zip(self._assigned, results[count:]):
            variables[i]._value = np.asarray(value)
        return tuple(np.asarray(o) for o in results[:count])

    def _call_x64(self, *arrays):
        with enable_x64():
            return self._call(*arrays)

