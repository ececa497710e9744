"""Loop shapes the code generator writes as Python's own loops: `for i in range(i, n)`.

A staged `while i < n: ...; i = i + 1` with a loop-invariant bound is Python's counted loop,
and a counter read only as `1 + i` is the value `range` itself can iterate.
"""
import operator

from runtime.ops import registry


def counting_loop(cond_graph, body_graph, num_loop_vars, test=None, ignore=None):
    """Recognises `while i < bound: ...; i = i + 1` with a loop-invariant bound.

    Python's `for i in range(i, bound)` runs it: the same values of i (i < bound <= the
    dtype's max, so i + 1 never wraps) with the increment and the test in C.

    Args:
        cond_graph: The while loop's condition subgraph.
        body_graph: Its body subgraph.
        num_loop_vars: The number of loop variables (the first inputs of both subgraphs).
        test: The tensor of cond_graph the loop tests (default: its output).
        ignore: Nodes of cond_graph the loop does not emit (a test's exit-flag conjunct).

    Returns:
        (k, bound, increment): the loop variable's index, the bound tensor (of cond_graph) and
        the body node computing i + 1; or None.
    """
    test = cond_graph.outputs[0] if test is None else test
    tests = [n for n in cond_graph.nodes if not n.is_source and n not in (ignore or ())]
    if len(tests) != 1 or tests[0].outputs[0] is not test:
        return None
    test = tests[0]
    if registry.OPS[test.op].kernel is not operator.lt or test.attrs:
        return None
    i, bound = test.inputs
    if not all(t.shape == () and t.dtype.np_dtype.kind == "i" for t in (i, bound)):
        return None
    inputs = list(cond_graph.inputs)
    k = next((j for j, t in enumerate(inputs) if t is i), None)
    invariant = bound.node.is_constant or any(
        t is bound for t in inputs[num_loop_vars:])
    if k is None or k >= num_loop_vars or not invariant:
        return None
    increment = body_graph.outputs[k].node
    counter = body_graph.inputs[k]
    if increment.is_source or registry.OPS[increment.op].kernel is not operator.add or \
            increment.attrs:
        return None
    others = [t for t in increment.inputs if t is not counter]
    if len(others) != 1 or not others[0].node.is_constant or \
            int(others[0].node.attrs["value"]) != 1:
        return None
    reads = sum(1 for n in body_graph.nodes for t in n.inputs if t is increment.outputs[0])
    reads += sum(1 for t in body_graph.outputs if t is increment.outputs[0])
    return (k, bound, increment) if reads == 1 else None


def offset_counter(body_graph, k, increment):
    """Recognises a counting loop's counter read only as `1 + i` (besides its increment).

    `for i in range(1, n + 1)` stages as a counter from 0 and `1 + i` in the body: Python can
    iterate the value itself, `for v in range(start + 1, bound + 1)`. With an offset of 1 the
    value stays in range (it is at most the bound); other offsets could wrap, so they are left.

    Args:
        body_graph: The loop's body subgraph.
        k: The counter's loop-variable index (counting_loop).
        increment: The body node computing i + 1 (counting_loop).

    Returns:
        The node computing 1 + i, or None.
    """
    counter = body_graph.inputs[k]
    if any(t is counter for t in body_graph.outputs):
        return None
    readers = [n for n in body_graph.nodes for t in n.inputs if t is counter]
    if len(readers) != 2 or increment not in readers:
        return None
    value = readers[0] if readers[1] is increment else readers[1]
    if value is increment or value.is_source or value.attrs or \
            registry.OPS[value.op].kernel is not operator.add:
        return None
    others = [t for t in value.inputs if t is not counter]
    if len(others) != 1 or not others[0].node.is_constant or \
            int(others[0].node.attrs["value"]) != 1 or value.outputs[0].dtype != counter.dtype:
        return None
    return value

