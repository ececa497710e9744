"""tf.map_fn and tf.scan: a function over the rows of tensors, as one while_loop.

Both run the same way eagerly and in graphs: a `while_loop` over the row index that reads
rows from TensorArrays and writes results to TensorArrays (TensorFlow's own construction).
In a graph that is one `while` node, whatever the number of rows; eagerly the loop runs in
Python. `fn` is converted by AutoGraph as any function called from converted code is, so it
may use Python control flow on tensors.
"""
import autograph

from runtime import dtypes
from runtime import nest
from runtime.control_flow import while_loop
from runtime.ops import array_ops
from runtime.ops import common
from runtime.tensor import TensorSpec
from runtime.tensor_array import TensorArray
from runtime import context
from runtime.graph import Graph


def _call(fn, args):
    # converted_call leaves runtime and library functions alone and converts user code.
    return autograph.converted_call(fn, tuple(args), None)


def _rows(elems, op_name):
    flat = [common.to_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{op_name} expected at least one tensor in elems, found none.")
    for t in flat:
        if t.shape is not None and len(t.shape) == 0:
            raise ValueError(f"{op_name}: elems must be tensors of rank >= 1 (their rows are "
                             f"iterated), found a scalar of dtype {t.dtype.name}.")
    n = array_ops.shape(flat[0])[0]
    arrays = [TensorArray(t.dtype, size=n, element_shape=None if t.shape is None
                          else tuple(t.shape[1:])).unstack(t) for t in flat]
    return flat, n, arrays


def _specs(signature, op_name):
    """The flat dtypes of fn's outputs, from fn_output_signature (TensorSpecs or dtypes)."""
    out = []
    for leaf in nest.flatten(signature):
        if isinstance(leaf, TensorSpec):
            out.append(leaf.dtype)
        else:
            try:
                out.append(dtypes.as_dtype(leaf))
            except (TypeError, ValueError, KeyError):
                raise TypeError(f"{op_name}: fn_output_signature must hold TensorSpecs or "
                                f"dtypes, found {leaf!r}.") from None
    return out


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """Applies `fn` to each row of `elems` and stacks the results (tf.map_fn).

    Args:
        fn: A callable taking one row (with the structure of `elems`).
        elems: A tensor, or a nested structure of tensors with the same first dimension.
        dtype: TensorFlow's old name for fn_output_signature.
        parallel_iterations, back_prop, swap_memory, infer_shape: accepted for TensorFlow's
            signature; rows run one after another.
        name: Unused (node names come from the ops).
        fn_output_signature: The structure of fn's result as TensorSpecs or dtypes; needed
            when it differs from `elems`' structure or dtypes.

    Returns:
        The results stacked along a new first dimension, with fn's output structure.

    Raises:
        ValueError: for scalar elems.
        TypeError: when fn's results do not match the output signature.
    """
    del parallel_iterations, back_prop, swap_memory, infer_shape, name
    flat, n, arrays = _rows(elems, "map_fn")
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if signature is None:
        out_structure = elems
        out_dtypes = [t.dtype for t in flat]
    else:
        out_structure = signature
        out_dtypes = _specs(signature, "map_fn")
    outs = [TensorArray(d, size=n) for d in out_dtypes]

    def body(i, *outs):
        row = nest.pack_sequence_as(elems, [a.read(i) for a in arrays])
        result = nest.flatten(_call(fn, [row]))
        if len(result) != len(outs):
            raise TypeError(f"map_fn: fn returned {len(result)} tensor(s) but the output "
                            f"signature has {len(outs)}; pass fn_output_signature.")
        return (i + 1,) + tuple(o.write(i, common.to_tensor(r, o.dtype))
                                for o, r in zip(outs, result))

    final = while_loop(lambda i, *_: i < n, body, (0,) + tuple(outs))
    stacked = [o.stack() for o in final[1:]]
    return nest.pack_sequence_as(out_structure, stacked)


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """Folds `fn` over the rows of `elems`, stacking every accumulator (tf.scan).

    `acc = fn(acc, row)` for each row in order (reverse order with reverse=True); the
    result stacks the accumulators. Without an initializer the first row is the first
    accumulator (and the first output).

    Args:
        fn: A callable (accumulator, row) -> new accumulator (same structure and dtypes).
        elems: A tensor, or a nested structure of tensors with the same first dimension.
        initializer: The first accumulator (a tensor or structure), or None.
        parallel_iterations, back_prop, swap_memory, infer_shape: accepted for TensorFlow's
            signature.
        reverse: Scan from the last row to the first (outputs stay in row order).
        name: Unused.

    Returns:
        The stacked accumulators, with the accumulator's structure.

    Raises:
        ValueError: for scalar elems.
    """
    del parallel_iterations, back_prop, swap_memory, infer_shape, name
    flat, n, arrays = _rows(elems, "scan")

    def row(i):
        return nest.pack_sequence_as(elems, [a.read(i) for a in arrays])

    if initializer is None:
        structure = elems
        first = n - 1 if reverse else 0
        acc = [a.read(first) for a in arrays]
        start = 1
    else:
        structure = initializer
        acc = [common.to_tensor(v) for v in nest.flatten(initializer)]
        start = 0
    outs = [TensorArray(a.dtype, size=n) for a in acc]
    if initializer is None:
        first_index = n - 1 if reverse else 0
        outs = [o.write(first_index, a) for o, a in zip(outs, acc)]

    def body(k, acc, outs):
        i = n - 1 - k if reverse else k
        new = nest.flatten(_call(fn, [nest.pack_sequence_as(structure, list(acc)), row(i)]))
        new = [common.to_tensor(v, a.dtype) for v, a in zip(new, acc)]
        return k + 1, tuple(new), tuple(o.write(i, v) for o, v in zip(outs, new))

    _, _, final = while_loop(lambda k, acc, outs: k < n, body,
                             (start, tuple(acc), tuple(outs)))
    return nest.pack_sequence_as(structure, [o.stack() for o in final])


__all__ = ["map_fn", "scan"]


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """fn over the rows of `elems`, stacked (tf.vectorized_map).

    TensorFlow vectorizes `fn` with pfor; here it runs as `map_fn` (one staged loop in a
    graph), which gives the same values. The output signature comes from tracing `fn` once
    on a row in a scratch graph, so fn's Python side effects run once more while tracing.
    """
    flat = [common.to_tensor(e) for e in nest.flatten(elems)]
    scratch = Graph("vectorized_map_fn", outer_graph=context.get_graph())
    with context.graph_scope(scratch):
        rows = [scratch.placeholder(t.dtype, None if t.shape is None else t.shape[1:])
                for t in flat]
        out = _call(fn, [nest.pack_sequence_as(elems, rows)])
    signature = nest.map_structure(
        lambda t: TensorSpec(common.to_tensor(t).shape, common.to_tensor(t).dtype), out)
    return map_fn(fn, elems, fn_output_signature=signature)
