"""Graph optimisation before compilation: constant folding, identity/cast fusion and pruning.

The passes never mutate their input: `optimize` analyses a Graph and builds a new one (with new
subgraphs for control-flow nodes) that computes the same outputs with the same side effects.

- fold: a pure node whose inputs are all known at compile time becomes a ``constant`` node
  holding the value its kernel computes (once, at compile time). Constants reaching a
  structured op's subgraph through its inputs are propagated into it, so folding continues
  inside. A node is not folded when its kernel raises or warns (the error must happen at run
  time, and only if that code runs), or when the value is larger than `MAX_FOLDED_BYTES`.
  Ops declared ``shape_only`` (``shape``/``size``/``rank``) fold when their input's static
  shape is fully known.
- fuse: each op's fusion rule (``registry.deffuse``, next to its kernel) may replace the node
  by an earlier tensor or rewire its inputs: ``identity`` nodes, ``cast`` to the dtype the
  value already has, and arithmetic with a neutral rank-0 constant that changes nothing
  (``x * 1``; ``x + 0``, ``x - 0`` on integers) disappear (their users read the input
  directly), and ``cast(cast(x, B), C)`` reads ``x`` directly when the first cast is exact
  (``x`` -> ``B`` loses nothing), becoming ``x`` itself when ``C`` is ``x``'s dtype.
  The passes name no op: they read the rules and flags of the op definitions.
- prune: a node survives only if a graph output or a stateful node needs it. Stateful nodes
  (prints, variable reads and writes, random draws, py_function, asserts, TensorArray ops and
  control flow containing any of them) always survive, in their original order. A structured
  op's ``prune`` rule (runtime.ops.registry) says what survives of it, through a
  `StructuredContext`: ``cond`` and ``switch_case`` nodes lose outputs nobody reads and
  operands no branch reads; ``while`` nodes lose loop variables that neither the condition,
  the live loop variables, a stateful node nor a consumer of the loop needs, and captured
  values the subgraphs no longer read.

Node names are kept, so error messages and ``str(graph)`` of the optimised graph still name
the user's nodes; a folded node becomes a ``constant`` with the folded node's name.
"""
import warnings

import numpy as np

from runtime.graph import CONSTANT
from runtime.graph import PLACEHOLDER
from runtime.graph import Graph
from runtime.ops import registry

MAX_FOLDED_BYTES = 1 << 20  # larger folded values would bloat the compiled constants


def optimize(graph, inputs=None, outputs=None, *, fold=True, fuse=True, prune=True):
    """Returns an optimised copy of `graph` computing `outputs` from `inputs`.

    Args:
        graph: The Graph (left unchanged).
        inputs: The placeholder tensors the caller binds, in order (default `graph.inputs`).
            All of them stay inputs of the result, used or not.
        outputs: The tensors to compute, in order (default `graph.outputs`).
        fold: Fold constants.
        fuse: Remove identity and no-op cast chains.
        prune: Remove nodes that no output or stateful node needs.

    Returns:
        A new Graph whose `inputs` and `outputs` correspond one to one to `inputs` and
        `outputs`.

    Raises:
        TypeError: if an output is not a symbolic tensor of `graph`.
    """
    inputs = list(graph.inputs if inputs is None else inputs)
    outputs = list(graph.outputs if outputs is None else outputs)
    for t in outputs:
        if getattr(t, "node", None) is None or t.node.graph is not graph:
            raise TypeError(f"Expected the outputs of graph '{graph.name}' to be symbolic "
                            f"tensors of that graph, found {t!r}.")
    plan = _Plan(graph, {}, fold, fuse)
    roots = [plan.resolve(t) for t in outputs]
    live = _Liveness(plan, roots, prune)
    return _Builder(plan, live, None).build(inputs, outputs)


