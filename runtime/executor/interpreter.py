"""The reference executor: runs a Graph node by node (torch.fx Interpreter.run_node style).

`Interpreter(graph, inputs, outputs)` builds a plan once: every tensor gets a slot in a flat
environment list, constants are preloaded, and each node becomes a step bound to the method
for its kind: `run_op` calls an ordinary op's kernel, `run_structured` runs what a structured
op's `interpret` rule planned (runtime.ops.registry; `cond`, `while` and `switch_case` plan
their subgraphs once with `plan` and run them with `run_plan`, a `while` as a native Python
loop, so iterations use constant stack depth and memory).
"""
import functools
import operator

import numpy as np

from runtime import errors
from runtime.ops import registry
from runtime.tensor import EagerTensor


class _Plan:
    """A graph prepared for execution."""

    __slots__ = ("template", "input_slots", "output_slots", "steps", "graph", "tail", "gather")

    def __init__(self, graph, template, input_slots, output_slots, steps):
        self.graph = graph
        self.template = template  # env list with constants filled in, None elsewhere
        self.input_slots = input_slots  # env slot of each input, in order
        self.output_slots = output_slots  # env slot of each output, in order
        self.steps = steps  # (method, node, in_slots, out_slots, payload) per executed node
        # When the inputs own slots 0..n-1 (the usual case), env = [*args, *tail].
        n = len(input_slots)
        self.tail = tuple(template[n:]) if input_slots == list(range(n)) else None
        # gather(env) -> tuple of the output values
        if len(output_slots) == 1:
            slot = output_slots[0]
            self.gather = lambda env: (env[slot],)
        elif output_slots:
            self.gather = operator.itemgetter(*output_slots)
        else:
            self.gather = lambda env: ()


class Interpreter:
    """Executes a graph; see the module docstring.

    Args:
        graph: The Graph.
        inputs: The placeholder tensors bound to the call arguments, in order.
        outputs: The tensors whose values the call returns, in order.
    """

    def __init__(self, graph, inputs, outputs):
        self.graph = graph
        self.plan = self._build(graph, list(inputs), list(outputs))

    def __call__(self, *args):
        """Runs the graph.

        Args:
            *args: One numpy value per input.

        Returns:
            A tuple with one numpy value per output.

        Raises:
            TypeError: if the number of arguments is wrong.
            Exception: whatever a node raises, with 'While executing <node>: ' prepended.
        """
        plan = self.plan
        if len(args) != len(plan.input_slots):
            raise TypeError(f"Graph '{self.graph.name}' takes {len(plan.input_slots)} inputs, "
                            f"got {len(args)}.")
        # Integer arithmetic wraps silently, as in TensorFlow and the compiled executor (numpy
        # warns about it for numpy scalars only, and the warning would point into kernels).
        with np.errstate(over="ignore"):
            return tuple(self.run_plan(plan, args))

    # -- planning -------------------------------------------------------------------------

    def _build(self, graph, inputs, outputs):
        slots = {}
        template = []

        def slot_of(tensor):
            key = id(tensor)
            slot = slots.get(key)
            if slot is None:
                slot = slots[key] = len(template)
                template.append(None)
            return slot

        input_slots = [slot_of(t) for t in inputs]
        steps = []
        for node in graph.nodes:
            if node.is_placeholder:
                for t in node.outputs:
                    slot_of(t)
                continue
            out_slots = [slot_of(t) for t in node.outputs]
            if node.is_constant:
                template[out_slots[0]] = node.attrs["value"]
                continue
            in_slots = [slots[id(t)] for t in node.inputs]
            opdef = registry.get_op(node.op)
            if opdef.structured:
                payload = registry.INTERPRET[node.op](self, node)
                method = self.run_structured
            else:
                if not opdef.multi_output:
                    # Single-output op: run inline by run_plan (the fast path of run_op).
                    kernel = opdef.kernel
                    if node.attrs:
                        kernel = functools.partial(kernel, **node.attrs)
                    steps.append((None, node, in_slots, out_slots[0], kernel))
                    continue
                payload = (opdef.kernel, node.attrs, opdef.multi_output)
                method = self.run_op
            steps.append((method, node, in_slots, out_slots, payload))
        output_slots = []
        for t in outputs:
            if isinstance(t, EagerTensor):
                output_slots.append(len(template))
                template.append(t._value)
            elif id(t) in slots:
                output_slots.append(slots[id(t)])
            else:
                raise ValueError(
                    f"Cannot return {t!r} from graph '{graph.name}': it is not produced by a "
                    f"node of this graph. Return tensors built while this graph was traced.")
        return _Plan(graph, template, input_slots, output_slots, steps)

    def plan(self, graph):
        """Plans a subgraph (for structured ops' `interpret` rules).

        Args:
            graph: A Graph; its `inputs` and `outputs` are the plan's.

        Returns:
            A plan for `run_plan`.
        """
        return self._build(graph, graph.inputs, graph.outputs)

    # -- execution ------------------------------------------------------------------------

    def run_plan(self, plan, args):
        """Runs a plan on argument values.

        Args:
            plan: A _Plan.
            args: A sequence of input values.

        Returns:
            A tuple of output values.
        """
        tail = plan.tail
        if tail is not None:
            env = [*args, *tail]
        else:
            env = plan.template.copy()
            for slot, value in zip(plan.input_slots, args):
                env[slot] = value
        step = None
        get = env.__getitem__
        try:
            for step in plan.steps:
                method, node, in_slots, out_slots, payload = step
                if method is None:
                    env[out_slots] = payload(*map(get, in_slots))
                    continue
                result = method(node, list(map(get, in_slots)), payload)
                for slot, value in zip(out_slots, result):
                    env[slot] = value
        except Exception as e:
            _annotate(e, step[1])
            raise
        return plan.gather(env)

    def run_op(self, node, args, payload):
        """Runs an ordinary op through its kernel.

        Single-output ops take an inlined fast path in run_plan with the same semantics.

        Args:
            node: The Node.
            args: Its input values.
            payload: (kernel, attrs, multi_output).

        Returns:
            The sequence of output values.
        """
        kernel, attrs, multi_output = payload
        if multi_output:
            return kernel(*args, **attrs)
        return (kernel(*args, **attrs),)

    def run_structured(self, node, args, payload):
        """Runs a structured op (cond, while, switch_case, ...) as its `interpret` rule planned.

        Args:
            node: The Node.
            args: Its input values.
            payload: The callable the op's `interpret` rule returned for this node.

        Returns:
            The sequence of output values.
        """
        return payload(args)


def _annotate(error, node):
    """Prefixes the innermost failing node to an exception's message, once."""
    if getattr(error, "_runtime_node", None) is not None:
        return
    prefix = f"While executing {node.short()}: "
    try:
        if isinstance(error, errors.OpError):
            error.message = prefix + error.message
            error.args = (error.message,) + tuple(error.args[1:])
            if error.op is None:
                error.op = node.name
        elif error.args and isinstance(error.args[0], str):
            error.args = (prefix + error.args[0],) + tuple(error.args[1:])
        else:
            error.args = (prefix + str(error),)
        error._runtime_node = node.name
    except (AttributeError, TypeError):
        pass


def interpret(graph, inputs, outputs):
    """Returns a callable that runs `graph` with the reference interpreter.

    Args:
        graph: The Graph.
        inputs: The placeholder tensors bound to the call arguments, in order.
        outputs: The tensors whose values the call returns, in order.

    Returns:
        A callable(*arrays) -> tuple of numpy values.
    """
    return Interpreter(graph, inputs, outputs)
