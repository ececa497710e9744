"""Scalars in the generated code: which values are Python ints and bools, their ranges, the
wrap back into range, the source-text helpers, and `ScalarCode`, the code generator's half
that defers scalar expressions to their one read and emits Python-scalar arithmetic.

Rank-0 int32/int64 values are Python ints, rank-0 float64 values Python floats (the same IEEE
double) and rank-0 bools Python bools: CPython's own arithmetic is faster than numpy scalars',
and mixing the two kinds in one operation is slower than either. A Python int the code holds
is always in its dtype's range, except a deferred expression the generator has marked
unwrapped (see codegen).

Other rank-0 numbers are numpy scalars, with one exception: a float32 element a loop reads
from a memoryview is a Python float where every read of it computes the same on one
(`python_float_reader`). A float32 converts to a double exactly, so comparisons are exact;
and under NEP 50 (numpy >= 2) a Python float is "weak": `float32 + python_float` converts the
float to float32 (exact: it holds a float32 value) and adds in float32, a float32 result.
"""
import operator
import re

import numpy as np

from runtime.executor import python_rules
from runtime.ops import math_ops  # noqa: F401 - registers truediv, read below
from runtime.ops import registry
from runtime.ops import slicing

_SCALAR_KINDS = "biuf"
# The op reading elements (its definition, found by name once, at import).
_GETITEM = registry.get_op("getitem")
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


def is_scalar(tensor):
    """Whether `tensor` is a rank-0 number or bool."""
    shape = tensor.shape  # `not shape`: rank 0 without TensorShape.__eq__ (a Python method)
    return shape is not None and not shape and tensor.dtype.np_dtype.kind in _SCALAR_KINDS


def truth(expr):
    """`bool(a < b)` -> `a < b` where only the truth of a value is read (`if`, `while`,
    `not`): a numpy bool's truth is the same, and converting it costs a call."""
    inner = bare(expr)
    if inner.startswith("bool(") and bare(inner[4:]) != inner[4:]:
        return inner[4:]  # `(a < b)`
    return expr


# Rank-0 tensors of these dtypes are Python ints in the generated code.
PYTHON_INTS = (np.dtype(np.int32), np.dtype(np.int64))
# Rank-0 float64 tensors are Python floats (python_rules._float_rule: where Python computes
# what numpy does; elsewhere they are converted to numpy float64, except as operands of a
# ufunc that also reads an array: codegen's `_args`).
_PYTHON_FLOAT = np.dtype(np.float64)


def python_int(tensor):
    """Whether the generated code holds `tensor`'s value as a Python int (always in range)."""
    shape = tensor.shape  # see is_scalar
    return shape is not None and not shape and tensor.dtype.np_dtype in PYTHON_INTS


def python_float(tensor):
    """Whether the generated code holds `tensor`'s value as a Python float (a float64)."""
    shape = tensor.shape  # see is_scalar
    return shape is not None and not shape and tensor.dtype.np_dtype == _PYTHON_FLOAT


def python_scalar(tensor):
    """Whether the generated code holds `tensor`'s value as a Python int, float or bool."""
    shape = tensor.shape  # see is_scalar
    if shape is None or shape:
        return False
    np_dtype = tensor.dtype.np_dtype
    return np_dtype in PYTHON_INTS or np_dtype == _PYTHON_FLOAT or np_dtype.kind == "b"


def _reads_one_element(node):
    """Whether `node` is a getitem of one element of an array at Python int indices."""
    if registry.OPS[node.op] is not _GETITEM:
        return False
    x = node.inputs[0]
    spec = node.attrs["spec"]
    return (x.shape is not None and len(spec) == len(x.shape) >= 1
            and all(type(item) is int or (isinstance(item, slicing.TensorIndex)
                                          and python_int(node.inputs[item.position]))
                    for item in spec))


def element_read(node):
    """Whether `node` is a getitem reading one element of an int32, int64, float64 or bool
    array at Python int indices: a memoryview of the array gives it as the Python int, float
    or bool the generated code holds (~35 ns), where numpy makes a numpy scalar to convert
    (~120 ns)."""
    return (registry.OPS[node.op] is _GETITEM
            and python_scalar(node.outputs[0]) and _reads_one_element(node))


# NEP 50 (numpy >= 2): `float32 + python_float` is a float32 add (the Python float is "weak",
# converted to float32). numpy 1.x promotes it to float64: there, a Python float may only be
# compared.
WEAK_PYTHON_FLOATS = type(np.float32(1) + 1.0) is np.float32
# Float dtypes whose elements a loop may read as Python floats (the double holds them exactly).
PYTHON_FLOAT_ELEMENTS = (np.dtype(np.float32),)
# Kernels exact on any mix of numpy float32 scalars and Python floats holding float32 values.
_FLOAT_COMPARISONS = (operator.lt, operator.le, operator.gt, operator.ge, operator.eq,
                      operator.ne, np.equal, np.not_equal)
