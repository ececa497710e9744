"""tf.switch_case: runs one of several functions picked by an integer, as the `switch_case` op.

Eagerly (or with a Python/eager index) only the picked function runs. With a symbolic index
every function is traced into a subgraph (attrs `branch_0` ... `branch_{n-1}`, the default
last) of one `switch_case` node, laid out like `cond`: `inputs = [branch_index, *operands]`.
An index outside `[0, n)` runs the last subgraph: `default` when given, else the last of
`branch_fns` (as TensorFlow's `Case`).
"""
from runtime import context
from runtime import control_flow
from runtime import dtypes
from runtime.ops import control_flow_ops
from runtime.ops import registry
from runtime.tensor import SymbolicTensor
from runtime.tensor import Tensor
from runtime.tensor_conversion import convert_to_tensor
from runtime.graph import leaked_eager_error
from runtime import control_flow_grad
from runtime.ops import math_ops

__all__ = ["switch_case"]


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """Returns `branch_fns[branch_index]()`, or `default()` for an index out of range.

    Args:
        branch_index: A scalar integer Tensor or Python int.
        branch_fns: A list of zero-argument callables, a list of (int, callable) pairs, or a
            dict mapping int to callable; the keys must be 0, 1, ..., n-1.
        default: Optional zero-argument callable run for an index outside [0, n). Without
            it, the last function of `branch_fns` is the default.
        name: Optional node name.

    Returns:
        The structure returned by the functions (all must return the same nested structure
        with the same dtypes; shapes are merged, differing dims -> None).

    Raises:
        TypeError: if `branch_fns` holds something other than callables, or `branch_index`
            is not an integer scalar, or the branch dtypes differ.
        ValueError: if `branch_fns` is empty, its keys are not 0..n-1, or the branch
            structures differ.
    """
    fns = _canonical_branches(branch_fns)
    labels = [f"branch_fns[{i}]" for i in range(len(fns))]
    if default is not None:
        if not callable(default):
            raise TypeError(f"switch_case: default must be a callable, found "
                            f"{type(default).__name__}: {default!r}.")
        fns.append(default)
        labels.append("default")
    if hasattr(branch_index, "_as_tensor") and not isinstance(branch_index, Tensor):
        branch_index = branch_index._as_tensor()
    index = convert_to_tensor(branch_index)
    if not index.dtype.is_integer or (index.shape is not None and len(index.shape) != 0):
        raise TypeError(f"switch_case expects a scalar integer branch_index, found "
                        f"{index.dtype.name} tensor of shape {index.shape}. Cast it with "
                        f"tf.cast(x, tf.int32) or reduce it to a scalar first.")
    if not isinstance(index, SymbolicTensor):
        return fns[_choose(index.numpy(), len(fns))]()
    graph = context.get_graph()
    if graph is None:
        raise leaked_eager_error(index)
    if index.dtype is not dtypes.int32:
        index = math_ops.cast(index, dtypes.int32)
    base = name or "switch_case"
    branches = [(f"branch_{i}", f"{base}_branch_{i}", fn, label)
                for i, (fn, label) in enumerate(zip(fns, labels))]
    return control_flow.add_branch_node(graph, "switch_case", graph.capture(index), branches,
                                        base, control_flow.record_gradient)


def _canonical_branches(branch_fns):
    """Returns the functions of `branch_fns` as a list in key order, checking the keys."""
    if isinstance(branch_fns, dict):
        pairs = list(branch_fns.items())
    elif isinstance(branch_fns, (list, tuple)):
        pairs = [item if isinstance(item, tuple) and len(item) == 2 else (i, item)
                 for i, item in enumerate(branch_fns)]
    else:
        raise TypeError(f"switch_case: branch_fns must be a list of callables, a list of "
                        f"(int, callable) pairs or a dict, found {type(branch_fns).__name__}.")
    if not pairs:
        raise ValueError("switch_case: branch_fns must hold at least one function.")
    for key, fn in pairs:
        if not isinstance(key, int) or isinstance(key, bool):
            raise TypeError(f"switch_case: branch_fns keys must be ints, found {key!r}.")
        if not callable(fn):
            raise TypeError(f"switch_case: branch_fns[{key}] must be a callable, found "
                            f"{type(fn).__name__}: {fn!r}.")
    pairs.sort(key=lambda pair: pair[0])
    keys = [key for key, _ in pairs]
    if keys != list(range(len(pairs))):
        raise ValueError(f"switch_case: branch_fns keys must be 0, 1, ..., {len(pairs) - 1}, "
                         f"found {keys}.")
    return [fn for _, fn in pairs]


def _choose(index, count):
    """The branch an index runs: itself when in [0, count), else the last (the default)."""
    index = int(index)
    return index if 0 <= index < count else count - 1


def _keys(node):
    return [key for key, _ in node.subgraphs()]


def _emit(ctx, node, depth):
    """`if i == 0: ... elif i == 1: ... else: <last>` with the branches inlined."""
    ctx.materialize_all(node.inputs, depth)
    index = ctx.value(node.inputs[0])
    operands = [ctx.value(t) for t in node.inputs[1:]]
    names = ctx.output_names(node)
    keys = _keys(node)
    for i, key in enumerate(keys[:-1]):
        ctx.line(depth, f"{'if' if i == 0 else 'elif'} {index} == {i}:", node)
        ctx.branch(node.attrs[key], operands, names, depth + 1, node.inputs[1:])
    inner = depth
    if len(keys) > 1:
        ctx.line(depth, "else:", node)
        inner = depth + 1
    ctx.branch(node.attrs[keys[-1]], operands, names, inner, node.inputs[1:])
    for t, name in zip(node.outputs, names):
        ctx.set_value(t, name)


def _vjp(op, *dys):
    """A switch_case on the same index whose branches return their branch's vjp."""
    return control_flow_grad.branch_vjp(op, dys, _keys(op.node),
                                        lambda fns: switch_case(op.inputs[0], fns))


registry.register_structured(
    "switch_case", tf_name="Case",
    interpret=control_flow_ops.branch_interpret(_keys, _choose), emit=_emit,
    prune=control_flow_ops.branch_prune(_keys), vjp=_vjp)
