"""Which ops the generated code computes on Python ints, floats and bools, and each exact int
result's range.

Rank-0 int32/int64 values are Python ints in generated code (and bools Python or numpy bools):
CPython's int arithmetic is several times faster than numpy scalars'. A rule below computes on
in-range Python ints exactly what the op's kernel computes on int32/int64 scalars, except that
the exact result may leave the dtype's range: the rule gives the interval of the exact result,
and the code generator wraps it (two's complement) where the interval is not inside the range.
RING rules are ring homomorphisms modulo 2**bits, so they may also take operands not yet
wrapped: `3 * n + 1` is computed whole and wrapped once. Rank-0 float64 values are Python
floats (an IEEE double, as numpy's float64), computed on only where Python's float operation
is the same IEEE operation (`_float_rule`).

Two tables: `_KERNEL_RULES`, keyed by the kernel where the kernel is a public Python operator
or numpy ufunc (every op whose kernel is `operator.add` adds), and `_OP_RULES`, keyed by op
name for ops whose kernel is their own function (`cast`, `floordiv`, ...). Each op name is
checked against the registry when this module is imported.
"""
import operator

import numpy as np

from runtime.executor import emitters
from runtime.ops import registry

RING = "ring"
EXACT = "exact"


def _corners(fn):
    def rule(x, y):
        values = [fn(a, b) for a in x for b in y]
        return min(values), max(values)
    return rule


_KERNEL_RULES = {
    operator.add: (RING, lambda x, y: (x[0] + y[0], x[1] + y[1])),
    operator.sub: (RING, lambda x, y: (x[0] - y[1], x[1] - y[0])),
    operator.mul: (RING, _corners(operator.mul)),
    operator.neg: (RING, lambda x: (-x[1], -x[0])),
    operator.invert: (EXACT, lambda x: (~x[1], ~x[0])),
    operator.and_: (EXACT, None), operator.or_: (EXACT, None), operator.xor: (EXACT, None),
    operator.lt: (EXACT, None), operator.le: (EXACT, None), operator.gt: (EXACT, None),
    operator.ge: (EXACT, None), operator.eq: (EXACT, None), operator.ne: (EXACT, None),
    np.equal: (EXACT, None), np.not_equal: (EXACT, None), np.logical_not: (EXACT, None),
    np.maximum: (EXACT, lambda x, y: (max(x[0], y[0]), max(x[1], y[1]))),
    np.minimum: (EXACT, lambda x, y: (min(x[0], y[0]), min(x[1], y[1]))),
}
_PYTHON_CALLS = {np.maximum: "max({0}, {1})", np.minimum: "min({0}, {1})"}

# Comparison kernel -> (bound on x, bound on y) when `x OP y` is true: x < y gives
# x <= hi(y) - 1 and y >= lo(x) + 1.
_REFINE = {
    operator.lt: lambda x, y: ((x[0], min(x[1], y[1] - 1)), (max(y[0], x[0] + 1), y[1])),
    operator.le: lambda x, y: ((x[0], min(x[1], y[1])), (max(y[0], x[0]), y[1])),
    operator.gt: lambda x, y: ((max(x[0], y[0] + 1), x[1]), (y[0], min(y[1], x[1] - 1))),
    operator.ge: lambda x, y: ((max(x[0], y[0]), x[1]), (y[0], min(y[1], x[1]))),
}


def refine_when_true(node, bounds):
    """The intervals of a comparison's int operands wherever the comparison held.

    Args:
        node: The node computing a bool (a while loop's test).
        bounds: Callable(tensor) -> the interval (lo, hi) the operand is known to be in.

    Returns:
        A list of (operand tensor, interval); empty when the node is no int comparison.
    """
    kernel = registry.OPS[node.op].kernel
    if not emitters.hashable(kernel) or kernel not in _REFINE or node.attrs:
        return []
    x, y = node.inputs
    if not all(t.shape == () and t.dtype.np_dtype.kind == "i" for t in (x, y)):
        return []
    return list(zip((x, y), _REFINE[kernel](bounds(x), bounds(y))))


def _cast_rule(node, ctx):
    """A cast between ints is the identity modulo 2**bits (RING: the generator wraps what may
    leave the target's range); int to bool is `!= 0`; bool to int is 0 or 1."""
    source, target = node.inputs[0].dtype.np_dtype, node.outputs[0].dtype.np_dtype
    if target.kind == "i":
        return (RING, lambda x: x) if source.kind == "i" else (EXACT, lambda x: (0, 1))
    return EXACT, None


def _cast_text(node, args, ctx):
    source, target = node.inputs[0].dtype.np_dtype.kind, node.outputs[0].dtype.np_dtype.kind
    if source == target:
        return args[0]
    if target == "f":
        return f"float({args[0]})"
    return f"{args[0]} != 0" if target == "b" else f"1 if {ctx.truth(args[0])} else 0"


def _divisor(node, ctx):
    """The constant nonzero divisor of a floordiv or floormod, or None."""
    divisor = ctx.known(node.inputs[1])
    return None if divisor is None or not int(divisor) else int(divisor)


