"""Python's `math` functions and numeric builtins on jax tracers, with Python's result types.

`math.sqrt(n)`, `round(x)`, `divmod(a, b)`, `pow(a, b, m)`, `bool(x)` ... of traced values
(`JaxBackend.call_builtin`). Results have the kind of number Python gives, in JAX's default
dtypes (float32 and int32 unless x64 is enabled): `math.floor(x)`, `round(x)` and `int(x)`
of a float are ints (int() truncates toward zero, round() rounds half to even); the float
functions give floats.
"""

import builtins
import math
import types

from autograph.backends import exact_round
from autograph.backends.jax_values import jax_modules
from autograph.backends.jax_values import predicate
from autograph.operators import comparisons
from autograph.operators import number_methods


def _jnp():
    return jax_modules().numpy


def _float(x):
    jnp = _jnp()
    x = jnp.asarray(x)
    if jnp.issubdtype(x.dtype, jnp.floating):
        return x
    return x.astype(jnp.result_type(builtins.float))


def _int(x):
    jnp = _jnp()
    x = jnp.asarray(x)
    if jnp.issubdtype(x.dtype, jnp.integer):
        return x
    if jnp.issubdtype(x.dtype, jnp.floating):
        x = jnp.trunc(x)
    return x.astype(jnp.result_type(builtins.int))


def _float_fn(name):
    def fn(*args):
        return getattr(_jnp(), name)(*[_float(a) for a in args])
    return fn


def _int_result(name):
    def fn(x):
        jnp = _jnp()
        x = jnp.asarray(x)
        if not jnp.issubdtype(x.dtype, jnp.floating):
            return _int(x)
        return getattr(jnp, name)(x).astype(jnp.result_type(builtins.int))
    return fn


def _log_exact_at_powers(name, power_of):
    """log2 or log10 that is exact where x is a power of the base, as Python's is (jax 0.6,
    what Python 3.10 installs, gives log10(100.0) as 1.9999999999999996: its floor is 1)."""
    def fn(x):
        jnp = _jnp()
        x = _float(x)
        result = getattr(jnp, name)(x)
        k = jnp.round(result)
        return jnp.where(power_of(k, x.dtype) == x, k, result)
    return fn


def _powers_of_ten(k, dtype):
    """10.0**k as Python writes it (`1e-3` is 1 / 1000.0), for |k| <= 22; -1 elsewhere."""
    jnp = _jnp()
    table = jnp.asarray(exact_round.POWERS, dtype)  # 10**0 .. 10**22, exact doubles
    power = table[jnp.clip(jnp.abs(k), 0, 22).astype(int)]
    return jnp.where(jnp.abs(k) <= 22, jnp.where(k >= 0, power, 1 / power), -1.0)


def _powers_of_two(k, dtype):
    return _jnp().ldexp(_jnp().ones_like(k, dtype), k.astype(_jnp().int32))


def _log(x, base=None):
    result = _jnp().log(_float(x))
    return result if base is None else result / _jnp().log(_float(base))


def _round(x, ndigits=None):
    jnp = _jnp()
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.floating):
        if ndigits is None or ndigits >= 0:
            return _int(x)
        scale = 10 ** -ndigits
        return (jnp.round(x / scale) * scale).astype(x.dtype)
    if ndigits is None:
        return jnp.round(x).astype(jnp.result_type(builtins.int))  # half to even
    if x.dtype == jnp.float64:
        ops = types.SimpleNamespace(
            floor=jnp.floor, rint=jnp.round, where=jnp.where, divide=_true_divide,
            power=lambda n: jnp.asarray(exact_round.POWERS)[jnp.clip(n, 0, 22)])
        return exact_round.round_decimal(x, ndigits, ops)  # round(2.675, 2) == 2.67
    scale = 10.0 ** ndigits
    return jnp.round(x * scale) / scale


def _true_divide(a, scale):
    """a / scale correctly rounded: XLA turns a division by a scalar into a product with its
    reciprocal (-7313 / 10 gives -731.3000000000001), but not a division by an array it
    cannot see through."""
    m = jax_modules()
    divisor = m.lax.optimization_barrier(m.numpy.full(m.numpy.shape(a), scale, a.dtype))
    return a / divisor


