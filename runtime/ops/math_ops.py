"""Elementwise math, comparison, logical and bitwise ops, cast and matmul."""
import operator

import numpy as np

from runtime import context
from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.ops import common
from runtime.ops import promotion
from runtime.ops.array_ops import where
from runtime.ops.registry import OPS
from runtime.ops.registry import OpKind
from runtime.ops.registry import apply
from runtime.ops.registry import check_dtype_allowed
from runtime.ops.registry import check_same_dtype
from runtime.ops.registry import deffuse
from runtime.ops.registry import register
from runtime.tensor import EagerTensor
from runtime.tensor import SymbolicTensor

_TRUEDIV = {dtypes.int8: np.float32, dtypes.int16: np.float32, dtypes.uint8: np.float32,
            dtypes.uint16: np.float32, dtypes.int32: np.float64, dtypes.int64: np.float64,
            dtypes.uint32: np.float64, dtypes.uint64: np.float64}
# The result dtype of true division of each int dtype (the executors read it too).
TRUEDIV_NP = {d.np_dtype: np.dtype(t) for d, t in _TRUEDIV.items()}

_BINARY_DOC = """Computes `{expr}` elementwise, with numpy broadcasting.

    A Python or numpy operand adopts the dtype of the tensor operand; two tensors must
    share one dtype (TensorFlow does not promote).

    Args:
        x: A Tensor or value.
        y: A Tensor or value.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.

    Raises:
        InvalidArgumentError: on dtype mismatch, unsupported dtype or incompatible shapes.
    """

_UNARY_DOC = """Computes `{expr}` elementwise.

    Args:
        x: A Tensor or value.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.

    Raises:
        InvalidArgumentError: if the dtype is not supported.
    """


def _infer_binary(x, y):
    return common.broadcast_shapes(x.shape, y.shape), x.dtype


def _infer_compare(x, y):
    return common.broadcast_shapes(x.shape, y.shape), dtypes.bool


def _infer_truediv(x, y):
    dtype = x.dtype
    if dtype.is_integer:
        dtype = dtypes.as_dtype(_TRUEDIV[dtype])
    return common.broadcast_shapes(x.shape, y.shape), dtype


def _infer_unary(x):
    return x.shape, x.dtype


def _make_binary(opdef, allowed, expr, string_opdef=None):
    allowed = frozenset(allowed)
    allowed_np = frozenset(d.np_dtype for d in allowed if d is not dtypes.string)
    kernel = opdef.kernel
    state = context._state

    def op(x, y, name=None):
        # Fast path: eager numeric tensors (or a tensor and a Python number) of one dtype.
        if type(x) is EagerTensor and not state.stack and not state.tapes:
            xv = x._value
            dtype = xv.dtype
            ty = type(y)
            if ty is EagerTensor:
                yv = y._value
            elif (ty is int and dtype.kind in "iuf") or (ty is float and dtype.kind == "f"):
                try:
                    yv = dtype.type(y)
                except OverflowError:
                    yv = None
            else:
                yv = None
            if yv is not None and yv.dtype == dtype and dtype in allowed_np:
                try:
                    return EagerTensor(kernel(xv, yv))
                except ValueError:
                    pass  # the slow path reports it in TensorFlow's words
        weak = promotion.both_weak(x, y) if opdef.kind is OpKind.ELEMENTWISE else None
        x, y = common.binary_operands(x, y)
        dtype = x.dtype
        if y.dtype is not dtype:
            check_same_dtype(opdef, (x, y))
        if dtype is dtypes.string and string_opdef is not None:
            return apply(string_opdef, [x, y], {}, name)
        if dtype not in allowed:
            check_dtype_allowed(opdef, x, allowed)
        try:
            result = apply(opdef, [x, y], {}, name)
            if weak and type(result) is SymbolicTensor and not result.dtype.is_bool:
                result._weak = float if result.dtype.is_floating else int
            return result
        except ValueError:
            # Shapes that do not broadcast raise TensorFlow's error; any other ValueError
            # (the shapes broadcast) goes on as it is.
            common.broadcast_shapes(x.shape, y.shape, opdef.tf_name)
            raise
    op.__name__ = opdef.name
    op.__qualname__ = opdef.name
    op.__doc__ = _BINARY_DOC.format(expr=expr)
    return op


