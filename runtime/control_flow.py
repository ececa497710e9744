"""cond and while_loop: plain Python when eager, subgraph-holding nodes when building a graph."""

import numpy as np

from runtime import context
from runtime import dtypes
from runtime import nest
from runtime.graph import Graph
from runtime.graph import output_name
from runtime.ops import common
from runtime.ops import control_flow_ops  # noqa: F401 - registers the cond and while ops
from runtime.ops import promotion
from runtime.tensor import EagerTensor
from runtime.tensor import SymbolicTensor
from runtime.tensor import Tensor
from runtime.tensor_conversion import convert_to_tensor
from runtime.tensor_array import TensorArray
from runtime import weak_types  # after runtime.ops, whose casts it uses
from runtime.graph import leaked_eager_error
from runtime import control_flow_grad
from runtime.ops import math_ops

_MAX_RELAXATIONS = 8  # shape relaxation only loses information, so this bounds retracing
_MAX_WIDENINGS = 8  # each widens a dtype (bool -> int32 -> int64 -> float64 at most per variable)

flatten = nest.flatten
flatten_with_paths = nest.flatten_with_paths
pack_sequence_as = nest.pack_sequence_as


def _structure_signature(structure):
    """Describes a structure ignoring leaves, treating lists and tuples alike."""
    return nest.structure_signature(structure, check_types=False)


def _describe(value):
    if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
        shape = value.shape
        shape = "<unknown>" if shape is None else tuple(shape)
        return f"{value.dtype.name} tensor of shape {shape}"
    if isinstance(value, TensorArray):
        return f"TensorArray of {value.dtype.name}"
    return f"{type(value).__name__} {value!r}"


def _fn_name(fn):
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


# -- leaves: tensors and TensorArrays ---------------------------------------------------------

def _to_graph_tensor(leaf, graph, what):
    """Converts a structure leaf to a tensor of `graph` (TensorArrays give their handle)."""
    if isinstance(leaf, TensorArray):
        return graph.capture(leaf._graph_handle())
    if leaf is None:
        raise TypeError(f"{what} is None; tf.cond/tf.while_loop values must be tensors "
                        f"(or values convertible to tensors).")
    try:
        tensor = convert_to_tensor(leaf)
    except TypeError as e:
        raise TypeError(f"{what} must be a tensor or convertible to one: {e}") from None
    return graph.capture(tensor)


def _rebuild_leaf(template, tensor):
    if isinstance(template, TensorArray):
        return template._with_handle(tensor)
    return tensor


def _merge_shapes(a, b):
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


# -- cond -------------------------------------------------------------------------------------

def cond(pred, true_fn=None, false_fn=None, name=None):
    """Returns true_fn() if pred else false_fn().

    Eagerly (or with a Python/eager predicate) only the chosen function runs. With a symbolic
    predicate both functions are traced into subgraphs of a `cond` node; they must return the
    same nested structure with the same dtypes (shapes are merged, differing dims -> None).

    Args:
        pred: A scalar bool Tensor or Python bool.
        true_fn: Zero-argument callable.
        false_fn: Zero-argument callable.
        name: Optional node name.

    Returns:
        The structure returned by the branches.

    Raises:
        TypeError: if pred is not a bool scalar or the branch dtypes differ.
        ValueError: if the branch structures differ.
    """
    if true_fn is None or false_fn is None:
        raise TypeError("cond needs both true_fn and false_fn.")
    if hasattr(pred, "_as_tensor") and not isinstance(pred, Tensor):
        pred = pred._as_tensor()
    if not isinstance(pred, SymbolicTensor):
        return true_fn() if bool(pred) else false_fn()
    graph = context.get_graph()
    if graph is None:
        raise leaked_eager_error(pred)
    if pred.dtype is not dtypes.bool or (pred.shape is not None and len(pred.shape) != 0):
        raise TypeError(f"cond expects a scalar bool predicate, found {_describe(pred)} "
                        f"('{pred.name}'). Compare it or reduce it (tf.reduce_any) first.")
    pred = graph.capture(pred)
    base = name or "cond"
    return add_branch_node(graph, "cond", pred, [
        ("true_graph", f"{base}_true", true_fn, "true_fn"),
        ("false_graph", f"{base}_false", false_fn, "false_fn")], base, record_gradient)


