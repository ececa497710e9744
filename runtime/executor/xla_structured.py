"""XLA lowerings of the structured ops (cond, switch_case, while: lax.cond, lax.switch,
lax.while_loop) and of the stateful ones (Variables, TensorArrays), keyed by op in `xla.LOWER`.

The variables' values are part of every loop's carry and every branch's operands and results,
so a loop or a branch that assigns a variable passes the new value on (the program is
functional; the call stores the final values back). A TensorArray is one array of its fixed
size and element shape (runtime/executor/array_buffers.py finds them, as for the generated
numpy code): a write is `lax.dynamic_update_slice`, a read `lax.dynamic_index_in_dim` (an
index out of range is clamped where the numpy executors raise), a stack the array.
"""
import contextlib

import jax.numpy as jnp
import numpy as np
from jax import lax

from runtime.executor import xla
from runtime.executor.xla import register_lowering
from runtime.ops import registry


def _branch(ctx, graph):
    """A function lax.cond/lax.switch calls: (operands, state) -> (outputs, state)."""
    def run(operands, state):
        inner = ctx.with_state(state)
        outs = inner.run(graph, list(operands))
        return [jnp.asarray(v) for v in outs], inner.state_values()
    return run


@contextlib.contextmanager
def _typed(node):
    """Turns JAX's TypeError for values whose shapes differ between branches or iterations
    into a NotLowerableError naming the node."""
    try:
        yield
    except TypeError as e:
        raise xla.not_lowerable(node, "XLA needs each output of a branch, and each loop "
                                      "variable, to keep one shape and dtype; JAX said: "
                                      + str(e).splitlines()[0].rstrip(".")) from None


# A cond whose branches hold at most this many ops, none stateful or structured but conds
# of the same kind (an `elif` chain), lowers to both branches and a select (`jnp.where`): a
# compiled program cannot raise, so computing the branch not taken changes nothing, and in a
# loop a select costs less than a lax.cond.
SELECT_OPS = 12


def _select_cost(graph):
    """The ops a branch computes when its conds are selects, or None when it has an op that
    must not run unless its branch is taken (stateful, or structured other than such a cond).
    """
    total = 0
    for node in graph.nodes:
        if node.is_source:
            continue
        op = registry.OPS[node.op]
        if xla.LOWER.get(node.op) is _cond:  # a cond, by its lowering rule: this module's
            inner = [node.attrs["false_graph"], node.attrs["true_graph"]]
            if not _selectable(inner):
                return None
            total += 1 + sum(_select_cost(g) for g in inner)
        elif op.stateful or op.structured:
            return None
        else:
            total += 1
    return total


def _selectable(graphs):
    costs = [_select_cost(graph) for graph in graphs]
    if None in costs or max(costs) > SELECT_OPS:
        return False
    return all(t.dtype.name != "variant" for t in graphs[0].outputs)


@register_lowering("cond")
def _cond(ctx, node, pred, *operands):
    attrs = node.attrs
    graphs = [attrs["false_graph"], attrs["true_graph"]]
    if xla.is_known(pred):
        return ctx.run(graphs[int(bool(pred))], list(operands))
    if _selectable(graphs):  # both computed, one picked: what XLA runs fastest in a loop
        taken, other = ctx.run(graphs[1], list(operands)), ctx.run(graphs[0], list(operands))
        if all(np.shape(a) == np.shape(b) for a, b in zip(taken, other)):
            return [jnp.where(pred, a, b) for a, b in zip(taken, other)]
    with _typed(node):
        results, state = lax.cond(pred, _branch(ctx, graphs[1]), _branch(ctx, graphs[0]),
                                  operands, ctx.state_values())
    ctx.state.update(enumerate(state))
    return results


@register_lowering("switch_case")
def _switch_case(ctx, node, index, *operands):
    graphs = [node.attrs[f"branch_{k}"] for k in range(len(node.subgraphs()))]
    last = len(graphs) - 1
    if xla.is_known(index):  # out of range: the default, the last branch (as the kernels do)
        k = int(index)
        return ctx.run(graphs[k if 0 <= k < last else last], list(operands))
    index = jnp.where((index >= 0) & (index < last), index, last)
    with _typed(node):
        results, state = lax.switch(index, [_branch(ctx, g) for g in graphs], operands,
                                    ctx.state_values())
    ctx.state.update(enumerate(state))
    return results


