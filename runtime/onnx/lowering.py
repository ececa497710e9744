"""ONNX lowering rules, one per runtime op: `LOWER[op](ctx) -> ONNX output names`.

The table is keyed by registered op names and checked at import (JAX's
`mlir.register_lowering` style): a rule for an op that does not exist, or an op both lowered
and listed in `NO_LOWERING`, fails the import. Structured ops lower to ONNX control flow:
`cond` to `If`, `switch_case` to nested `If`s, `while` to `Loop` (the condition inlined before
the loop and at the end of the body). An op without a rule raises UnsupportedOpError naming
it, with the reason from `NO_LOWERING` when it has one.
"""
import numpy as np

from runtime.ops import registry
from runtime.onnx.context import UnsupportedOpError

OPSET = 18  # the ONNX opset the rules write (Reduce* take axes as an input from 18)

LOWER = {}  # op -> rule(ctx) -> list of ONNX names

# Ops that have no ONNX equivalent, and why (for the error).
NO_LOWERING = {
    "print": "ONNX has no op that prints",
    "assert": "ONNX has no op that raises an error",
    "check_defined": "ONNX has no op that raises an error",
    "py_function": "it calls Python code",
    "random_uniform": "ONNX's random ops do not draw the runtime's numbers",
    "random_normal": "ONNX's random ops do not draw the runtime's numbers",
    "assign_variable": "ONNX models have no variables to assign (reads are exported as "
                       "constants)",
    "assign_add_variable": "ONNX models have no variables to assign",
    "assign_sub_variable": "ONNX models have no variables to assign",
    "tensor_array_new": "TensorArrays are not exported (stack the values with tf.stack or "
                        "concatenate them instead)",
}


def rule(*ops):
    """Decorator registering a lowering rule for each op of `ops`."""
    def register(fn):
        for op in ops:
            LOWER[op] = fn
        return fn
    return register


def unsupported(node):
    """The UnsupportedOpError for a node whose op has no rule."""
    why = NO_LOWERING.get(node.op, "the ONNX exporter has no lowering rule for it")
    return UnsupportedOpError(f"Node {node.name!r} (op {node.op!r}) cannot be exported to "
                              f"ONNX: {why}.")


# -- one ONNX op per runtime op ------------------------------------------------------------

_SAME = {"add": "Add", "subtract": "Sub", "multiply": "Mul", "maximum": "Max",
         "minimum": "Min", "abs": "Abs", "negative": "Neg", "exp": "Exp", "log": "Log",
         "sqrt": "Sqrt", "tanh": "Tanh", "sigmoid": "Sigmoid", "sin": "Sin", "cos": "Cos",
         "floor": "Floor", "ceil": "Ceil", "sign": "Sign", "round": "Round",
         "reciprocal": "Reciprocal", "equal": "Equal", "less": "Less",
         "less_equal": "LessOrEqual", "greater": "Greater", "greater_equal": "GreaterOrEqual",
         "logical_and": "And", "logical_or": "Or", "logical_xor": "Xor", "logical_not": "Not",
         "identity": "Identity", "stop_gradient": "Identity", "select": "Where",
         "bitwise_and": "BitwiseAnd", "bitwise_or": "BitwiseOr", "bitwise_xor": "BitwiseXor",
         "invert": "BitwiseNot", "pow": "Pow"}


def _same(onnx_op):
    return lambda ctx: ctx.emit(onnx_op, ctx.inputs)


for _op, _onnx_op in _SAME.items():
    LOWER[_op] = _same(_onnx_op)


@rule("not_equal")
def _not_equal(ctx):
    return ctx.emit("Not", ctx.emit("Equal", ctx.inputs))


@rule("square")
def _square(ctx):
    return ctx.emit("Mul", [ctx.inputs[0], ctx.inputs[0]])


@rule("squared_difference")
def _squared_difference(ctx):
    d = ctx.emit("Sub", ctx.inputs)[0]
    return ctx.emit("Mul", [d, d])


