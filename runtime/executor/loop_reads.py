"""What a while loop's code reads element by element, and which float32 elements it holds as
Python floats: the walk over a while node's subgraphs (and the conds and whiles inside them).

The code generator reads those arrays from a memoryview made before the loop
(`EmitContext.view`) and copies the loop-invariant float32 scalars compared with such an
element to Python floats (`EmitContext.float_copy`).
"""
import math

from runtime.executor import scalars

# Structured op -> the node input bound to its subgraphs' input 0: a cond's subgraphs take its
# operands after the predicate, a while's take all of its inputs.
# (tests/runtime/ops/test_control_flow_ops.py checks both are registered structured ops)
_OPERAND_OFFSET = {"cond": 1, "while": 0}


class ElementReads:
    """The walk over a while node's subgraphs (and the conds and whiles inside them) that finds
    what they read element by element (codegen reads those from a memoryview), and which
    float32 elements the code holds as Python floats (see `_python_float_reads`).

    Attributes:
        floats: The getitem nodes whose float32 element is read as a Python float.
        compared: ids of the loop-invariant float32 scalars (a while's captures) compared with
            such an element: codegen makes a Python float copy of them before the loop.
    """

    def __init__(self):
        self.floats = set()
        self.compared = set()
        self._readers = {}  # id(graph) -> id(tensor) -> the nodes reading it

    def inputs_read(self, node, origin=None, invariant=frozenset()):
        """The ids of the inputs of `node` (a cond or a while) that its subgraphs read element
        by element, themselves or in a cond or while inside.

        Args:
            node: The node.
            origin: id of a tensor of node's graph -> the tensor the code binds it to, where
                that is another (a cond branch's input: the cond's operand).
            invariant: ids of the loop-invariant tensors of the innermost enclosing while.
        """
        offset = _OPERAND_OFFSET.get(node.op)  # node input of the subgraphs' input 0
        if offset is None:
            return set()
        origin = origin or {}
        found = set()
        for _, graph in node.subgraphs():
            # A cond's branches are inlined where its operands are (a Python float stays one);
            # a while binds loop variables and captures, never Python floats.
            if offset:
                inner = branch_origin(graph, node, origin)
                inner_invariant = invariant
            else:
                inner = {}
                inner_invariant = {id(t) for t in graph.inputs[node.attrs["num_loop_vars"]:]}
            read = set()
            for n in graph.nodes:
                if n.is_source:
                    continue
                if scalars.element_read(n):
                    read.add(id(n.inputs[0]))
                elif scalars.float_element_read(n):
                    compared = set()
                    saves = self._python_float_reads(n.outputs[0], graph, inner,
                                                     inner_invariant, compared)
                    if scalars.READ_SAVES + saves > 0:
                        read.add(id(n.inputs[0]))
                        self.floats.add(n)
                        self.compared |= compared
                read |= self.inputs_read(n, inner, inner_invariant)
            found.update(id(node.inputs[j + offset]) for j, t in enumerate(graph.inputs)
                         if id(t) in read)
        return found

    def _readers_in(self, graph):
        """id(tensor) -> the nodes of `graph` reading it (once per read)."""
        found = self._readers.get(id(graph))
        if found is None:
            found = self._readers[id(graph)] = {}
            for n in graph.nodes:
                for t in n.inputs:
                    found.setdefault(id(t), []).append(n)
        return found

    def _python_float_reads(self, tensor, graph, origin, invariant, compared):
        """What holding float32 `tensor` as a Python float saves in its reads in `graph` (ns;
        see scalars.READ_SAVES), or -inf where a read may not take one. Reads that may:
        comparisons, arithmetic with a numpy float32 operand (scalars.python_float_reader),
        and conds whose branches read it so; not an output of the graph.

        `origin` maps the ids of `graph`'s inputs bound to other tensors to them: an operand
        whose origin is a float32 element read may be a Python float itself. A comparison
        with a loop-invariant float32 scalar (its id in `invariant`) compares with a Python
        float copy of it; the ids of those are added to `compared`.
        """
        if any(t is tensor for t in graph.outputs):
            return -math.inf

        def may_be_python_float(t):
            t = origin.get(id(t), t)
            return not t.node.is_source and scalars.float_element_read(t.node)

        def python_operand(t):  # a constant, or a loop-invariant scalar (then it is copied)
            t = origin.get(id(t), t)
            if t.node.is_constant:
                return True
            if id(t) in invariant and t.dtype == tensor.dtype and t.shape == ():
                compared.add(id(t))
                return True
            return False

        saves = 0
        for n in dict.fromkeys(self._readers_in(graph).get(id(tensor), ())):
            if _OPERAND_OFFSET.get(n.op) == 1 and n.inputs[0] is not tensor:  # a cond
                for _, branch in n.subgraphs():
                    inner = branch_origin(branch, n, origin)
                    saves += sum(self._python_float_reads(t, branch, inner, invariant, compared)
                                 for t, u in zip(branch.inputs, n.inputs[1:]) if u is tensor)
                continue
            saving = scalars.python_float_reader(n, tensor, may_be_python_float, python_operand)
            if saving is None:
                return -math.inf
            saves += saving
        return saves


def branch_origin(branch, cond, origin):
    """id of each input of `branch` (a graph of `cond`) -> the tensor the code binds it to:
    the cond's operand, or that operand's own origin in `origin` (branches are inlined)."""
    return {id(t): origin.get(id(u), u) for t, u in zip(branch.inputs, cond.inputs[1:])}