def record_gradient(node):
    """Records a structured node just added to the graph on the active tapes, if any."""
    if context._state.tapes:
        control_flow_grad.record_node(node)


def _branch_specs(traced):
    """Checks that the traced branches return one structure and dtypes; sets each subgraph's
    outputs and returns the node's output specs, (merged shape, dtype) per output.

    Args:
        traced: (attr name, subgraph, returned structure, function, label) per branch.
    """
    _, _, first_out, first_fn, first_label = traced[0]
    for _, _, out, fn, label in traced[1:]:
        if _structure_signature(first_out) != _structure_signature(out):
            raise ValueError(
                f"{first_label} ({_fn_name(first_fn)}) and {label} ({_fn_name(fn)}) must "
                f"return the same nested structure, found {_summary(first_out)} and "
                f"{_summary(out)}.")
    flats = weak_types.join_branch_outputs(
        traced, [_branch_outputs(sub, out, label) for _, sub, out, _, label in traced])
    specs = []
    for i, first in enumerate(flats[0]):
        shape = first.shape
        for (_, _, _, fn, label), flat in zip(traced[1:], flats[1:]):
            other = flat[i]
            if other.dtype is not first.dtype:
                raise TypeError(
                    f"{first_label} ({_fn_name(first_fn)}) and {label} ({_fn_name(fn)}) "
                    f"return different dtypes for output #{i}: {first.dtype.name} and "
                    f"{other.dtype.name}. Use tf.cast so both branches return the same dtype.")
            shape = _merge_shapes(shape, other.shape)
        specs.append((shape, first.dtype))
    for (_, sub, _, _, _), flat in zip(traced, flats):
        sub.outputs = flat
    return specs


def add_branch_node(graph, op, selector, branches, name, on_node=None):
    """Traces branch functions into subgraphs and adds a branching node (cond, switch_case).

    Every branch gets the same operands (all the tensors any branch captures) and must return
    the same nested structure with the same dtypes; shapes are merged (differing dims ->
    None). The node's inputs are `[selector, *operands]` and its attrs the subgraphs.

    Args:
        graph: The graph being built.
        op: The registered op name.
        selector: The captured tensor choosing the branch (the node's first input).
        branches: (attr name, subgraph name, zero-argument callable, label for messages) per
            branch, in branch order.
        name: The node name.
        on_node: Optional callable given the new node (e.g. to record it on gradient tapes).

    Returns:
        The structure the branches return, holding the node's outputs.

    Raises:
        TypeError: if the branch dtypes differ.
        ValueError: if the branch structures differ.
    """
    traced = []
    for key, sub_name, fn, label in branches:
        sub, out = _trace_branch(graph, sub_name, fn)
        traced.append((key, sub, out, fn, label))
    first_out = traced[0][2]
    specs = _branch_specs(traced)
    subs = [sub for _, sub, _, _, _ in traced]
    operands = _bind_captures(graph, subs, prefix=[])
    stateful = any(sub.is_stateful() for sub in subs)
    node = graph.add_node(op, [selector] + operands, {key: sub for key, sub, _, _, _ in traced},
                          specs, name, stateful)
    if on_node is not None:
        on_node(node)
    weak_types.mark_outputs(node.outputs, weak_types.all_weak(traced))
    leaves = flatten(first_out)
    if not leaves and first_out is None:
        return None
    return pack_sequence_as(first_out, [_rebuild_leaf(template, t)
                                        for template, t in zip(leaves, node.outputs)])


def _summary(structure):
    sig = _structure_signature(structure)
    return "a single value" if sig == "*" else f"structure {sig}"