def _def_binary(name, kernel, allowed, tf_name, expr, kind=OpKind.ELEMENTWISE):
    infer = _infer_compare if kind is OpKind.COMPARISON else _infer_binary
    register(name, infer=infer, kind=kind, tf_name=tf_name)(kernel)
    return _make_binary(OPS[name], allowed, expr)


def _make_unary(opdef, allowed, expr):
    allowed = frozenset(allowed)
    allowed_np = frozenset(d.np_dtype for d in allowed if d is not dtypes.string)
    kernel = opdef.kernel
    state = context._state

    def op(x, name=None):
        if (type(x) is EagerTensor and not state.stack and not state.tapes
                and x._value.dtype in allowed_np):
            return EagerTensor(kernel(x._value))  # fast path: eager, supported dtype
        x = common.to_tensor(x)
        if x.dtype not in allowed:
            check_dtype_allowed(opdef, x, allowed)
        return apply(opdef, [x], {}, name)
    op.__name__ = opdef.name
    op.__qualname__ = opdef.name
    op.__doc__ = _UNARY_DOC.format(expr=expr)
    return op


def _def_unary(name, kernel, allowed, tf_name, expr):
    register(name, infer=_infer_unary, kind=OpKind.ELEMENTWISE, tf_name=tf_name)(kernel)
    return _make_unary(OPS[name], allowed, expr)


def _check_int_divisor(y):
    if y.dtype.kind in "iu" and not np.all(y):
        raise InvalidArgumentError("Integer division by zero. Make sure the divisor has no "
                                   "zeros (or use a float dtype, which gives inf).")


def _truediv_kernel(x, y):
    target = TRUEDIV_NP.get(x.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):  # x / 0 is inf or nan, silently
        if target is not None:
            return np.true_divide(x, y, dtype=target)
        return x / y


def _floordiv_kernel(x, y):
    _check_int_divisor(y)
    return x // y


def _floormod_kernel(x, y):
    _check_int_divisor(y)
    return x % y


def _pow_kernel(x, y):
    if x.dtype.kind in "iu" and np.any(np.asarray(y) < 0):
        raise InvalidArgumentError("Integers to negative integer powers are not allowed. "
                                   "Cast the base to a float dtype first.")
    return x ** y


def _add_strings_kernel(x, y):
    out = x + y
    if type(out) is bytes:  # 0-d string arrays add to a bare bytes object
        return np.array(out, dtype=object)
    return out


register("add", infer=_infer_binary, kind=OpKind.ELEMENTWISE, tf_name="AddV2")(operator.add)
# Strings get their own op so the numeric kernel stays a plain operator.
register("add_strings", infer=_infer_binary, kind=OpKind.ELEMENTWISE,
         tf_name="AddV2")(_add_strings_kernel)
add = _make_binary(OPS["add"], common.NUMERIC, "x + y", OPS["add_strings"])
subtract = _def_binary("subtract", operator.sub, common.NUMERIC, "Sub", "x - y")
multiply = _def_binary("multiply", operator.mul, common.NUMERIC, "Mul", "x * y")
register("truediv", infer=_infer_truediv, kind=OpKind.ELEMENTWISE,
         tf_name="RealDiv")(_truediv_kernel)
divide = _make_binary(OPS["truediv"], common.NUMERIC, "x / y")
truediv = divide
floordiv = _def_binary("floordiv", _floordiv_kernel, common.NUMERIC, "FloorDiv", "x // y")
floor_div = floordiv
floormod = _def_binary("floormod", _floormod_kernel, common.NUMERIC, "FloorMod", "x % y")
mod = floormod
pow = _def_binary("pow", _pow_kernel, common.NUMERIC, "Pow", "x ** y")  # noqa: A001
maximum = _def_binary("maximum", np.maximum, common.NUMERIC, "Maximum", "max(x, y)")
minimum = _def_binary("minimum", np.minimum, common.NUMERIC, "Minimum", "min(x, y)")
squared_difference = _def_binary("squared_difference", lambda x, y: (x - y) * (x - y),
                                 common.NUMERIC, "SquaredDifference", "(x - y) ** 2")
