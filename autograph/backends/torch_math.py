"""Python's `math` functions and numeric builtins on traced torch tensors, with Python's
result types (`TorchBackend.call_builtin`), as jax_math.py does for JAX.

Results have the kind of number Python gives, in torch's default dtypes (the default float
dtype, float32 unless changed, and int64): `math.floor(x)` and `round(x)` of a float are
ints (round() halves to even); the float functions give floats. The integer functions
(`math.gcd`, `math.isqrt`, `math.factorial`) of a float raise Python's TypeError while
tracing, since the dtype says what Python would be given. `pow(base, e, m)` stages for a
Python int `e` (square and multiply over its bits), not for a traced one.
"""

import builtins
import math
import types

import torch

from autograph.backends import exact_round
from autograph.backends.registry import backend_for
from autograph.backends.torch_values import as_tensor
from autograph.backends.torch_values import predicate
from autograph.backends.torch_values import table
from autograph.operators import comparisons
from autograph.operators import number_methods


def _float(x):
    x = as_tensor(x)
    return x if x.dtype.is_floating_point else x.to(torch.get_default_dtype())


def _int(x, name):
    x = as_tensor(x)
    if x.dtype.is_floating_point or x.dtype.is_complex:
        raise TypeError("{}() of a staged float: 'float' object cannot be interpreted as "
                        "an integer (as in Python)".format(name))
    return x.to(torch.int64) if x.dtype == torch.bool else x


def _float_fn(op):
    def fn(*args):
        return op(*[_float(a) for a in args])
    return fn


def _int_result(op):
    def fn(x):
        x = as_tensor(x)
        if x.dtype.is_floating_point:
            x = op(x)
        return x.to(torch.int64)
    return fn


def _log(x, base=None):
    result = torch.log(_float(x))
    return result if base is None else result / torch.log(_float(base))


_ROUND_OPS = types.SimpleNamespace(
    floor=torch.floor, rint=torch.round, where=torch.where, divide=torch.div,
    power=lambda n: table(exact_round.POWERS, torch.float64)[
        torch.clamp(as_tensor(n), 0, 22).reshape(1)].squeeze(0))


def _round(x, ndigits=None):
    x = as_tensor(x)
    if not x.dtype.is_floating_point:
        if ndigits is None:
            return x.to(torch.int64)
        ndigits = as_tensor(ndigits)
        # whole tens, hundreds... for ndigits < 0 (halves to even); x itself otherwise
        scale = as_tensor(10, torch.int64) ** torch.clamp(-ndigits, 0, 18)
        return (torch.round(x.to(torch.float64) / scale) * scale).to(x.dtype)
    if ndigits is None:
        return torch.round(x).to(torch.int64)  # half to even, as Python
    if x.dtype == torch.float64:
        return exact_round.round_decimal(x, ndigits, _ROUND_OPS)  # round(2.675, 2) == 2.67
    scale = 10.0 ** ndigits
    return torch.round(x * scale) / scale


def _isqrt(n):
    n = _int(n, 'math.isqrt')
    root = torch.floor(torch.sqrt(n.to(torch.float64))).to(n.dtype)
    root = root - (root * root > n).to(n.dtype)  # float rounding: the exact floor
    return root + ((root + 1) * (root + 1) <= n).to(n.dtype)


def _gcd(*args):
    if not args:
        return 0
    result = torch.abs(_int(args[0], 'math.gcd'))
    for arg in args[1:]:
        result = torch.gcd(result, _int(arg, 'math.gcd'))
    return result


def _pow(base, exponent, modulus=None):
    if modulus is None:
        return base ** exponent
    if type(exponent) is int and exponent < 0:
        raise NotImplementedError(pow)  # a modular inverse: Python computes it
    base, modulus = _int(base, 'pow'), _int(modulus, 'pow')
    result, square = torch.ones_like(base * modulus) % modulus, base % modulus
    if type(exponent) is not int:
        return _staged_pow(result, square, _int(exponent, 'pow'), modulus)
    while exponent:  # square and multiply over the Python exponent's bits
        if exponent & 1:
            result = (result * square) % modulus
        square, exponent = (square * square) % modulus, exponent >> 1
    return result


def _staged_pow(result, square, exponent, modulus):
    """Square and multiply over a traced exponent's bits: a staged loop (the backend's
    while_loop), one bit per iteration. A negative exponent (Python's modular inverse) raises
    ValueError when the program runs."""
    backend = backend_for(exponent)  # the torch backend: its module imports this one
    backend.check_defined(exponent >= 0, ValueError(
        'pow() with a traced negative exponent and a modulus (a modular inverse) is not '
        'staged by the torch backend'))

    def body(result, square, bits):
        result = torch.where(bits & 1 == 1, (result * square) % modulus, result)
        return result, (square * square) % modulus, bits >> 1

    state = torch.broadcast_tensors(result, square, exponent)
    return backend.while_loop(lambda r, s, bits: (bits > 0).any(), body, state)[0]


def _factorial(n):
    n = _int(n, 'math.factorial')
    factorials = table([math.factorial(k) for k in range(21)], torch.int64)
    return factorials[torch.clamp(n, 0, 20).reshape(1)].squeeze(0)  # an index, not a guard


def _is_integer(x):
    """`x.is_integer()`: a float is whole and finite (`floor(x) == x` and not infinite: False
    for inf and nan, as Python's); an int's or bool's is Python's `int.is_integer`
    (number_methods)."""
    x = as_tensor(x)
    if not x.dtype.is_floating_point:
        return number_methods.int_is_integer()
    return (torch.floor(x) == x) & (torch.abs(x) != float('inf'))


def _identical(x, constant):
    """`x is True` (comparisons.identical): a bool tensor stands for Python's bool, so the
    test is `x == constant`; a number of another dtype is never the bool singleton (False)."""
    x = as_tensor(x)
    if x.dtype != torch.bool:
        return False
    return x == constant


FUNCTIONS = {
    builtins.bool: lambda x: predicate(x, 'bool'),
    builtins.round: _round,
    builtins.divmod: lambda a, b: (a // b, a % b),
    builtins.pow: _pow,
    math.sqrt: _float_fn(torch.sqrt),
    math.isqrt: _isqrt,
    math.factorial: _factorial,
    math.exp: _float_fn(torch.exp),
    math.log: _log,
    math.log2: _float_fn(torch.log2),
    math.log10: _float_fn(torch.log10),
    math.log1p: _float_fn(torch.log1p),
    math.expm1: _float_fn(torch.expm1),
    math.pow: lambda x, y: _float(x) ** _float(y),
    math.floor: _int_result(torch.floor),
    math.ceil: _int_result(torch.ceil),
    math.trunc: _int_result(torch.trunc),
    math.fabs: lambda x: torch.abs(_float(x)),
    math.gcd: _gcd,
    math.radians: _float_fn(torch.deg2rad),
    math.degrees: _float_fn(torch.rad2deg),
    math.sin: _float_fn(torch.sin),
    math.cos: _float_fn(torch.cos),
    math.tan: _float_fn(torch.tan),
    math.asin: _float_fn(torch.asin),
    math.acos: _float_fn(torch.acos),
    math.atan: _float_fn(torch.atan),
    math.atan2: _float_fn(torch.atan2),
    math.hypot: _float_fn(torch.hypot),
    math.sinh: _float_fn(torch.sinh),
    math.cosh: _float_fn(torch.cosh),
    math.tanh: _float_fn(torch.tanh),
    number_methods.is_integer: _is_integer,
    comparisons.identical: _identical,
}