def _trace_branch(graph, name, fn):
    sub = Graph(name, outer_graph=graph)
    with context.graph_scope(sub):
        out = fn()
    return sub, out


def _branch_outputs(sub, out, what):
    with context.graph_scope(sub):
        return [_to_graph_tensor(leaf, sub, f"{what} output{path}")
                for path, leaf in flatten_with_paths(out)]


def _bind_captures(graph, subgraphs, prefix):
    """Gives every subgraph the same inputs: `prefix` placeholders + all captured tensors.

    Args:
        graph: The graph the control-flow node goes into.
        subgraphs: The traced subgraphs.
        prefix: Per-subgraph lists of leading placeholders (loop vars), or [] for none.

    Returns:
        The outer tensors (of `graph`) feeding the captured inputs, in order.
    """
    operands = []
    seen = {}
    for sub in subgraphs:
        for outer, _ in sub.captures:
            if id(outer) not in seen:
                seen[id(outer)] = len(operands)
                operands.append(outer)
    for k, sub in enumerate(subgraphs):
        own = {id(outer): ph for outer, ph in sub.captures}
        inputs = list(prefix[k]) if prefix else []
        for outer in operands:
            ph = own.get(id(outer))
            if ph is None:
                ph = sub.placeholder(outer.dtype, outer.shape, name=output_name(outer))
            inputs.append(ph)
        sub.inputs = inputs
    return [graph.capture(t) for t in operands]


# -- while_loop -------------------------------------------------------------------------------

def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """Repeats `body` while `cond` is true.

    Eagerly it is a Python loop. While building a graph it adds a `while` node holding the
    traced condition and body. Loop vars may be nested tuples/lists/dicts/namedtuples of
    tensors (Python numbers become tensors) and TensorArrays. A dtype or structure change in
    the body is an error naming the loop variable; shapes that change are relaxed to unknown
    dimensions.

    Args:
        cond: Callable taking the loop vars (unpacked) and returning a scalar bool.
        body: Callable taking the loop vars (unpacked) and returning new loop vars.
        loop_vars: A tuple or list of loop variables.
        shape_invariants: Unused (shapes are relaxed automatically).
        parallel_iterations: Unused.
        back_prop: Unused.
        swap_memory: Unused.
        maximum_iterations: Optional int or scalar int tensor bounding the iterations.
        name: Optional node name.

    Returns:
        The final loop vars, with the structure of `loop_vars`.

    Raises:
        TypeError: if a loop variable changes dtype, or cond does not return a bool scalar.
        ValueError: if the body changes the structure or the rank of a loop variable.
    """
    return _while(cond, body, loop_vars, maximum_iterations, name)


def named_while_loop(cond, body, loop_vars, var_names, maximum_iterations=None):
    """`while_loop` whose loop variables carry names in the graph (autograph's loops).

    Args:
        cond, body, loop_vars, maximum_iterations: as for `while_loop`.
        var_names: a name for each leaf of `loop_vars` (the user's variable names): the
            placeholders of the loop's subgraphs get them, so `str(graph)` and the Graphviz
            picture show `x` rather than `loop_var`.

    Returns:
        The final loop vars, with the structure of `loop_vars`.
    """
    return _while(cond, body, loop_vars, maximum_iterations, None, var_names)


def _while(cond, body, loop_vars, maximum_iterations, name, var_names=None):
    if not isinstance(loop_vars, (list, tuple)) or nest.is_namedtuple(loop_vars):
        raise TypeError(f"loop_vars must be a tuple or list of loop variables, found "
                        f"{type(loop_vars).__name__}. Wrap a single variable: (x,).")
    single = len(loop_vars) == 1

    def call_body(*args):
        out = body(*args)
        if single and (not isinstance(out, (list, tuple)) or nest.is_namedtuple(out)):
            out = type(loop_vars)([out])
        return out

    graph = context.get_graph()
    if graph is None:
        return _eager_while(cond, call_body, loop_vars, maximum_iterations)
    spec = _WhileSpec(cond, call_body, name or "while", var_names)
    if maximum_iterations is not None:
        return _bounded_graph_while(graph, spec, loop_vars, maximum_iterations)
    return _graph_while(graph, spec, loop_vars)