def _floordiv_rule(node, ctx):
    divisor = _divisor(node, ctx)
    if divisor is None:
        return None
    if divisor > 0:
        return EXACT, lambda x, y: (x[0] // divisor, x[1] // divisor)
    return EXACT, lambda x, y: (x[1] // divisor, x[0] // divisor)


def _floormod_rule(node, ctx):
    divisor = _divisor(node, ctx)
    if divisor is None:
        return None
    return EXACT, lambda x, y: (0, divisor - 1) if divisor > 0 else (divisor + 1, 0)


# Op name -> (rule(node, ctx) -> (kind, interval rule) or None, text(node, args, ctx), whether
# the rule applies to a node with attrs: it reads them itself, as cast reads its dtype).
_OP_RULES = {
    "cast": (_cast_rule, _cast_text, True),
    "floordiv": (_floordiv_rule, lambda node, args, ctx: f"{args[0]} // {args[1]}", False),
    "floormod": (_floormod_rule, lambda node, args, ctx: f"{args[0]} % {args[1]}", False),
    "identity": (lambda node, ctx: (EXACT, lambda x: x), lambda node, args, ctx: args[0],
                 False),
    # float64 only (`_float_rule`): int division converts to float64 first
    "truediv": (lambda node, ctx: None, lambda node, args, ctx: f"{args[0]} / {args[1]}",
                False),
}


# Kernels computing on Python floats exactly what they compute on float64 scalars: IEEE double
# operations, correctly rounded, overflowing to inf, nan where numpy gives nan. Not division
# (Python raises ZeroDivisionError where numpy gives inf or nan; `_float_rule` takes it by a
# nonzero constant), floor division and modulo (their own rounding rules), nor maximum and
# minimum (Python's max and min do not propagate nan).
_FLOAT_KERNELS = (operator.add, operator.sub, operator.mul, operator.neg, operator.lt,
                  operator.le, operator.gt, operator.ge, operator.eq, operator.ne, np.equal,
                  np.not_equal)


def _float_cast_rule(node, ctx):
    """A cast to float64 from an int or a bool (`float(x)`, correctly rounded as numpy's cast
    is), or to bool (`x != 0`); never to an int (numpy's cast of nan or inf is no int)."""
    source, target = node.inputs[0].dtype.np_dtype.kind, node.outputs[0].dtype.np_dtype.kind
    return (EXACT, None) if target == "b" or (target == "f" and source in "fib") else None


def _float_divide_rule(node, ctx):
    """float64 division by a nonzero constant (Python raises where the divisor is zero)."""
    divisor = ctx.known(node.inputs[1])
    if node.inputs[0].dtype.np_dtype.kind == "f" and divisor is not None and \
            float(divisor) != 0.0:
        return EXACT, None
    return None


# Op name -> rule(node, ctx) for ops whose kernel is their own function, on Python floats.
_FLOAT_OP_RULES = {"cast": _float_cast_rule, "truediv": _float_divide_rule,
                   "identity": lambda node, ctx: (EXACT, None)}
for _op in list(_OP_RULES) + list(_FLOAT_OP_RULES):
    registry.get_op(_op)  # a misspelt or removed op fails here, at import


def _float_rule(node, ctx):
    """`python_rule` for a node reading or making a Python float (a float64 scalar)."""
    rule = _FLOAT_OP_RULES.get(node.op)
    if rule is not None:
        return rule(node, ctx) if not node.attrs or _OP_RULES[node.op][2] else None
    kernel = registry.OPS[node.op].kernel
    if node.attrs or not any(kernel is k for k in _FLOAT_KERNELS):
        return None
    return EXACT, None


def python_rule(node, ctx):
    """How `node` computes on Python scalars, or None when it needs numpy values.

    Args:
        node: An ordinary op node whose inputs and outputs are all rank-0 ints, bools or
            float64 values (Python floats: `_float_rule`).
        ctx: The code generator (`ctx.known`).

    Returns:
        (kind, interval rule): kind is RING or EXACT; the rule maps the operands' intervals
        (lo, hi) to the exact result's interval, or is None (the result stays in range:
        a bool, or a bitwise result of in-range operands).
    """
    if any(t.dtype.np_dtype.kind == "f" for t in node.inputs + node.outputs):
        return _float_rule(node, ctx)
    entry = _OP_RULES.get(node.op)
    if node.attrs and not (entry is not None and entry[2]):
        return None
    if entry is not None:
        return entry[0](node, ctx)
    kernel = registry.OPS[node.op].kernel
    if not emitters.hashable(kernel):
        return None
    rule = _KERNEL_RULES.get(kernel)
    if rule is None or (kernel is operator.invert and node.inputs[0].dtype.np_dtype.kind != "i"):
        return None
    return rule


def python_expression(node, args, ctx):
    """The inline expression of a node `python_rule` accepts, on Python scalar `args`."""
    entry = _OP_RULES.get(node.op)
    if entry is not None:
        return entry[1](node, args, ctx)
    kernel = registry.OPS[node.op].kernel
    if kernel is np.logical_not:
        return f"not {ctx.truth(args[0])}"  # a Python bool, from a Python or a numpy bool
    template = (emitters.INFIX.get(kernel) or emitters.UFUNC_OPERATORS.get(kernel)
                or _PYTHON_CALLS[kernel])
    return template.format(*args)
