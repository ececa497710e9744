"""The gradient of `while` when a tape records the gradient itself (second-order gradients).

`control_flow_grad.while_vjp` makes the forward loop push every iteration onto a stack that
its backward loop pops: fast, but a pop is a side channel no tape can differentiate. When an
active tape of the current graph records the backward computation (nested GradientTapes,
a tape inside a tf.function around another tape's `gradient`), `while_vjp` builds this
differentiable form instead, out of pure ops only:

    count = the trip count (the forward loop run again, with a counter)
    for k = count - 1 down to 0:
        v_k = the loop variables after k iterations (the body run k times from the inputs)
        (dv, dcaptured, dvariables) += the body's vector-Jacobian product at v_k

Recomputing `v_k` costs O(count^2) body runs; it is only used for gradients of gradients,
and the recorded ops differentiate again like any others (the outer gradient of this
backward loop uses the fast form unless a third tape records it).
"""
from runtime import context
from runtime import dtypes
from runtime.control_flow_grad import _floating
from runtime.control_flow_grad import _is_variable
from runtime.control_flow_grad import _subgraph_vjp
from runtime.control_flow_grad import _sum
from runtime.control_flow_grad import _zeros_like
from runtime.control_flow_grad import placed
from runtime.control_flow_grad import replay
from runtime.gradients import _current_graph
from runtime.control_flow import while_loop

_VARIANT = dtypes.variant


def recorded_here(values):
    """True when an active tape of the current graph tracks one of `values` (the loop's
    inputs and upstream gradients): it will record the gradient built from them."""
    graph = _current_graph()
    keys = {id(v) for v in values if v is not None}
    return any(tape._recording and tape._graph is graph and not keys.isdisjoint(tape._tracked)
               for tape in context._state.tapes)


def _refuse_lists(op, loop):
    """A loop carrying TensorArrays (tf.map_fn, tf.scan, lists appended in a staged loop):
    recomputing it would not differentiate the element lists correctly, so say so."""
    if any(t.dtype is _VARIANT for t in list(loop.loop_in) + loop.captured):
        raise NotImplementedError(
            f"A gradient of a gradient through the staged loop '{op.node.name}', which carries "
            f"a TensorArray (tf.map_fn, tf.scan, or a list appended in a staged loop), is not "
            f"supported. Write the loop over tensors without lists, or take the second "
            f"derivative eagerly (outside tf.function).")


class _Loop:
    """The forward loop's pieces: its inputs split by role, and its cond and body replayed."""

    def __init__(self, op):
        node = op.node
        self.n = n = node.attrs["num_loop_vars"]
        self.n_inputs = len(op.inputs) - len([v for v in op.inputs if _is_variable(v)])
        self.loop_in = list(op.inputs[:n])
        self.captured = list(op.inputs[n:self.n_inputs])
        self.cond_graph = node.attrs["cond_graph"]
        self.body_graph = node.attrs["body_graph"]

    def test(self, values):
        return replay(self.cond_graph, list(values) + self.captured)[0]

    def step(self, values):
        return tuple(replay(self.body_graph, list(values) + self.captured))

    def trip_count(self):
        """The number of iterations, from the loop run again with a counter."""
        final = while_loop(lambda i, *v: self.test(v),
                           lambda i, *v: (i + 1,) + self.step(v),
                           (0,) + tuple(self.loop_in))
        return final[0]

    def state_after(self, k):
        """The loop variables after `k` iterations (the body run k times)."""
        if self.n == 0:
            return ()
        final = while_loop(lambda j, *v: j < k, lambda j, *v: (j + 1,) + self.step(v),
                           (0,) + tuple(self.loop_in))
        return tuple(final[1:])


def while_vjp_recomputed(op, *dys):
    """`while`'s gradient rule out of pure ops (see the module docstring)."""
    loop = _Loop(op)
    _refuse_lists(op, loop)
    n, n_inputs = loop.n, loop.n_inputs
    var_index = [k for k in range(len(op.inputs) - n_inputs)
                 if op.needs_gradient(n_inputs + k)]
    variables = [op.inputs[n_inputs + k] for k in var_index]
    lv_index = _floating(loop.loop_in)
    cap_index = [j for j in _floating(loop.captured) if op.needs_gradient(n + j)]
    if not lv_index:
        return [None] * len(op.inputs)
    outputs = op.node.outputs
    init_d = [dys[i] if dys[i] is not None else _zeros_like(outputs[i]) for i in lv_index]
    init_c = [_zeros_like(loop.captured[j]) for j in cap_index]
    init_v = [_zeros_like(v.read_value()) for v in variables]
    k1, k2 = len(init_d), len(init_d) + len(init_c)
    in_index = lv_index + [n + j for j in cap_index]

    def body_fn(k, *acc):
        operands = list(loop.state_after(k)) + loop.captured
        grads = _subgraph_vjp(loop.body_graph, operands, variables,
                              list(zip(lv_index, acc[:k1])), in_index)
        new_c = [_sum(a, g) for a, g in zip(acc[k1:k2], grads[k1:k1 + len(cap_index)])]
        new_v = [a + g for a, g in zip(acc[k2:], grads[k1 + len(cap_index):])]
        return (k - 1,) + tuple(grads[:k1]) + tuple(new_c) + tuple(new_v)

    final = while_loop(lambda k, *acc: k >= 0, body_fn,
                       (loop.trip_count() - 1,) + tuple(init_d + init_c + init_v))[1:]
    return placed(len(op.inputs), (lv_index, final[:k1]),
                  ([n + j for j in cap_index], final[k1:k2]),
                  ([n_inputs + j for j in var_index], final[k2:]))