def fold_constants(graph, inputs=None, outputs=None):
    """Folds constants only (see `optimize`).

    Args:
        graph: The Graph.
        inputs: The input placeholders (default `graph.inputs`).
        outputs: The output tensors (default `graph.outputs`).

    Returns:
        A new Graph.
    """
    return optimize(graph, inputs, outputs, fold=True, fuse=False, prune=False)


def fuse_identities(graph, inputs=None, outputs=None):
    """Removes identity nodes and no-op cast chains only (see `optimize`).

    Args:
        graph: The Graph.
        inputs: The input placeholders (default `graph.inputs`).
        outputs: The output tensors (default `graph.outputs`).

    Returns:
        A new Graph.
    """
    return optimize(graph, inputs, outputs, fold=False, fuse=True, prune=False)


def prune(graph, inputs=None, outputs=None):
    """Removes the nodes no output or stateful node needs only (see `optimize`).

    Args:
        graph: The Graph.
        inputs: The input placeholders (default `graph.inputs`).
        outputs: The output tensors (default `graph.outputs`).

    Returns:
        A new Graph.
    """
    return optimize(graph, inputs, outputs, fold=False, fuse=False, prune=True)


class _Plan:
    """Forward analysis of one graph: fused substitutions and compile-time values."""

    def __init__(self, graph, known, fold, fuse):
        self.graph = graph
        self.fold = fold
        self.fuse = fuse
        self.sub = {}  # tensor -> the earlier tensor that carries the same value
        self.value = {}  # tensor -> numpy value known at compile time
        self.inputs_of = {}  # node -> its inputs after substitution (and cast rewiring)
        self.subplans = {}  # (node, attr name, known items) -> _Plan of that subgraph
        for i, t in enumerate(graph.inputs):
            if i in known:
                self.value[t] = known[i]
        for node in graph.nodes:
            self._visit(node)

    def resolve(self, tensor):
        """Returns the tensor whose value `tensor` carries after fusion."""
        return self.sub.get(tensor, tensor)

    def subplan(self, node, key, known):
        """Returns the (cached) plan of subgraph `key` of `node` with known inputs."""
        cache_key = (node, key, tuple(sorted((k, id(v)) for k, v in known.items())))
        plan = self.subplans.get(cache_key)
        if plan is None:
            plan = self.subplans[cache_key] = _Plan(node.attrs[key], known, self.fold,
                                                    self.fuse)
        return plan

    def _visit(self, node):
        if node.is_constant:
            self.value[node.outputs[0]] = node.attrs["value"]
            return
        if node.is_placeholder:
            return
        ins = [self.sub.get(t, t) for t in node.inputs]
        self.inputs_of[node] = ins
        opdef = registry.OPS[node.op]
        if node.stateful or opdef.stateful or opdef.structured:
            return
        if self.fold and self._try_fold(node, opdef, ins):
            return
        if self.fuse and opdef.fuse is not None and len(node.outputs) == 1:
            fused = opdef.fuse(self, node, ins)
            if isinstance(fused, list):
                self.inputs_of[node] = fused
            elif fused is not None:
                self.sub[node.outputs[0]] = fused

    def value_of(self, tensor):
        """A fusion rule's view: `tensor`'s value when known at compile time, else None."""
        return self.value.get(tensor)

    def analysed_inputs(self, node):
        """A fusion rule's view: the inputs of a pure node after fusion, else None."""
        if node.stateful:
            return None
        return self.inputs_of.get(node)

    def _try_fold(self, node, opdef, ins):
        value = self.value
        if (opdef.shape_only and ins and ins[0].shape is not None
                and None not in ins[0].shape):
            args = [np.zeros(ins[0].shape, dtype=np.int8)]
        elif all(t in value for t in ins):
            args = [value[t] for t in ins]
        else:
            return False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                with np.errstate(all="raise"):
                    result = opdef.kernel(*args, **node.attrs)
        except Exception:  # noqa: BLE001 - any failure must happen at run time instead
            return False
        results = list(result) if opdef.multi_output else [result]
        if len(results) != len(node.outputs):
            return False
        for t, v in zip(node.outputs, results):
            if not isinstance(v, (np.ndarray, np.generic)) or v.dtype != t.dtype.np_dtype:
                return False
            if v.nbytes > MAX_FOLDED_BYTES or v.dtype.kind == "O":
                return False
        for t, v in zip(node.outputs, results):
            value[t] = v
        return True