bitwise_and = _def_binary("bitwise_and", operator.and_, common.INTS, "BitwiseAnd", "x & y")
bitwise_or = _def_binary("bitwise_or", operator.or_, common.INTS, "BitwiseOr", "x | y")
bitwise_xor = _def_binary("bitwise_xor", operator.xor, common.INTS, "BitwiseXor", "x ^ y")
left_shift = _def_binary("left_shift", operator.lshift, common.INTS, "LeftShift", "x << y")
right_shift = _def_binary("right_shift", operator.rshift, common.INTS, "RightShift", "x >> y")
logical_and = _def_binary("logical_and", operator.and_, common.BOOLS, "LogicalAnd", "x and y")
logical_or = _def_binary("logical_or", operator.or_, common.BOOLS, "LogicalOr", "x or y")
logical_xor = _def_binary("logical_xor", operator.xor, common.BOOLS, "LogicalXor", "x xor y")

_CMP = common.ALL
equal = _def_binary("equal", np.equal, _CMP, "Equal", "x == y", OpKind.COMPARISON)
not_equal = _def_binary("not_equal", np.not_equal, _CMP, "NotEqual", "x != y",
                        OpKind.COMPARISON)
less = _def_binary("less", operator.lt, common.NUMERIC, "Less", "x < y", OpKind.COMPARISON)
less_equal = _def_binary("less_equal", operator.le, common.NUMERIC, "LessEqual", "x <= y",
                         OpKind.COMPARISON)
greater = _def_binary("greater", operator.gt, common.NUMERIC, "Greater", "x > y",
                      OpKind.COMPARISON)
greater_equal = _def_binary("greater_equal", operator.ge, common.NUMERIC, "GreaterEqual",
                            "x >= y", OpKind.COMPARISON)


def _sigmoid_kernel(x):
    return (1 / (1 + np.exp(-x))).astype(x.dtype, copy=False)


negative = _def_unary("negative", operator.neg, common.SIGNED_NUMERIC, "Neg", "-x")
abs = _def_unary("abs", np.abs, common.SIGNED_NUMERIC, "Abs", "|x|")  # noqa: A001
square = _def_unary("square", np.square, common.NUMERIC, "Square", "x * x")
sqrt = _def_unary("sqrt", np.sqrt, common.FLOATS, "Sqrt", "sqrt(x)")
rsqrt = _def_unary("rsqrt", lambda x: 1 / np.sqrt(x), common.FLOATS, "Rsqrt", "1 / sqrt(x)")
exp = _def_unary("exp", np.exp, common.FLOATS, "Exp", "e ** x")
log = _def_unary("log", np.log, common.FLOATS, "Log", "ln(x)")
tanh = _def_unary("tanh", np.tanh, common.FLOATS, "Tanh", "tanh(x)")
sigmoid = _def_unary("sigmoid", _sigmoid_kernel, common.FLOATS, "Sigmoid", "1 / (1 + e ** -x)")
sin = _def_unary("sin", np.sin, common.FLOATS, "Sin", "sin(x)")
cos = _def_unary("cos", np.cos, common.FLOATS, "Cos", "cos(x)")
floor = _def_unary("floor", np.floor, common.FLOATS, "Floor", "floor(x)")
ceil = _def_unary("ceil", np.ceil, common.FLOATS, "Ceil", "ceil(x)")
round = _def_unary("round", np.round, common.FLOATS, "Round", "round half to even")  # noqa
sign = _def_unary("sign", np.sign, common.SIGNED_NUMERIC, "Sign", "sign(x)")
reciprocal = _def_unary("reciprocal", lambda x: (1 / x).astype(x.dtype, copy=False),
                        common.FLOATS, "Reciprocal", "1 / x")
logical_not = _def_unary("logical_not", np.logical_not, common.BOOLS, "LogicalNot", "not x")
invert = _def_unary("invert", operator.invert, common.INTS, "Invert", "~x")


