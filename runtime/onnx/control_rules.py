"""ONNX lowering rules of the structured ops: cond -> If, switch_case -> Ifs, while -> Loop.

ONNX subgraphs read the values of enclosing graphs by name, so a branch or a loop body binds
its captured operands to the outer names and has no inputs of its own (a Loop body has the
iteration number, the condition and the loop-carried values).
"""
from runtime.onnx.context import onnx_dtype
from runtime.onnx.lowering import _BOOL
from runtime.onnx.lowering import _INT64
from runtime.onnx.lowering import rule


@rule("cond")
def _cond(ctx):
    """`cond(pred, *operands)`: an If whose branches compute true_graph and false_graph."""
    operands = ctx.inputs[1:]
    then_branch = ctx.subgraph(ctx.attrs["true_graph"], operands, "then")
    else_branch = ctx.subgraph(ctx.attrs["false_graph"], operands, "else")
    if not ctx.node.outputs:  # branches that lowered have no effects: nothing to compute
        return []
    return ctx.emit("If", ctx.inputs[:1], len(ctx.node.outputs), then_branch=then_branch,
                    else_branch=else_branch)


@rule("switch_case")
def _switch_case(ctx):
    """`switch_case(index, *operands)`: If index == k, k = 0 .. n-2, each else the next; the
    last branch is also taken for an index out of range (TensorFlow's default)."""
    index, operands = ctx.inputs[0], ctx.inputs[1:]
    count = sum(1 for key in ctx.attrs if key.startswith("branch_"))
    branches = [ctx.attrs[f"branch_{k}"] for k in range(count)]
    if not ctx.node.outputs:  # lowered only to check that the branches have no effects
        for k, branch in enumerate(branches):
            ctx.subgraph(branch, operands, f"branch_{k}")
        return []
    dtypes = [t.dtype for t in ctx.node.outputs]

    def chain(k, builder):
        if k == count - 1:
            return builder.inline(branches[k], operands)
        test = builder.emit("Equal", [index, builder.constant(_scalar_like(ctx, k))])[0]
        then_branch = builder.subgraph(branches[k], operands, f"branch_{k}")
        else_branch = builder.graph_of(lambda child: chain(k + 1, child), dtypes, "otherwise")
        return builder.emit("If", [test], len(dtypes), then_branch=then_branch,
                            else_branch=else_branch)

    return chain(0, ctx.builder)


def _scalar_like(ctx, value):
    import numpy as np
    return np.asarray(value, dtype=ctx.node.inputs[0].dtype.np_dtype)


@rule("while")
def _while(ctx):
    """`while(*loop_vars, *captured)`: a Loop with no trip count, its condition computed
    before the loop (inlined) and after each body (inside the body)."""
    from onnx import helper
    n = ctx.attrs["num_loop_vars"]
    cond_graph, body_graph = ctx.attrs["cond_graph"], ctx.attrs["body_graph"]
    loop_vars, captured = ctx.inputs[:n], ctx.inputs[n:]
    first = ctx.inline(cond_graph, ctx.inputs)[0]
    builder = ctx.builder
    names = [builder.fresh("iteration"), builder.fresh("condition")] + [
        builder.fresh(f"{ctx.node.name}_var_{i}") for i in range(n)]
    where = f"node {ctx.node.name!r}"
    inputs = [helper.make_tensor_value_info(names[0], _INT64, []),
              helper.make_tensor_value_info(names[1], _BOOL, [])] + [
        helper.make_tensor_value_info(name, onnx_dtype(t.dtype, where), None)
        for name, t in zip(names[2:], ctx.node.outputs)]

    def body(child):
        new = child.inline(body_graph, names[2:] + captured)
        return child.inline(cond_graph, new + captured) + new

    dtypes = [cond_graph.outputs[0].dtype] + [t.dtype for t in ctx.node.outputs]
    graph = ctx.graph_of(body, dtypes, "body", inputs)
    return ctx.emit("Loop", ["", first] + loop_vars, n, body=graph)