class _Liveness:
    """Backward analysis of one plan: which nodes, outputs and inputs survive."""

    def __init__(self, plan, roots, prune):
        self.plan = plan
        self.prune = prune
        self.nodes = set()  # surviving nodes
        self.needed = set(roots)  # tensors some surviving consumer reads
        self.control = {}  # structured node -> its Decision
        value = plan.value
        for node in reversed(plan.graph.nodes):
            if node.is_placeholder:
                if any(t in self.needed for t in node.outputs):
                    self.nodes.add(node)
                continue
            used = any(t in self.needed for t in node.outputs)
            if not (used or node.stateful or not prune):
                continue
            self.nodes.add(node)
            if node.is_constant or (node.outputs and all(t in value for t in node.outputs)):
                continue  # emitted as constants: needs no inputs
            if not registry.OPS[node.op].structured:
                self.needed.update(plan.inputs_of[node])
                continue
            decision = registry.PRUNE[node.op](StructuredContext(self, node))
            if decision.dead:
                self.nodes.discard(node)
                continue
            self.control[node] = decision
            ins = plan.inputs_of[node]
            self.needed.update(ins[i] for i in decision.kept_inputs)

    def placeholders_used(self):
        """Indices of the graph inputs that surviving nodes read (constant ones excluded)."""
        graph = self.plan.graph
        value = self.plan.value
        return {i for i, t in enumerate(graph.inputs)
                if t in self.needed and t not in value}


class Decision:
    """What survives of a structured node, as its `prune` rule decided (see StructuredContext).

    Attributes:
        dead: True when the whole node goes (nobody reads it and it has no side effects).
        kept_inputs: Indices of the node inputs that survive, in order.
        kept_outputs: Indices of the node outputs that survive, in order.
        subgraphs: Dict attr name -> (analysis from `StructuredContext.analyse`, indices of
            the subgraph inputs kept, indices of its outputs kept, the node inputs its captured
            placeholders stand for, indexed like the subgraph inputs).
        attrs: Other attrs to set on the new node (e.g. a new loop-variable count).
    """

    __slots__ = ("dead", "kept_inputs", "kept_outputs", "subgraphs", "attrs")

    def __init__(self, dead, kept_inputs, kept_outputs, subgraphs, attrs):
        self.dead = dead
        self.kept_inputs = kept_inputs
        self.kept_outputs = kept_outputs
        self.subgraphs = subgraphs
        self.attrs = attrs


class StructuredContext:
    """What a structured op's `prune` rule sees of the optimiser (one node of one graph).

    Attributes:
        node: The structured Node.
        pruning: False when only folding or fusing (everything must then survive).
    """

    def __init__(self, live, node):
        self._live = live
        self.node = node
        self.pruning = live.prune

    def known_inputs(self, start=0, stop=None):
        """Returns {i - start: value} for node inputs start..stop-1 known at compile time."""
        plan = self._live.plan
        ins = plan.inputs_of[self.node]
        stop = len(ins) if stop is None else stop
        return {i - start: plan.value[ins[i]] for i in range(start, stop)
                if ins[i] in plan.value}

    def output_needed(self, index):
        """True when output `index` of the node must survive (always, when not pruning)."""
        return self.node.outputs[index] in self._live.needed or not self.pruning

    def analyse(self, key, known, outputs):
        """Analyses subgraph attr `key` for the given outputs with some inputs known.

        Args:
            key: The attr holding the subgraph.
            known: Dict subgraph input index -> compile-time value.
            outputs: Indices of the subgraph outputs that must be computed.

        Returns:
            An analysis whose `used` is the set of subgraph input indices it still reads
            (known ones excluded); pass it back in `decide(subgraphs=...)`.
        """
        sub = self._live.plan.subplan(self.node, key, known)
        roots = [sub.resolve(sub.graph.outputs[i]) for i in outputs]
        live = _Liveness(sub, roots, self.pruning)
        live.used = live.placeholders_used()
        return live

    def decide(self, *, dead, kept_inputs, kept_outputs, subgraphs, attrs=None):
        """Returns the rule's Decision (see `Decision` for the arguments)."""
        return Decision(dead, list(kept_inputs), list(kept_outputs), subgraphs,
                        dict(attrs or {}))