def logical_and_or_bitwise(x, y, which):
    """Implements Tensor `&`, `|`, `^`: logical for bool tensors, bitwise for integers.

    Args:
        x: First operand.
        y: Second operand.
        which: 'and', 'or' or 'xor'.

    Returns:
        A Tensor.
    """
    x, y = common.binary_operands(x, y)
    if x.dtype is dtypes.bool:
        return {"and": logical_and, "or": logical_or, "xor": logical_xor}[which](x, y)
    return {"and": bitwise_and, "or": bitwise_or, "xor": bitwise_xor}[which](x, y)


def _neutral_fuse(neutral, positions, integers_only):
    """The fusion rule of `x op c` where a rank-0 constant c changes nothing (x * 1, x + 0).

    Only when the result is exactly x: same dtype and static shape as the output, and for
    + and - integer dtypes only (-0.0 + 0.0 is +0.0).
    """
    def fuse(ctx, node, inputs):
        out = node.outputs[0]
        if integers_only and out.dtype.np_dtype.kind not in "iu":
            return None
        for pos in positions:
            value = ctx.value_of(inputs[pos])
            other = inputs[1 - pos]
            if (value is not None and np.shape(value) == () and value == neutral
                    and getattr(value, "dtype", None) == out.dtype.np_dtype
                    and other.dtype is out.dtype and other.shape == out.shape):
                return other
        return None

    return fuse


deffuse("multiply")(_neutral_fuse(1, (0, 1), integers_only=False))
deffuse("add")(_neutral_fuse(0, (0, 1), integers_only=True))
deffuse("subtract")(_neutral_fuse(0, (1,), integers_only=True))


# -- cast -------------------------------------------------------------------------------------

@register("cast", infer=lambda x, dtype: (x.shape, dtype), kind=OpKind.ELEMENTWISE,
          tf_name="Cast")
def _cast_kernel(x, dtype):
    return x.astype(dtype.np_dtype)


# Mantissa bits of a float type, to decide which integer -> float casts are exact.
_MANTISSA = {2: 11, 4: 24, 8: 53}


def is_lossless_cast(src, dst):
    """True when casting any value of dtype `src` to `dst` and back gives the value back.

    Args:
        src: The source DType.
        dst: The target DType.

    Returns:
        A Python bool (False when unsure, e.g. for strings).
    """
    a, b = src.np_dtype, dst.np_dtype
    if a == b:
        return True
    if a.kind == "b":
        return b.kind in "biuf"
    if a.kind == "f":
        return b.kind == "f" and b.itemsize >= a.itemsize
    if a.kind == "i":
        if b.kind == "i":
            return b.itemsize >= a.itemsize
        return b.kind == "f" and _MANTISSA.get(b.itemsize, 0) >= a.itemsize * 8 - 1
    if a.kind == "u":
        if b.kind == "u":
            return b.itemsize >= a.itemsize
        if b.kind == "i":
            return b.itemsize > a.itemsize
        return b.kind == "f" and _MANTISSA.get(b.itemsize, 0) >= a.itemsize * 8
    return False


@deffuse("cast")
def _cast_fuse(ctx, node, inputs):
    """A cast to the dtype the value has disappears; `cast(cast(x, B), C)` reads x directly
    when the first cast is exact (x -> B loses nothing), and is x when C is x's dtype."""
    src = inputs[0]
    target = node.outputs[0].dtype
    if src.dtype is target:
        return src
    inner = ctx.analysed_inputs(src.node) if src.node.op == node.op else None
    if inner is None or not is_lossless_cast(inner[0].dtype, src.dtype):
        return None
    return inner[0] if inner[0].dtype is target else [inner[0]]


