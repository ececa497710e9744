"""Python's `math` functions and numeric builtins on tensors, with Python's result types.

What converted code's `math.sqrt(n)`, `round(x)`, `divmod(a, b)`, `pow(a, b, m)`, `int(x)`
... become on staged tensors (runtime/autograph_builtins.py maps the functions here). The
result types are Python's: `math.sqrt`, `math.log`, ... of an int give float64 (Python's
float); `math.floor`, `math.ceil`, `round(x)`, `int(x)` of a float give int64 (Python's int:
int() truncates toward zero, round() rounds half to even); `//` and `%` floor as in Python.
"""
import math
import types

import numpy as np

from autograph.backends import exact_round
from runtime import dtypes
from runtime.ops import array_ops
from runtime.ops import common
from runtime.ops import gather_ops
from runtime.ops import math_ops
from runtime.ops.promotion import cast
from runtime.tensor_conversion import constant
from runtime.ops.registry import OPS
from runtime.ops.registry import OpKind
from runtime.ops.registry import apply
from runtime.ops.registry import register


def _infer_like_first(x, *others):
    shape = x.shape
    for other in others:
        shape = common.broadcast_shapes(shape, other.shape)
    return shape, x.dtype


def _isqrt_kernel(n):
    if np.any(n < 0):
        raise ValueError("isqrt() argument must be nonnegative")
    root = np.floor(np.sqrt(n.astype(np.float64))).astype(n.dtype)
    root = root - (root * root > n)  # float rounding: the exact floor of the square root
    return root + ((root + 1) * (root + 1) <= n)


def _factorial_kernel(n):
    if np.any(n < 0):
        raise ValueError("factorial() not defined for negative values")
    return np.asarray(np.frompyfunc(math.factorial, 1, 1)(n), dtype=n.dtype)


def _pow_mod_kernel(base, exponent, modulus):
    result = np.frompyfunc(pow, 3, 1)(base, exponent, modulus)
    return np.asarray(result, dtype=np.result_type(base, exponent, modulus))


register("gcd", infer=_infer_like_first, kind=OpKind.ELEMENTWISE, tf_name="Gcd")(np.gcd)
register("isqrt", infer=_infer_like_first, kind=OpKind.ELEMENTWISE, tf_name="Isqrt")(
    _isqrt_kernel)
register("factorial", infer=_infer_like_first, kind=OpKind.ELEMENTWISE, tf_name="Factorial")(
    _factorial_kernel)
register("pow_mod", infer=_infer_like_first, kind=OpKind.ELEMENTWISE, tf_name="PowMod")(
    _pow_mod_kernel)
_FLOAT_FUNCTIONS = {
    "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "expm1": np.expm1,
    "sinh": np.sinh, "cosh": np.cosh, "trunc": np.trunc,
}
for _name, _kernel in _FLOAT_FUNCTIONS.items():
    register(_name, infer=_infer_like_first, kind=OpKind.ELEMENTWISE,
             tf_name=_name.capitalize())(_kernel)
register("atan2", infer=_infer_like_first, kind=OpKind.ELEMENTWISE, tf_name="Atan2")(np.arctan2)
register("hypot", infer=_infer_like_first, kind=OpKind.ELEMENTWISE, tf_name="Hypot")(np.hypot)


def as_float(x):
    """`float(x)`: a float tensor stays as it is; ints and bools become float64."""
    x = common.to_tensor(x)
    return x if x.dtype.is_floating else cast(x, dtypes.float64)


def as_int(x):
    """`int(x)`: an int tensor stays as it is; floats truncate toward zero (to int64)."""
    x = common.to_tensor(x)
    if x.dtype.is_integer:
        return x
    if x.dtype.is_bool:
        return cast(x, dtypes.int32)
    return cast(x, dtypes.int64)


def _float_op(name):
    def fn(*args):
        args = [as_float(a) for a in args]
        if len(args) > 1:
            joint = args[0]
            for a in args[1:]:
                joint, _ = common.binary_operands(joint, a)
            args = [cast(a, joint.dtype) for a in args]
        return apply(OPS[name], args, {}, None)
    fn.__name__ = name
    return fn


def _to_int(fn):
    """A float function whose Python result is an int (floor, ceil, trunc): int64."""
    def wrapped(x):
        x = common.to_tensor(x)
        if x.dtype.is_integer or x.dtype.is_bool:
            return as_int(x)
        return cast(fn(x), dtypes.int64)
    return wrapped