def _eager_while(cond, body, loop_vars, maximum_iterations):
    # Python numbers become tensors, as they do in a graph (TensorFlow returns tensors).
    loop_vars = _numbers_to_tensors(loop_vars)
    values = loop_vars
    if maximum_iterations is not None:
        maximum_iterations = int(maximum_iterations)
    count = 0
    while (maximum_iterations is None or count < maximum_iterations) and bool(cond(*values)):
        out = body(*values)
        _check_structure(body, values, out)
        values = out
        count += 1
    if type(values) is not type(loop_vars) and not nest.is_namedtuple(loop_vars):
        values = type(loop_vars)(values)
    return _numbers_to_tensors(values)


def _numbers_to_tensors(structure):
    """Converts the Python and numpy number leaves of a structure to tensors."""
    leaves = flatten(structure)
    if not any(isinstance(leaf, _NUMBERS) for leaf in leaves):
        return structure
    return pack_sequence_as(structure, [
        convert_to_tensor(leaf) if isinstance(leaf, _NUMBERS) else leaf for leaf in leaves])


_NUMBERS = (bool, int, float, complex, np.generic, np.ndarray)


def _check_structure(body, before, after):
    if _structure_signature(before) != _structure_signature(after):
        raise ValueError(
            f"The body ({_fn_name(body)}) of while_loop must return the same structure as "
            f"loop_vars: expected {_summary(before)}, found {_summary(after)}.")


class _WhileSpec:
    """What a graph while loop traces: its functions, its name and its variables' names.

    Attributes:
        cond, body: The functions traced into the subgraphs.
        name: The node's name.
        var_names: The user's names of the loop variables, or None.
        user_body: The user's body, for messages (`body` may wrap it).
        nested: The loop variables are (counter, the user's loop variables): a bounded loop.
    """

    __slots__ = ("cond", "body", "name", "var_names", "user_body", "nested")

    def __init__(self, cond, body, name, var_names=None, user_body=None, nested=False):
        self.cond, self.body, self.name, self.var_names = cond, body, name, var_names
        self.user_body = user_body or body
        self.nested = nested


def _bounded_graph_while(graph, spec, loop_vars, maximum_iterations):
    cond, body, var_names = spec.cond, spec.body, spec.var_names
    limit = convert_to_tensor(maximum_iterations)
    if not limit.dtype.is_integer:
        raise TypeError(f"maximum_iterations must be an integer, found {_describe(limit)}.")

    def bounded_cond(count, values):
        return math_ops.logical_and(math_ops.less(count, math_ops.cast(limit, dtypes.int32)),
                                    common.to_tensor(cond(*values), dtypes.bool))

    def bounded_body(count, values):
        return (count + 1, body(*values))

    bounded = _WhileSpec(bounded_cond, bounded_body, spec.name,
                         var_names and ("loop_counter",) + tuple(var_names), body, nested=True)
    _count, values = _graph_while(
        graph, bounded, (EagerTensor(dtypes.int32.as_numpy_dtype(0)), loop_vars))
    return values


class _Loop:
    """The loop variables of one graph while loop being traced."""

    def __init__(self, loop_vars, paths_leaves, init, user_body, nested, var_names):
        self.loop_vars = loop_vars
        self.paths_leaves = paths_leaves  # (path, leaf) of each flat loop variable
        self.leaves = [leaf for _, leaf in paths_leaves]
        self.init = init  # the initial tensors of the outer graph
        # loop variable index -> the wider dtype that the body gives a Python number entering
        # the loop (it is traced again with that dtype: weak typing, see `_widened`)
        self.widen = {}
        self.user_body = user_body  # the user's body, for messages
        self.nested = nested  # loop_vars is (counter, user loop vars): a bounded loop
        # the placeholder names of the subgraphs' loop variables
        # an autograph loop (named): Python's types, an int may become a float (`widened`)
        self.python = var_names is not None
        self.var_names = (tuple(var_names) if var_names is not None
                          and len(var_names) == len(init) else ("loop_var",) * len(init))