class _Builder:
    """Builds the optimised copy of one graph from its plan and liveness."""

    def __init__(self, plan, live, outer):
        self.plan = plan
        self.live = live
        self.graph = Graph(plan.graph.name, outer_graph=outer)
        self.env = {}  # old tensor -> new tensor

    def build(self, inputs, outputs):
        """Returns the new graph with placeholders for `inputs` (in order) and `outputs`."""
        g = self.graph
        env = self.env
        plan = self.plan
        for t in inputs:
            node = g.add_node(PLACEHOLDER, [], dict(t.node.attrs), [(t.shape, t.dtype)],
                              t.node.name)
            env[t] = node.outputs[0]
        g.inputs = [env[t] for t in inputs]
        for t in plan.graph.inputs:
            if t in plan.value and t in self.live.needed:
                env[t] = self._constant(t, plan.value[t], t.node.name)
        for node in plan.graph.nodes:
            if node in self.live.nodes and not node.is_placeholder:
                self._copy(node)
        g.outputs = [env[plan.resolve(t)] for t in outputs]
        return g

    def _constant(self, tensor, value, name):
        node = self.graph.add_node(CONSTANT, [], {"value": value},
                                   [(value.shape, tensor.dtype)], name)
        return node.outputs[0]

    def _copy(self, node):
        plan = self.plan
        env = self.env
        g = self.graph
        if not node.is_constant and node.outputs and all(t in plan.value for t in node.outputs):
            single = len(node.outputs) == 1
            for i, t in enumerate(node.outputs):
                if t in self.live.needed:
                    name = node.name if single else f"{node.name}_{i}"
                    env[t] = self._constant(t, plan.value[t], name)
            return
        old_ins = plan.inputs_of.get(node, ())
        attrs = dict(node.attrs)
        outs = node.outputs
        decision = self.live.control.get(node)
        if decision is not None:
            old_ins = [old_ins[i] for i in decision.kept_inputs]
        ins = [env[t] for t in old_ins]
        if decision is not None:
            outs = [outs[i] for i in decision.kept_outputs]
            attrs.update(decision.attrs)
            for key, (sub_live, kept_in, kept_out, operands) in decision.subgraphs.items():
                attrs[key] = self._subgraph(sub_live, kept_in, kept_out, operands)
        new = g.add_node(node.op, ins, attrs, [(t.shape, t.dtype) for t in outs], node.name,
                         node.stateful)
        for old, t in zip(outs, new.outputs):
            env[old] = t

    def _subgraph(self, sub_live, kept_inputs, kept_outputs, operands):
        sub_plan = sub_live.plan
        builder = _Builder(sub_plan, sub_live, self.graph)
        sub = sub_plan.graph
        new = builder.build([sub.inputs[i] for i in kept_inputs],
                            [sub.outputs[i] for i in kept_outputs])
        # Keep the capture records of the surviving inputs (maps outer -> inner tensors).
        position = {t: i for i, t in enumerate(sub.inputs)}
        for outer, placeholder in sub.captures:
            inner = builder.env.get(placeholder)
            i = position.get(placeholder)
            if inner is None or i is None or not inner.node.is_placeholder:
                continue
            outer_new = self.env.get(self.plan.resolve(operands[i]))
            if outer_new is not None:
                new.captures.append((outer_new, inner))
        return new