def log(x, base=None):
    """`math.log(x[, base])`."""
    result = _float_op("log")(x)
    if base is None:
        return result
    return result / _float_op("log")(base)


def round_(x, ndigits=None):
    """`round(x[, ndigits])`: half to even; an int without `ndigits` for a float."""
    x = common.to_tensor(x)
    if x.dtype.is_integer or x.dtype.is_bool:
        return as_int(x) if ndigits is None or ndigits >= 0 else _round_int(x, ndigits)
    if ndigits is None:
        return cast(math_ops.round(x), dtypes.int64)
    if x.dtype is dtypes.float64:
        return exact_round.round_decimal(x, ndigits, _ROUND_OPS)  # round(2.675, 2) == 2.67
    scale = 10.0 ** ndigits
    return math_ops.round(x * scale) / scale


_ROUND_OPS = types.SimpleNamespace(floor=math_ops.floor, rint=math_ops.round,
                                   where=lambda c, a, b: array_ops.where(c, a, b),
                                   divide=lambda a, b: a / b, power=lambda n: _power_of_ten(n))


def _power_of_ten(n):
    """10.0 ** clip(n, 0, 22) from a table of exact doubles (exact_round.round_decimal)."""
    index = math_ops.minimum(math_ops.maximum(as_int(n), 0), 22)
    return gather_ops.gather(constant(exact_round.POWERS, dtypes.float64), index)


def _round_int(x, ndigits):
    scale = 10 ** -ndigits
    return cast(math_ops.round(cast(x, dtypes.float64) / scale), x.dtype) * scale


def gcd(*args):
    """`math.gcd(*integers)`."""
    if not args:
        return 0
    result = as_int(args[0])
    for arg in args[1:]:
        result, arg = common.binary_operands(result, as_int(arg))
        result = apply(OPS["gcd"], [result, arg], {}, None)
    return math_ops.abs(result) if len(args) == 1 else result


def isqrt(n):
    """`math.isqrt(n)`: the floor of the exact square root of a non-negative int."""
    return apply(OPS["isqrt"], [as_int(n)], {}, None)


def factorial(n):
    """`math.factorial(n)` of a non-negative int (exact within the int dtype)."""
    return apply(OPS["factorial"], [as_int(n)], {}, None)


def pow_(base, exponent, modulus=None):
    """`pow(base, exp[, mod])`: `base ** exp`, or exact modular exponentiation of ints."""
    if modulus is None:
        return base ** exponent
    base, exponent = common.binary_operands(base, exponent)
    base, modulus = common.binary_operands(base, modulus)
    exponent, modulus = common.binary_operands(exponent, modulus)
    base = cast(base, modulus.dtype)
    return apply(OPS["pow_mod"], [base, exponent, modulus], {}, None)


def divmod_(a, b):
    """`divmod(a, b)`: (a // b, a % b), floored as in Python."""
    return a // b, a % b


def radians(x):
    """`math.radians(x)`."""
    return as_float(x) * (math.pi / 180.0)


def degrees(x):
    """`math.degrees(x)`."""
    return as_float(x) * (180.0 / math.pi)


def math_pow(x, y):
    """`math.pow(x, y)`: always a float."""
    x, y = common.binary_operands(as_float(x), as_float(y))
    return x ** y


FUNCTIONS = {
    math.sqrt: lambda x: math_ops.sqrt(as_float(x)),
    math.exp: lambda x: math_ops.exp(as_float(x)),
    math.log: log,
    math.log2: _float_op("log2"),
    math.log10: _float_op("log10"),
    math.log1p: _float_op("log1p"),
    math.expm1: _float_op("expm1"),
    math.sin: lambda x: math_ops.sin(as_float(x)),
    math.cos: lambda x: math_ops.cos(as_float(x)),
    math.tan: _float_op("tan"),
    math.asin: _float_op("asin"),
    math.acos: _float_op("acos"),
    math.atan: _float_op("atan"),
    math.atan2: _float_op("atan2"),
    math.hypot: _float_op("hypot"),
    math.sinh: _float_op("sinh"),
    math.cosh: _float_op("cosh"),
    math.tanh: lambda x: math_ops.tanh(as_float(x)),
    math.fabs: lambda x: math_ops.abs(as_float(x)),
    math.floor: _to_int(math_ops.floor),
    math.ceil: _to_int(math_ops.ceil),
    math.trunc: _to_int(_float_op("trunc")),
    math.pow: math_pow,
    math.gcd: gcd,
    math.isqrt: isqrt,
    math.factorial: factorial,
    math.radians: radians,
    math.degrees: degrees,
}