def _graph_while(graph, spec, loop_vars):
    cond, body, name, var_names = spec.cond, spec.body, spec.name, spec.var_names
    user_body, nested = spec.user_body, spec.nested
    paths_leaves = flatten_with_paths(loop_vars)
    init = []
    for path, leaf in paths_leaves:
        if type(leaf) in (int, float, bool):  # carried by itself: runtime.config.enable_x64
            leaf = convert_to_tensor(leaf, weak_types.carried_dtype(leaf))
        init.append(_to_graph_tensor(leaf, graph, f"loop variable loop_vars{path}"))
    loop = _Loop(loop_vars, paths_leaves, init, user_body, nested, var_names)
    return _graph_while_traced(graph, cond, body, loop, name, var_names)


def _graph_while_traced(graph, cond, body, loop, name, var_names):
    init, leaves, loop_vars, user_body = loop.init, loop.leaves, loop.loop_vars, loop.user_body
    shapes = [t.shape if t.shape is None else tuple(t.shape) for t in init]
    widenings = 0
    for _attempt in range(_MAX_RELAXATIONS + 1):
        traced = _trace_loop(graph, name, cond, body, loop, shapes)
        cond_graph, body_graph, out_flat, out_leaves = traced
        while loop.widen and widenings < _MAX_WIDENINGS:
            # a Python number that the body makes a wider tensor: trace again with that dtype
            for i, dtype in loop.widen.items():
                if isinstance(leaves[i], TensorArray):  # a list the body widens: cast on entry
                    leaves[i] = leaves[i]._widened(dtype)
                    loop.paths_leaves[i] = (loop.paths_leaves[i][0], leaves[i])
                    init[i] = _to_graph_tensor(leaves[i], graph, "a widened list")
                    continue
                init[i] = (graph.capture(convert_to_tensor(leaves[i], dtype))
                           if type(leaves[i]) in (int, float, bool)  # exact: 0.1 not cast
                           else promotion.cast(init[i], dtype))
            loop.widen.clear()
            widenings += 1
            traced = _trace_loop(graph, name, cond, body, loop, shapes)
            cond_graph, body_graph, out_flat, out_leaves = traced
        if loop.widen:
            i, dtype = next(iter(loop.widen.items()))
            raise TypeError(f"The body ({_fn_name(user_body)}) of while_loop changes the dtype "
                            f"of loop variable #{i}: it enters the loop as "
                            f"{_describe(init[i])} but the body returns {dtype.name}.")
        relaxed = [_merge_shapes(s, t.shape if t.shape is None else tuple(t.shape))
                   for s, t in zip(shapes, out_flat)]
        if relaxed == shapes:
            break
        shapes = relaxed
    prefix = [list(cond_graph.inputs[:len(init)]), list(body_graph.inputs[:len(init)])]
    operands = _bind_captures(graph, [cond_graph, body_graph], prefix)
    stateful = cond_graph.is_stateful() or body_graph.is_stateful()
    specs = [(s, t.dtype) for s, t in zip(shapes, init)]
    node = graph.add_node("while", init + operands,
                          {"cond_graph": cond_graph, "body_graph": body_graph,
                           "num_loop_vars": len(init)}, specs, name, stateful)
    if var_names is not None:
        node.output_names = loop.var_names
    record_gradient(node)
    weak_types.mark_loop_outputs(node.outputs, leaves, out_leaves)
    # TensorArrays come back with the metadata (element shape) the body gave them.
    templates = [after if isinstance(after, TensorArray) else before
                 for before, after in zip(leaves, out_leaves)]
    return pack_sequence_as(loop_vars, [_rebuild_leaf(template, t)
                                        for template, t in zip(templates, node.outputs)])


