"""`round(x, ndigits)` of staged floats as Python rounds them: the exact decimal value of x.

Python's `round(2.675, 2)` is 2.67: the double nearest 2.675 lies below it. Multiplying by
100 rounds that product up to exactly 267.5, which half-to-even makes 268 (numpy's and
JAX's `round` give 2.68). The error of the product is known exactly (Dekker's two-product),
so a product that landed on a half is sent the way the exact product lies. Dividing the
rounded integer by the power of ten is then correctly rounded, as Python's result is.
Written once for every backend: `ops` gives `floor`, `rint` (half to even), `where` and
`divide` (JAX's must keep XLA from turning the division into a product with 1/10**n).
"""

_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitting of a double into two halves


def _split(x):
    c = _SPLIT * x
    high = c - (c - x)
    return high, x - high


def round_decimal(x, ndigits, ops):
    """`round(x, ndigits)` for a staged float64 `x` and a Python int `ndigits` >= 0.

    Args:
        x: A staged float64 value (any shape).
        ndigits: A Python int, at least 0.
        ops: A namespace with `floor`, `rint` (half to even), `where` and `divide`.

    Returns:
        The rounded value, of x's dtype.
    """
    if ndigits > 22:  # 10**ndigits is no longer exact: Python returns x itself there
        return x
    scale = 10.0 ** ndigits
    product = x * scale
    x_high, x_low = _split(x)
    s_high, s_low = _split(scale)
    error = ((x_high * s_high - product) + x_high * s_low + x_low * s_high) + x_low * s_low
    below = ops.floor(product)
    on_half = (product - below) == 0.5
    rounded = ops.where(on_half & (error > 0), below + 1.0,
                        ops.where(on_half & (error < 0), below, ops.rint(product)))
    finite = (product - product) == 0  # False for inf and nan: x is returned as it is
    return ops.where(finite, ops.divide(rounded, scale), x)