def cast(x, dtype, name=None):
    """Casts a tensor to `dtype` (float -> int truncates toward zero, as in TensorFlow).

    Args:
        x: A Tensor or value.
        dtype: The target DType.
        name: Optional node name in graph mode.

    Returns:
        A Tensor of `dtype` (`x` itself when it already has that dtype).

    Raises:
        InvalidArgumentError: when casting from or to strings.
    """
    dtype = dtypes.as_dtype(dtype)
    x = common.to_tensor(x)
    if x.dtype is dtype:
        return x
    if x.dtype is dtypes.string or dtype is dtypes.string:
        raise InvalidArgumentError(
            f"Cast from {x.dtype.name} to {dtype.name} is not supported. Use "
            f"tf.strings functions to convert between strings and numbers.", "cast")
    return apply(OPS["cast"], [x], {"dtype": dtype}, name)


# -- matmul -----------------------------------------------------------------------------------

def _infer_matmul(a, b, transpose_a=False, transpose_b=False):
    sa, sb = tuple(a.shape), tuple(b.shape)
    if len(sa) < 2 or len(sb) < 2:
        raise InvalidArgumentError(
            f"MatMul expects inputs of rank >= 2, found shapes {list(sa)} and {list(sb)}. Use "
            f"tf.reshape or tf.expand_dims to add dimensions.", "matmul")
    if transpose_a:
        sa = sa[:-2] + (sa[-1], sa[-2])
    if transpose_b:
        sb = sb[:-2] + (sb[-1], sb[-2])
    ka, kb = sa[-1], sb[-2]
    if ka is not None and kb is not None and ka != kb:
        raise InvalidArgumentError(
            f"Matrix size-incompatible: In[0]: {list(sa)}, In[1]: {list(sb)}. The inner "
            f"dimensions must match.", "matmul")
    batch = common.broadcast_shapes(sa[:-2], sb[:-2], "MatMul")
    return batch + (sa[-2], sb[-1]), a.dtype


@register("matmul", infer=_infer_matmul, kind=OpKind.ARRAY, tf_name="MatMul")
def _matmul_kernel(a, b, transpose_a=False, transpose_b=False):
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    """Multiplies matrices (batched over leading dimensions).

    Args:
        a: A Tensor of rank >= 2.
        b: A Tensor of rank >= 2 with the same dtype.
        transpose_a: Transpose the last two dims of `a` first.
        transpose_b: Transpose the last two dims of `b` first.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.

    Raises:
        InvalidArgumentError: on dtype mismatch or incompatible shapes.
    """
    a, b = common.binary_operands(a, b)
    opdef = OPS["matmul"]
    check_same_dtype(opdef, (a, b))
    check_dtype_allowed(opdef, a, common.NUMERIC)
    _infer_matmul(a, b, transpose_a, transpose_b)
    attrs = {}
    if transpose_a:
        attrs["transpose_a"] = True
    if transpose_b:
        attrs["transpose_b"] = True
    return apply(opdef, [a, b], attrs, name)


def add_n(inputs, name=None):
    """Adds a list of tensors of one shape and dtype.

    Args:
        inputs: A non-empty list of Tensors.
        name: Unused.

    Returns:
        A Tensor.
    """
    total = inputs[0]
    for t in inputs[1:]:
        total = add(total, t)
    return common.to_tensor(total)


# -- gradients (vjp rules; see runtime.ops.registry.defvjp) -----------------------------------
# Integer, boolean and comparison ops have no rule: they are not differentiable.

from runtime.ops.gradient_ops import unbroadcast  # noqa: E402 - needs the ops above
from runtime.ops.registry import defvjp  # noqa: E402


def _zeros(x):
    # late: ops.creation_ops imports this module as it loads
    from runtime.ops.creation_ops import zeros_like
    return zeros_like(x)


@defvjp("add")
def _add_vjp(op, dy):
    x, y = op.inputs
    return [unbroadcast(dy, x), unbroadcast(dy, y)]


@defvjp("subtract")
def _subtract_vjp(op, dy):
    x, y = op.inputs
    return [unbroadcast(dy, x), unbroadcast(negative(dy), y)]


@defvjp("multiply")
def _multiply_vjp(op, dy):
    x, y = op.inputs
    return [unbroadcast(multiply(dy, y), x), unbroadcast(multiply(dy, x), y)]


