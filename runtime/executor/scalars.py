"""Python scalars in the generated code: which values are Python ints and bools, their ranges,
the wrap back into range, and the source-text helpers the code generator shares.

Rank-0 int32/int64 values are Python ints and rank-0 bools Python bools: CPython's own
arithmetic is several times faster than numpy scalars', and mixing the two kinds in one
operation is ~50x slower than either. A Python int the code holds is always in its dtype's
range, except a deferred expression the generator has marked unwrapped (see codegen).
"""
import re

import numpy as np

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def names_in(expr):
    """The identifiers an expression reads."""
    return set(_IDENTIFIER.findall(expr))


def bare(expr):
    """`(a + b)` -> `a + b`: a deferred expression's parentheses, dropped in statements."""
    if not (expr.startswith("(") and expr.endswith(")")):
        return expr
    depth = 0
    for i, c in enumerate(expr):
        depth += (c == "(") - (c == ")")
        if depth == 0 and i < len(expr) - 1:
            return expr  # `(a) + (b)`: the first parenthesis closes early
    return expr[1:-1]


# Rank-0 tensors of these dtypes are Python ints in the generated code.
PYTHON_INTS = (np.dtype(np.int32), np.dtype(np.int64))


def python_int(tensor):
    """Whether the generated code holds `tensor`'s value as a Python int (always in range)."""
    return tensor.shape == () and tensor.dtype.np_dtype in PYTHON_INTS


def python_scalar(tensor):
    """Whether the generated code holds `tensor`'s value as a Python int or bool."""
    return python_int(tensor) or (tensor.shape == () and tensor.dtype.np_dtype.kind == "b")


def to_python_text(tensor, expr):
    """`expr` (a numpy value of `tensor`) turned into the Python scalar the code holds."""
    return f"{'int' if python_int(tensor) else 'bool'}({bare(expr)})"


def int_range(tensor):
    """The (min, max) of `tensor`'s int dtype."""
    info = np.iinfo(tensor.dtype.np_dtype)
    return int(info.min), int(info.max)


def out_of_range_test(name, interval, tensor):
    """The test that local `name`, known to be in `interval`, left its dtype's range, or ''."""
    low, high = int_range(tensor)
    tests = [f"{name} > {high}"] if interval[1] > high else []
    if interval[0] < low:
        tests.append(f"{name} < {low}")
    return " or ".join(tests)


def literal(value):
    """Source of a rank-0 int or bool numpy constant as a Python literal."""
    text = repr(value.item())
    return f"({text})" if text.startswith("-") else text


def _make_wrap(bits):
    half, full = 1 << (bits - 1), 1 << bits

    def wrap(value):
        """Python int -> the two's complement int of `bits` bits it wraps to."""
        return (value + half) % full - half
    return wrap


# int dtype -> the function wrapping a Python int into it (silently, as TensorFlow does).
WRAPS = {dtype: _make_wrap(dtype.itemsize * 8) for dtype in PYTHON_INTS}
