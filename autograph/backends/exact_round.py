"""`round(x, ndigits)` of staged floats as Python rounds them: the exact decimal value of x.

Python's `round(2.675, 2)` is 2.67: the double nearest 2.675 lies below it. Multiplying by
100 rounds that product up to exactly 267.5, which half-to-even makes 268 (numpy's and
JAX's `round` give 2.68). The error of the product is known exactly (Dekker's two-product),
so a product that landed on a half is sent the way the exact product lies. Dividing the
rounded integer by the power of ten is then correctly rounded, as Python's result is.
Written once for every backend (`ops`: see `round_decimal`); JAX's `divide` keeps XLA from
turning the division into a product with 1/10**n.
"""

_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitting of a double into two halves


def _split(x):
    c = _SPLIT * x
    high = c - (c - x)
    return high, x - high


POWERS = tuple(10.0 ** k for k in range(23))  # exact doubles; 10.0 ** 23 is not


def round_decimal(x, ndigits, ops):
    """`round(x, ndigits)` for a staged float64 `x`.

    Args:
        x: A staged float64 value (any shape).
        ndigits: A Python int, or a staged int.
        ops: A namespace with `floor`, `rint` (half to even), `where`, `divide`, and for a
            staged `ndigits` `power` (`POWERS[clip(n, 0, 22)]`, a gather from that table).

    Returns:
        The rounded value, of x's dtype.
    """
    if type(ndigits) is int:
        if ndigits > 22:  # 10**ndigits is no longer exact: Python returns x itself there
            return x
        if ndigits < 0:  # whole tens, hundreds...: exact enough as a division and product
            return ops.rint(x / POWERS[min(-ndigits, 22)]) * POWERS[min(-ndigits, 22)]
        return _round(x, POWERS[ndigits], ops)
    exact = _round(x, ops.power(ndigits), ops)
    tens = ops.power(-ndigits)
    whole = ops.rint(x / tens) * tens
    return ops.where(ndigits > 22, x, ops.where(ndigits < 0, whole, exact))


def _round(x, scale, ops):
    """round(x, n) for n >= 0, where `scale` is 10.0 ** n (a Python float or staged)."""
    # Beyond `bound` a double is an integer that round() returns as it is; inf and nan too.
    # They are kept out of the arithmetic, which would overflow (and numpy would warn).
    bound = 1e300 / scale
    small = abs(x) < bound
    x_in = ops.where(small, x, 0.0)
    product = x_in * scale
    x_high, x_low = _split(x_in)
    s_high, s_low = _split(scale)
    error = ((x_high * s_high - product) + x_high * s_low + x_low * s_high) + x_low * s_low
    below = ops.floor(product)
    on_half = (product - below) == 0.5
    rounded = ops.where(on_half & (error > 0), below + 1.0,
                        ops.where(on_half & (error < 0), below, ops.rint(product)))
    return ops.where(small, ops.divide(rounded, scale), x)