def _isqrt(n):
    jnp = _jnp()
    n = _int(n)
    root = jnp.floor(jnp.sqrt(n.astype(jnp.result_type(builtins.float)))).astype(n.dtype)
    root = root - (root * root > n)  # float rounding: the exact floor of the square root
    return root + ((root + 1) * (root + 1) <= n)


def _gcd(*args):
    jnp = _jnp()
    if not args:
        return 0
    result = jnp.abs(_int(args[0]))
    for arg in args[1:]:
        result = jnp.gcd(result, _int(arg))
    return result


def _pow(base, exponent, modulus=None):
    if modulus is None:
        return base ** exponent
    lax = jax_modules().lax
    jnp = _jnp()
    base, exponent, modulus = jnp.broadcast_arrays(*[_int(v) for v in (base, exponent, modulus)])
    dtype = jnp.result_type(base, exponent, modulus)
    base, exponent, modulus = (v.astype(dtype) for v in (base, exponent, modulus))

    def step(state):  # square and multiply, one bit of the exponent per step
        result, square, bits = state
        result = jnp.where(bits & 1, (result * square) % modulus, result)
        return result, (square * square) % modulus, bits >> 1

    state = (jnp.ones_like(base) % modulus, base % modulus, exponent)
    return lax.while_loop(lambda s: jnp.any(s[2] > 0), step, state)[0]


def _factorial(n):
    jnp = _jnp()
    n = _int(n)
    limit = 21 if jnp.iinfo(n.dtype).bits == 64 else 13  # the factorials the dtype holds
    table = jnp.asarray([math.factorial(k) for k in range(limit)], dtype=n.dtype)
    return table[jnp.clip(n, 0, limit - 1)]


def _is_integer(x):
    """`x.is_integer()`: a float is whole and finite (`floor(x) == x` and not infinite: False
    for inf and nan, as Python's); an int's or bool's is Python's `int.is_integer`
    (number_methods)."""
    jnp = _jnp()
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return number_methods.int_is_integer()
    return (jnp.floor(x) == x) & (jnp.abs(x) != float('inf'))


def _identical(x, constant):
    """`x is True` (comparisons.identical): a bool array stands for Python's bool, so the test
    is `x == constant`; a number of another dtype is never the bool singleton (False)."""
    jnp = _jnp()
    x = jnp.asarray(x)
    if x.dtype != jnp.bool_:
        return False
    return x == constant


def _divmod(a, b):
    return a // b, a % b


FUNCTIONS = {
    builtins.bool: lambda x: predicate(x, 'bool'),
    builtins.round: _round,
    builtins.divmod: _divmod,
    builtins.pow: _pow,
    math.sqrt: _float_fn('sqrt'),
    math.isqrt: _isqrt,
    math.factorial: _factorial,
    math.exp: _float_fn('exp'),
    math.log: _log,
    math.log2: _log_exact_at_powers('log2', _powers_of_two),
    math.log10: _log_exact_at_powers('log10', _powers_of_ten),
    math.log1p: _float_fn('log1p'),
    math.expm1: _float_fn('expm1'),
    math.pow: lambda x, y: _float(x) ** _float(y),
    math.floor: _int_result('floor'),
    math.ceil: _int_result('ceil'),
    math.trunc: _int_result('trunc'),
    math.fabs: lambda x: _jnp().abs(_float(x)),
    math.gcd: _gcd,
    math.radians: _float_fn('radians'),
    math.degrees: _float_fn('degrees'),
    math.sin: _float_fn('sin'),
    math.cos: _float_fn('cos'),
    math.tan: _float_fn('tan'),
    math.asin: _float_fn('arcsin'),
    math.acos: _float_fn('arccos'),
    math.atan: _float_fn('arctan'),
    math.atan2: _float_fn('arctan2'),
    math.hypot: _float_fn('hypot'),
    math.sinh: _float_fn('sinh'),
    math.cosh: _float_fn('cosh'),
    math.tanh: _float_fn('tanh'),
    number_methods.is_integer: _is_integer,
    comparisons.identical: _identical,
}
