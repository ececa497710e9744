"""ONNX lowering rules of the array ops: shapes, creation, joining, indexing, constants."""
import numpy as np

from runtime.graph import CONSTANT
from runtime.onnx.lowering import _INT64
from runtime.onnx.lowering import rule
from runtime.ops.slicing import TensorIndex
from runtime.ops.state_ops import handle_variable

_BIG = np.iinfo(np.int64).max


@rule(CONSTANT)
def _constant(ctx):
    if ctx.node.outputs[0].dtype.np_dtype == object:
        raise ctx.unsupported("string tensors are not exported")
    return [ctx.constant(ctx.attrs["value"])]


@rule("var_handle")
def _var_handle(ctx):
    """No ONNX value: the reads of the variable it names export its value (below)."""
    return [""]


@rule("read_variable")
def _read_variable(ctx):
    """A variable's value when exported: the model holds it as a constant (frozen)."""
    return [ctx.constant(handle_variable(ctx.node.inputs[0])._value)]


def _as_int64(ctx, name):
    return ctx.emit("Cast", [name], to=_INT64)[0]


@rule("reshape")
def _reshape(ctx):
    shape = ctx.attrs.get("shape")
    shape = ctx.int64(shape) if shape is not None else _as_int64(ctx, ctx.inputs[1])
    return ctx.emit("Reshape", [ctx.inputs[0], shape], allowzero=1)


@rule("transpose")
def _transpose(ctx):
    perm = ctx.attrs.get("perm")
    if perm is None:
        return ctx.emit("Transpose", ctx.inputs[:1])
    return ctx.emit("Transpose", ctx.inputs[:1], perm=[int(p) for p in perm])


@rule("expand_dims")
def _expand_dims(ctx):
    return ctx.emit("Unsqueeze", [ctx.inputs[0], ctx.int64([int(ctx.attrs["axis"])])])


@rule("squeeze")
def _squeeze(ctx):
    axis = ctx.attrs.get("axis")
    if axis is None:
        return ctx.emit("Squeeze", ctx.inputs[:1])
    return ctx.emit("Squeeze", [ctx.inputs[0], ctx.int64(np.atleast_1d(axis))])


@rule("concat")
def _concat(ctx):
    return ctx.emit("Concat", ctx.inputs, axis=int(ctx.attrs["axis"]))


@rule("stack")
def _stack(ctx):
    axis = int(ctx.attrs.get("axis", 0))
    axes = ctx.int64([axis])
    parts = [ctx.emit("Unsqueeze", [x, axes])[0] for x in ctx.inputs]
    return ctx.emit("Concat", parts, axis=axis)


def _fill_value(ctx, value):
    from onnx import numpy_helper
    dtype = ctx.node.outputs[0].dtype.np_dtype
    return numpy_helper.from_array(np.array([value], dtype=dtype))


@rule("zeros", "ones")
def _zeros(ctx):
    shape = ctx.attrs.get("shape")
    shape = ctx.int64(shape) if shape is not None else _as_int64(ctx, ctx.inputs[0])
    value = 0 if ctx.node.op == "zeros" else 1
    return ctx.emit("ConstantOfShape", [shape], value=_fill_value(ctx, value))


@rule("zeros_like", "ones_like")
def _zeros_like(ctx):
    shape = ctx.emit("Shape", ctx.inputs[:1])[0]
    value = 0 if ctx.node.op == "zeros_like" else 1
    return ctx.emit("ConstantOfShape", [shape], value=_fill_value(ctx, value))


@rule("fill")
def _fill(ctx):
    return ctx.emit("Expand", [ctx.inputs[1], _as_int64(ctx, ctx.inputs[0])])


@rule("range")
def _range(ctx):
    to = ctx.dtype(ctx.node.outputs[0])
    return ctx.emit("Range", [ctx.emit("Cast", [x], to=to)[0] for x in ctx.inputs])


@rule("shape", "size")
def _shape(ctx):
    out = ctx.emit("Shape" if ctx.node.op == "shape" else "Size", ctx.inputs[:1])
    return ctx.emit("Cast", out, to=ctx.dtype(ctx.node.outputs[0]))


@rule("rank")
def _rank(ctx):
    out = ctx.emit("Size", ctx.emit("Shape", ctx.inputs[:1]))
    return ctx.emit("Cast", out, to=ctx.dtype(ctx.node.outputs[0]))


@rule("gather")
def _gather(ctx):
    return ctx.emit("Gather", ctx.inputs[:2], axis=int(ctx.attrs.get("axis", 0)))


@rule("einsum")
def _einsum(ctx):
    return ctx.emit("Einsum", ctx.inputs, equation=ctx.attrs["equation"])


@rule("getitem")
def _getitem(ctx):
    """Integers, tensors and slices (no newaxis, no Ellipsis): one Slice, then a Gather per
    integer index from the last axis to the first."""
    spec = ctx.attrs["spec"]
    if any(item is None or item is Ellipsis for item in spec):
        raise ctx.unsupported("a getitem with tf.newaxis or ... is not exported")
    slices = [(axis, item) for axis, item in enumerate(spec) if isinstance(item, slice)]
    x = ctx.inputs[0]
    if slices:
        bounds = [_slice_bounds(ctx, item) for _, item in slices]
        starts, ends, steps = (ctx.emit("Concat", [b[k] for b in bounds], axis=0)[0]
                               for k in range(3))
        x = ctx.emit("Slice", [x, starts, ends, ctx.int64([a for a, _ in slices]), steps])[0]
    for axis in reversed(range(len(spec))):
        item = spec[axis]
        if not isinstance(item, slice):
            x = ctx.emit("Gather", [x, _index(ctx, item)], axis=axis)[0]
    return [x]


def _index(ctx, item, vector=False):
    """An index of a spec as an int64 ONNX value (a scalar, or a 1-vector)."""
    if isinstance(item, TensorIndex):
        name = _as_int64(ctx, ctx.inputs[item.position])
        return ctx.emit("Reshape", [name, ctx.int64([1])])[0] if vector else name
    return ctx.int64([int(item)] if vector else int(item))


def _slice_bounds(ctx, item):
    step = 1 if item.step is None else item.step
    if isinstance(step, TensorIndex) and (item.start is None or item.stop is None):
        raise ctx.unsupported("a slice with a tensor step and an open end is not exported")
    forward = isinstance(step, TensorIndex) or step > 0
    start = item.start if item.start is not None else (0 if forward else _BIG)
    stop = item.stop if item.stop is not None else (_BIG if forward else -_BIG - 1)
    return [_index(ctx, v, vector=True) for v in (start, stop, step)]