@register_lowering("while")
def _while(ctx, node, *inputs):
    attrs = node.attrs
    count = attrs["num_loop_vars"]
    cond_graph, body_graph = attrs["cond_graph"], attrs["body_graph"]
    captured = list(inputs[count:])

    def test(carry):
        loop, state = carry
        return jnp.asarray(ctx.with_state(state).run(cond_graph, list(loop) + captured)[0])

    def body(carry):
        loop, state = carry
        inner = ctx.with_state(state)
        outs = inner.run(body_graph, list(loop) + captured)
        return tuple(_like(v, t) for v, t in zip(outs, node.outputs)), inner.state_values()

    start = tuple(_like(v, t) for v, t in zip(inputs[:count], node.outputs))
    with _typed(node):
        loop, state = lax.while_loop(test, body, (start, ctx.state_values()))
    ctx.state.update(enumerate(state))
    return loop


def _like(value, tensor):
    """`value` as a jax value of `tensor`'s dtype (a loop variable keeps one type)."""
    return jnp.asarray(value, dtype=tensor.dtype.np_dtype) if tensor.dtype.name != "variant" \
        else value


# -- Variables ---------------------------------------------------------------------------------

@register_lowering("var_handle")
def _var_handle(ctx, node):
    return node.attrs["resource"].resolve()  # the Variable: the ops below find its state


@register_lowering("read_variable")
def _read(ctx, node, variable):
    return ctx.state[ctx.variable_index(variable)]


def _assign(update):
    def rule(ctx, node, variable, value):
        i = ctx.variable_index(variable)
        new = update(ctx.state[i], value)
        if np.shape(new) != tuple(variable.shape):
            raise xla.not_lowerable(node, f"it assigns a value of shape {list(np.shape(new))} "
                                          f"to a variable of shape {list(variable.shape)}")
        ctx.state[i] = jnp.asarray(new, dtype=variable.dtype.np_dtype)
        return ctx.state[i]
    return rule


register_lowering("assign_variable")(_assign(lambda old, value: value))
register_lowering("assign_add_variable")(_assign(lambda old, value: old + value))
register_lowering("assign_sub_variable")(_assign(lambda old, value: old - value))


# -- TensorArrays ------------------------------------------------------------------------------

def _buffer(ctx, node, handle):
    buffer = ctx.buffers.buffer(handle)
    if buffer is None:
        raise xla.not_lowerable(node, "only a TensorArray of fixed size (no dynamic_size) "
                                      "whose writes have one fully known element shape, and "
                                      "that is only written, read, sized and stacked, lowers "
                                      "(to one fixed-size array)")
    return buffer


@register_lowering("tensor_array_new")
def _ta_new(ctx, node, size):
    buffer = _buffer(ctx, node, node.outputs[0])
    if not xla.is_known(size):
        raise xla.not_lowerable(node, "its size depends on the values, and XLA needs static "
                                      "shapes")
    return jnp.zeros((max(int(size), 0),) + buffer.element_shape, buffer.np_dtype)


@register_lowering("tensor_array_write")
def _ta_write(ctx, node, handle, index, value):
    _buffer(ctx, node, node.inputs[0])
    # A negative index is an error on the numpy executors: no wrap-around select for it.
    update = jnp.expand_dims(jnp.asarray(value, handle.dtype), 0)
    return lax.dynamic_update_slice(handle, update, (index,) + (0,) * (handle.ndim - 1),
                                    allow_negative_indices=False)


@register_lowering("tensor_array_read")
def _ta_read(ctx, node, handle, index):
    _buffer(ctx, node, node.inputs[0])
    return lax.dynamic_index_in_dim(handle, index, 0, keepdims=False,
                                    allow_negative_indices=False)


@register_lowering("tensor_array_size")
def _ta_size(ctx, node, handle):
    return np.int32(handle.shape[0])


@register_lowering("tensor_array_stack")
def _ta_stack(ctx, node, handle):
    _buffer(ctx, node, node.inputs[0])
    return handle