# Kernels computing in float32 when one operand is a numpy float32 and the other a Python
# float (NEP 50); two Python floats would compute in float64.
_FLOAT_ARITHMETIC = (operator.add, operator.sub, operator.mul,
                     registry.get_op("truediv").kernel)


def float_element_read(node):
    """Whether `node` reads one element of a float32 array at Python int indices (a memoryview
    gives it as a Python float, ~35 ns, where numpy makes a float32 scalar, ~65 ns)."""
    if registry.OPS[node.op] is not _GETITEM:
        return False
    out = node.outputs[0]
    return (out.shape == () and out.dtype.np_dtype in PYTHON_FLOAT_ELEMENTS
            and _reads_one_element(node))


# What holding a float32 element as a Python float saves, in ns (CPython 3.11, numpy 2.x, in a
# loop's locals), against the numpy float32 scalar: its read from a memoryview, 62 -> 34; per
# reader, a comparison with a constant (or itself) tested by an `if` gives a Python bool,
# 16 -> 6; float32 arithmetic with a numpy operand costs 31 -> 55, and a comparison with a
# numpy variable 16 -> 49. A loop reads an element as a Python float only where that pays.
READ_SAVES = 28
_COMPARE_CONSTANT_SAVES, _ARITHMETIC_SAVES, _COMPARE_NUMPY_SAVES = 10, -24, -33


def python_float_reader(node, tensor, may_be_python_float, python_operand):
    """Whether ordinary op `node` computes exactly what it computes now (value and dtype) when
    its rank-0 float operand `tensor` is a Python float holding the same float32 value, and
    what that saves.

    Args:
        node: A node reading `tensor`.
        tensor: The float32 operand.
        may_be_python_float: Callable(tensor) -> whether the code may hold that operand as a
            Python float too.
        python_operand: Callable(tensor) -> whether the code can give that operand as a
            Python float (a constant; a loop-invariant value, copied before the loop).

    Returns:
        None when it may not; else the ns it saves (negative: costs; see READ_SAVES). It may
        for a comparison of scalars of `tensor`'s dtype (exact on any mix of the two kinds)
        and, under NEP 50, for a float `+ - * /` whose other operand is a numpy float32 (the
        result is a float32 scalar).
    """
    opdef = registry.OPS[node.op]
    kernel = opdef.kernel
    if opdef.structured or node.attrs or len(node.inputs) != 2 or \
            not all(t.shape == () and t.dtype == tensor.dtype for t in node.inputs):
        return None
    a, b = node.inputs
    other = b if a is tensor else a
    if any(kernel is k for k in _FLOAT_COMPARISONS):
        if other is tensor or python_operand(other):
            return _COMPARE_CONSTANT_SAVES
        return _COMPARE_NUMPY_SAVES
    if not WEAK_PYTHON_FLOATS or not any(kernel is k for k in _FLOAT_ARITHMETIC):
        return None
    if other is tensor or may_be_python_float(other):
        return None
    return _ARITHMETIC_SAVES


def float_comparison(node):
    """Whether `node` is a comparison of two rank-0 floats (`python_float_reader`'s)."""
    opdef = registry.OPS[node.op]
    return (not opdef.structured and not node.attrs and len(node.inputs) == 2
            and any(opdef.kernel is k for k in _FLOAT_COMPARISONS)
            and all(t.shape == () and t.dtype.np_dtype.kind == "f" for t in node.inputs))


def to_python_text(tensor, expr):
    """`expr` (a numpy value of `tensor`) turned into the Python scalar the code holds."""
    kind = "int" if python_int(tensor) else "bool" if tensor.dtype.np_dtype.kind == "b" \
        else "float"
    return f"{kind}({bare(expr)})"


_INT_RANGES = {}  # numpy int dtype -> (min, max); np.iinfo builds an object each call


def int_range(tensor):
    """The (min, max) of `tensor`'s int dtype."""
    np_dtype = tensor.dtype.np_dtype
    bounds = _INT_RANGES.get(np_dtype)
    if bounds is None:
        info = np.iinfo(np_dtype)
        bounds = _INT_RANGES[np_dtype] = (int(info.min), int(info.max))
    return bounds