@defvjp("truediv")
def _truediv_vjp(op, dy):
    x, y = op.inputs
    if not x.dtype.is_floating:
        return [None, None]
    return [unbroadcast(divide(dy, y), x),
            unbroadcast(negative(multiply(dy, divide(op.outputs[0], y))), y)]


@defvjp("floormod")
def _floormod_vjp(op, dy):
    x, y = op.inputs
    return [unbroadcast(dy, x), unbroadcast(negative(multiply(dy, floordiv(x, y))), y)]


@defvjp("pow")
def _pow_vjp(op, dy):
    x, y = op.inputs
    out = op.outputs[0]
    dx = multiply(dy, multiply(y, pow(x, subtract(y, 1))))
    positive = greater(x, 0)
    safe_log = where(positive, log(where(positive, x, _zeros(x) + 1)), _zeros(x))
    dyy = multiply(dy, multiply(out, safe_log))
    return [unbroadcast(dx, x), unbroadcast(dyy, y)]


def _select_vjp(mask_fn):
    def vjp(op, dy):
        x, y = op.inputs
        mask = mask_fn(x, y)
        zero = _zeros(dy)
        return [unbroadcast(where(mask, dy, zero), x), unbroadcast(where(mask, zero, dy), y)]
    return vjp


defvjp("maximum")(_select_vjp(lambda x, y: greater_equal(x, y)))
defvjp("minimum")(_select_vjp(lambda x, y: less_equal(x, y)))


@defvjp("squared_difference")
def _squared_difference_vjp(op, dy):
    x, y = op.inputs
    g = multiply(dy, multiply(subtract(x, y), 2))
    return [unbroadcast(g, x), unbroadcast(negative(g), y)]


def _unary_vjp(name, rule):
    def vjp(op, dy):
        return [rule(op.inputs[0], op.outputs[0], dy)]
    vjp.__name__ = f"_{name}_vjp"
    defvjp(name)(vjp)


_unary_vjp("negative", lambda x, out, dy: negative(dy))
_unary_vjp("abs", lambda x, out, dy: multiply(dy, sign(x)))
_unary_vjp("square", lambda x, out, dy: multiply(dy, multiply(x, 2)))
_unary_vjp("sqrt", lambda x, out, dy: divide(dy, multiply(out, 2)))
_unary_vjp("rsqrt", lambda x, out, dy: multiply(dy, multiply(pow(out, 3), -0.5)))
_unary_vjp("exp", lambda x, out, dy: multiply(dy, out))
_unary_vjp("log", lambda x, out, dy: divide(dy, x))
_unary_vjp("tanh", lambda x, out, dy: multiply(dy, subtract(1, square(out))))
_unary_vjp("sigmoid", lambda x, out, dy: multiply(dy, multiply(out, subtract(1, out))))
_unary_vjp("sin", lambda x, out, dy: multiply(dy, cos(x)))
_unary_vjp("cos", lambda x, out, dy: negative(multiply(dy, sin(x))))
_unary_vjp("sign", lambda x, out, dy: _zeros(x))
_unary_vjp("reciprocal", lambda x, out, dy: negative(multiply(dy, square(out))))
# floor, ceil and round are piecewise constant: TensorFlow gives None, and so do we.


@defvjp("cast")
def _cast_vjp(op, dy):
    x = op.inputs[0]
    if not x.dtype.is_floating or not dy.dtype.is_floating:
        return [None]
    return [cast(dy, x.dtype)]


@defvjp("matmul")
def _matmul_vjp(op, dy):
    a, b = op.inputs
    ta = op.attrs.get("transpose_a", False)
    tb = op.attrs.get("transpose_b", False)
    if not ta and not tb:
        da = matmul(dy, b, transpose_b=True)
        db = matmul(a, dy, transpose_a=True)
    elif not ta and tb:
        da = matmul(dy, b)
        db = matmul(dy, a, transpose_a=True)
    elif ta and not tb:
        da = matmul(b, dy, transpose_b=True)
        db = matmul(a, dy)
    else:
        da = matmul(b, dy, transpose_a=True, transpose_b=True)
        db = matmul(dy, a, transpose_a=True, transpose_b=True)
    return [unbroadcast(da, a), unbroadcast(db, b)]