@rule("rsqrt")
def _rsqrt(ctx):
    return ctx.emit("Reciprocal", ctx.emit("Sqrt", ctx.inputs))


@rule("truediv")
def _truediv(ctx):
    x, y = ctx.inputs
    if ctx.node.inputs[0].dtype is not ctx.node.outputs[0].dtype:  # ints divide as floats
        to = ctx.dtype(ctx.node.outputs[0])
        x, y = ctx.emit("Cast", [x], to=to)[0], ctx.emit("Cast", [y], to=to)[0]
    return ctx.emit("Div", [x, y])


@rule("floormod")
def _floormod(ctx):
    x, y = ctx.inputs
    if ctx.node.inputs[0].dtype.is_integer:
        return ctx.emit("Mod", [x, y], fmod=0)  # the divisor's sign, as Python's %
    q = ctx.emit("Floor", ctx.emit("Div", [x, y]))[0]
    return ctx.emit("Sub", [x, ctx.emit("Mul", [q, y])[0]])


@rule("floordiv")
def _floordiv(ctx):
    x, y = ctx.inputs
    if ctx.node.inputs[0].dtype.is_integer:  # (x - x mod y) / y divides exactly
        r = ctx.emit("Mod", [x, y], fmod=0)[0]
        return ctx.emit("Div", [ctx.emit("Sub", [x, r])[0], y])
    return ctx.emit("Floor", ctx.emit("Div", [x, y]))


@rule("cast")
def _cast(ctx):
    return ctx.emit("Cast", ctx.inputs, to=ctx.dtype(ctx.node.outputs[0]))


@rule("matmul")
def _matmul(ctx):
    a, b = ctx.inputs
    for flag, position in (("transpose_a", 0), ("transpose_b", 1)):
        if ctx.attrs.get(flag):
            rank = len(ctx.node.inputs[position].shape)
            perm = list(range(rank - 2)) + [rank - 1, rank - 2]
            transposed = ctx.emit("Transpose", [ctx.inputs[position]], perm=perm)[0]
            a, b = (transposed, b) if position == 0 else (a, transposed)
    return ctx.emit("MatMul", [a, b])


# -- reductions --------------------------------------------------------------------------

_REDUCE = {"reduce_sum": "ReduceSum", "reduce_mean": "ReduceMean", "reduce_max": "ReduceMax",
           "reduce_min": "ReduceMin", "reduce_prod": "ReduceProd",
           "reduce_any": "ReduceMax", "reduce_all": "ReduceMin"}


@rule(*_REDUCE)
def _reduce(ctx):
    x = ctx.inputs[0]
    boolean = ctx.node.inputs[0].dtype.is_bool
    if boolean:
        # any: a count of the true elements above 0; all: no false element. A count, not a
        # max or min over 0s and 1s, whose value on no element onnxruntime versions disagree
        # on (1.23 gives all([]) False).
        if ctx.node.op == "reduce_all":
            x = ctx.emit("Not", [x])[0]
        x = ctx.emit("Cast", [x], to=_INT64)[0]
    axis = ctx.attrs.get("axis")
    inputs = [x]
    if axis is not None:
        inputs.append(ctx.int64(np.atleast_1d(axis)))
    op = "ReduceSum" if boolean else _REDUCE[ctx.node.op]
    out = ctx.emit(op, inputs, keepdims=int(bool(ctx.attrs.get("keepdims"))))
    if not boolean:
        return out
    zero = ctx.int64(np.int64(0))
    return ctx.emit("Equal" if ctx.node.op == "reduce_all" else "Greater", out + [zero])


_INT32, _BOOL, _INT64 = 6, 9, 7  # TensorProto.INT32, BOOL, INT64


@rule("argmax", "argmin")
def _arg(ctx):
    onnx_op = "ArgMax" if ctx.node.op == "argmax" else "ArgMin"
    out = ctx.emit(onnx_op, ctx.inputs, axis=int(ctx.attrs["axis"]), keepdims=0)
    return ctx.emit("Cast", out, to=ctx.dtype(ctx.node.outputs[0]))