def out_of_range_test(name, interval, tensor):
    """The test that local `name`, known to be in `interval`, left its dtype's range, or ''."""
    low, high = int_range(tensor)
    tests = [f"{name} > {high}"] if interval[1] > high else []
    if interval[0] < low:
        tests.append(f"{name} < {low}")
    return " or ".join(tests)


def literal(value):
    """Source of a rank-0 int, bool or float numpy constant as a Python literal, or None for
    a float that has none (inf, nan)."""
    item = value.item()
    if type(item) is float and not np.isfinite(item):
        return None
    text = repr(item)
    return f"({text})" if text.startswith("-") else text


def wrap_text(name, tensor):
    """The expression wrapping Python int local `name` into `tensor`'s int dtype (two's
    complement, silently, as TensorFlow does): `((n + 2**31) & (2**32 - 1)) - 2**31` for
    int32, inline (a function call would cost more than the arithmetic)."""
    bits = tensor.dtype.np_dtype.itemsize * 8
    half = 1 << (bits - 1)
    return f"(({name} + {half}) & {(1 << bits) - 1}) - {half}"


class ScalarCode:
    """The code generator's handling of scalars: deferred expressions, Python ints and bools,
    and their wraps (a mixin of runtime.executor.codegen's generator). It owns `deferred`,
    `unwrapped`, `interval` and `lazy` (init_scalar_state) and reads the generator's `env`,
    `targets`, `_uses`, `_consumer`."""

    def init_scalar_state(self):
        """Sets up the state this half owns (called by the generator's __init__)."""
        # Tensors whose env entry is a parenthesised expression not yet evaluated: a scalar
        # computed inline where its one use is (see `_defer`).
        self.deferred = set()
        # `v + c` nodes of a loop counter wrapped once after its loop, not at every step.
        self.lazy = set()
        # Python int tensors -> interval (lo, hi) of the exact value the source holds; absent:
        # the dtype's range. A deferred value outside the range is in `unwrapped`: it is
        # congruent to the int32/int64 value modulo 2**bits and wrapped before any other use.
        self.interval = {}
        self.unwrapped = set()

    def materialize(self, tensor, depth):
        """Evaluates a deferred expression into a local (before a second or repeated read),
        wrapped into its dtype's range."""
        if tensor not in self.deferred:
            return
        self.deferred.discard(tensor)
        name = self.namer.new(tensor.node.name)
        self.line(depth, f"{name} = {bare(self.env[tensor])}", tensor.node)
        self.env[tensor] = name
        if tensor in self.unwrapped:
            self.unwrapped.discard(tensor)
            self._guard(tensor, depth)

    def materialize_all(self, tensors, depth):
        """`materialize` for each tensor (operands bound into subgraphs are read repeatedly)."""
        for t in tensors:
            self.materialize(t, depth)

    def wrapped(self, tensor, depth):
        """Returns the source of `tensor`'s value in range (materialized if it was not)."""
        if tensor in self.unwrapped:
            self.materialize(tensor, depth)
        return self.env[tensor]

    def deferrable(self, tensor):
        """Whether a scalar value of the node being emitted may stay an expression."""
        return (tensor not in self.targets and self._uses.get(tensor) == 1
                and is_scalar(tensor))

    def defer(self, tensor, expr):
        """Binds `tensor` to an expression evaluated at its one use."""
        self.env[tensor] = f"({bare(expr)})"
        self.deferred.add(tensor)

    def refine_when_true(self, test):
        """The intervals the int operands of bool `test` are in wherever it is true.

        Returns:
            A list of (operand tensor, interval (lo, hi)) (see python_rules.refine_when_true).
        """
        return python_rules.refine_when_true(test.node, self._bounds)

    def _guard(self, tensor, depth):
        """Emits the wrap of the Python int local holding `tensor` where it may leave range."""
        name = self.env[tensor]
        interval = self.interval.pop(tensor, int_range(tensor))
        test = out_of_range_test(name, interval, tensor)
        if test:
            self.line(depth, f"if {test}:", tensor.node)
            self.line(depth + 1, f"{name} = {wrap_text(name, tensor)}", tensor.node)
        else:
            self.interval[tensor] = interval

    def _defer(self, node):
        """Whether `node`'s inline expression can wait for its one use instead of a local.

        Only scalar arithmetic on scalars (it cannot raise, so an error can never be charged
        to the wrong node), read exactly once, and not assigned to a block output's name.
        """
        if node.stateful or len(node.outputs) != 1:
            return False
        t = node.outputs[0]
        if t in self.targets or self._uses.get(t) != 1 or not is_scalar(t):
            return False
        return all(is_scalar(u) for u in node.inputs)

    def _python_rule(self, node):
        """The node's Python-scalar rule (python_rules.python_rule) when it applies, else None."""
        if node.outputs and all(python_scalar(t) for t in node.inputs + node.outputs):
            return python_rules.python_rule(node, self)
        return None

    def grows_from(self, counter, start):
        """Records that loop counter `counter` (a placeholder) only counts up from the value of
        `start` (its first value): its lower bound holds at every step."""
        self.interval[counter] = (self._bounds(start)[0], int_range(counter)[1])

    def bounds(self, tensor):
        """The interval (lo, hi) `tensor`'s value is known to be in, or None when the code
        does not hold it as a Python int."""
        return self._bounds(tensor) if python_int(tensor) else None

    def _bounds(self, tensor):
        if tensor in self.interval:
            return self.interval[tensor]
        return int_range(tensor) if python_int(tensor) else (0, 1)

    def python_float_args(self, node, args):
        """The operands of `node`, a float comparison reading a Python float: its constants
        and loop-invariant operands as Python floats too (exact: a float32 converts to a
        double exactly), so that Python compares two floats (a Python float and a numpy
        float32 compare through numpy, which is slower).

        Returns:
            (args, whether every operand is a Python float: the result is a Python bool).
        """
        if not self.python_floats or not any(t in self.python_floats for t in node.inputs) \
                or not float_comparison(node):
            return args, False
        args = [self.literal(float(self.const[t])) if t in self.const else
                self.float_copies.get(t, arg) for t, arg in zip(node.inputs, args)]
        return args, all(t in self.python_floats or t in self.const or t in self.float_copies
                         for t in node.inputs)

    def numpy_arg(self, tensor, depth):
        """Source of `tensor`'s value as numpy (a Python int converted to its dtype)."""
        self.materialize(tensor, depth)
        if not python_scalar(tensor):
            return self.env[tensor]
        if tensor in self.const:
            return self.scalar_global(self.const[tensor][()])
        dtype = tensor.dtype.np_dtype
        return f"{self.global_(dtype.type, dtype.name)}({self.env[tensor]})"

    def _emit_python(self, node, rule, depth):
        """Emits `node` on Python scalars (see python_rules.python_rule)."""
        kind, bounds_rule = rule
        if kind != python_rules.RING:
            for t in node.inputs:
                if t in self.unwrapped:
                    self.materialize(t, depth)
        t = node.outputs[0]
        expr = python_rules.python_expression(node, [self.env[u] for u in node.inputs], self)
        exceeds = False
        if python_int(t) and bounds_rule is not None:
            lo, hi = bounds_rule(*[self._bounds(u) for u in node.inputs])
            self.interval[t] = (lo, hi)
            low, high = int_range(t)
            exceeds = lo < low or hi > high
        consumer = self._consumer.get(t, False)
        if self._defer(node) and _nesting(expr) < MAX_NESTING and (not exceeds or (
                consumer and not registry.OPS[consumer.op].structured
                and (self._python_rule(consumer) or (None,))[0] == python_rules.RING)):
            self.env[t] = f"({expr})"
            self.deferred.add(t)
            if exceeds:
                self.unwrapped.add(t)
            return
        name = self.targets.get(t) or self.namer.new(t.node.name)
        self.env[t] = name
        self.line(depth, f"{name} = {bare(expr)}", node)
        if exceeds and node not in self.lazy:
            self._guard(t, depth)

    def wrap_local(self, name, tensor, depth):
        """Emits the wrap of local `name`, holding a value of `tensor` not known in range."""
        low, high = int_range(tensor)
        self.line(depth, f"if {out_of_range_test(name, (low - 1, high + 1), tensor)}:")
        self.line(depth + 1, f"{name} = {wrap_text(name, tensor)}")

    def _to_python(self, tensors, depth):
        """Turns the numpy scalars a statement left in the locals of `tensors` into Python
        scalars (where the code holds them as Python ints and bools)."""
        for t in tensors:
            if python_scalar(t) and t not in self.python_ready:
                name = self.env[t]
                self.line(depth, f"{name} = {to_python_text(t, name)}", t.node)


# Deepest parenthesis nesting of an inlined scalar expression: a longer chain of single-use
# values (a Python loop unrolled while tracing) gets a local, because CPython's parser refuses
# expressions nested 200 deep ("too many nested parentheses").
MAX_NESTING = 60


def _nesting(expr):
    """The deepest parenthesis nesting in `expr`."""
    depth = deepest = 0
    for ch in expr:
        if ch == "(":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif ch == ")":
            depth -= 1
    return deepest