def _trace_loop(graph, name, cond, body, loop, shapes):
    loop_vars, paths_leaves, init = loop.loop_vars, loop.paths_leaves, loop.init
    user_body, nested = loop.user_body, loop.nested
    cond_graph = Graph(f"{name}_cond", outer_graph=graph)
    with context.graph_scope(cond_graph):
        args = _loop_placeholders(cond_graph, loop, shapes)
        result = cond(*args)
        if hasattr(result, "_as_tensor") and not isinstance(result, Tensor):
            result = result._as_tensor()
        result = _to_graph_tensor(result, cond_graph, f"The result of cond ({_fn_name(cond)})")
        if result.dtype is not dtypes.bool or (result.shape is not None and result.shape):
            raise TypeError(f"The cond ({_fn_name(cond)}) of while_loop must return a scalar "
                            f"bool, found {_describe(result)}.")
        cond_graph.outputs = [result]
    body_graph = Graph(f"{name}_body", outer_graph=graph)
    with context.graph_scope(body_graph):
        args = _loop_placeholders(body_graph, loop, shapes)
        out = body(*args)
        _check_structure(user_body, loop_vars, out)
        out_paths = flatten_with_paths(out)
        out_flat = []
        for i, ((path, before), (_, leaf)) in enumerate(zip(paths_leaves, out_paths)):
            shown = path[len("[1]"):] if nested else path
            what = f"loop variable #{i - 1 if nested else i} (loop_vars{shown})"
            if type(leaf) in (int, float, bool):  # weakly typed: adopts the loop's dtype
                dtype = init[i].dtype
                leaf = common.adopt_dtype(leaf, promotion.weak_dtype(leaf, dtype) or dtype)
            tensor = _to_graph_tensor(leaf, body_graph, f"The body's value for {what}")
            widened = weak_types.widened(before, init[i].dtype, tensor.dtype, loop.python)
            if widened is not None:
                loop.widen[i] = widened
            elif weak_types.holds(init[i].dtype, tensor.dtype):
                tensor = promotion.cast(tensor, init[i].dtype)
            elif tensor.dtype is not init[i].dtype:
                raise TypeError(
                    f"The body ({_fn_name(user_body)}) of while_loop changes the dtype of "
                    f"{what}: it enters the loop as {_describe(init[i])} but the body returns "
                    f"{_describe(tensor)}. Keep the dtype fixed (e.g. with tf.cast).")
            if isinstance(before, TensorArray) and leaf.__class__ is not before.__class__:
                raise TypeError(f"The body ({_fn_name(user_body)}) of while_loop must return a "
                                f"TensorArray for {what}, found {_describe(leaf)}.")
            if isinstance(before, TensorArray) and leaf.dtype is not before.dtype:
                loop.widen[i] = leaf.dtype  # a list the body widened (autograph_lists.py)
            s0, s1 = shapes[i], tensor.shape
            if s0 is not None and s1 is not None and len(s0) != len(s1):
                raise ValueError(
                    f"The body ({_fn_name(user_body)}) of while_loop changes the rank of "
                    f"{what}: it enters the loop with shape {tuple(s0)} but the body returns "
                    f"shape {tuple(s1)}.")
            out_flat.append(tensor)
        body_graph.outputs = out_flat
    return cond_graph, body_graph, out_flat, [leaf for _, leaf in out_paths]


def _loop_placeholders(sub, loop, shapes):
    phs = [sub.placeholder(t.dtype, s, name=name)
           for t, s, name in zip(loop.init, shapes, loop.var_names)]
    for ph, leaf in zip(phs, loop.leaves):
        if weak_types.weak_type(leaf) is not None:  # stands for a Python number
            ph._weak = weak_types.weak_type(leaf)
    rebuilt = [_rebuild_leaf(template, ph) for template, ph in zip(loop.leaves, phs)]
    return pack_sequence_as(loop.loop_vars, rebuilt)


__all__ = ["cond", "while_loop", "flatten", "flatten_with_paths", "pack_sequence_as"]
