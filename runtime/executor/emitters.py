"""Inline Python expressions for ops, used by the code generator instead of kernel calls.

An emitter returns source text that computes exactly what the op's registered kernel computes
(same value, dtype and errors), or None to fall back to calling the kernel. Each emitter is
registered with the kernel it was written against and is skipped when the registry holds a
different kernel, so a kernel change can never make the two executors disagree silently.

Kernels that are Python operators (``operator.add`` ...) become infix expressions and numpy
ufuncs or builtins are called directly; neither needs an emitter.
"""
import operator

import numpy as np

from runtime.ops import array_ops
from runtime.ops import math_ops
from runtime.ops import registry
from runtime.ops import slicing
from runtime.ops import state_ops

# Kernel object -> infix template. `a + b` *is* `operator.add(a, b)`.
INFIX = {
    operator.add: "{0} + {1}", operator.sub: "{0} - {1}", operator.mul: "{0} * {1}",
    operator.truediv: "{0} / {1}", operator.floordiv: "{0} // {1}",
    operator.mod: "{0} % {1}", operator.pow: "{0} ** {1}", operator.and_: "{0} & {1}",
    operator.or_: "{0} | {1}", operator.xor: "{0} ^ {1}", operator.lshift: "{0} << {1}",
    operator.rshift: "{0} >> {1}", operator.lt: "{0} < {1}", operator.le: "{0} <= {1}",
    operator.gt: "{0} > {1}", operator.ge: "{0} >= {1}", operator.eq: "{0} == {1}",
    operator.ne: "{0} != {1}", operator.neg: "-{0}", operator.invert: "~{0}",
    operator.matmul: "{0} @ {1}",
}
# numpy ufunc kernel -> the Python operator that calls it on ndarrays and numpy scalars
# (the scalar fast paths make `a != b` ~40x faster than `np.not_equal(a, b)` on scalars).
_UFUNC_OPERATORS = {np.equal: "{0} == {1}", np.not_equal: "{0} != {1}"}
_NUMERIC_KINDS = "biuf"

EMITTERS = {}  # op name -> (expected kernel, emitter)
STATEMENTS = {}  # op name -> (expected kernel, statement emitter)
PYTHON_INDEX_STATEMENTS = set()  # op names whose statement emitter takes Python int operands


# -- Python scalars ----------------------------------------------------------------------------
# Rank-0 int32/int64 values are Python ints in generated code (and bools Python or numpy bools):
# CPython's int arithmetic is several times faster than numpy scalars'. A kernel below computes
# on in-range Python ints exactly what it computes on int32/int64 scalars, except that the
# exact result may leave the dtype's range: its rule gives the interval of the exact result,
# and the code generator wraps it (two's complement) where the interval is not inside the
# range. RING kernels are ring homomorphisms modulo 2**bits, so they may also take operands
# not yet wrapped: `3 * n + 1` is computed whole and wrapped once.
RING = "ring"
EXACT = "exact"


def _corners(fn):
    def rule(x, y):
        values = [fn(a, b) for a in x for b in y]
        return min(values), max(values)
    return rule


_PYTHON_RULES = {
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


def counting_loop(cond_graph, body_graph, num_loop_vars, test=None, ignore=None):
    """Recognises `while i < bound: ...; i = i + 1` with a loop-invariant bound.

    Python's `for i in range(i, bound)` runs it: the same values of i (i < bound <= the
    dtype's max, so i + 1 never wraps) with the increment and the test in C.

    Args:
        cond_graph: The while loop's condition subgraph.
        body_graph: Its body subgraph.
        num_loop_vars: The number of loop variables (the first inputs of both subgraphs).
        test: The tensor of cond_graph the loop tests (default: its output).
        ignore: Nodes of cond_graph the loop does not emit (a test's exit-flag conjunct).

    Returns:
        (k, bound, increment): the loop variable's index, the bound tensor (of cond_graph) and
        the body node computing i + 1; or None.
    """
    test = cond_graph.outputs[0] if test is None else test
    tests = [n for n in cond_graph.nodes if not n.is_source and n not in (ignore or ())]
    if len(tests) != 1 or tests[0].outputs[0] is not test:
        return None
    test = tests[0]
    if registry.OPS[test.op].kernel is not operator.lt or test.attrs:
        return None
    i, bound = test.inputs
    if not all(t.shape == () and t.dtype.np_dtype.kind == "i" for t in (i, bound)):
        return None
    inputs = list(cond_graph.inputs)
    k = next((j for j, t in enumerate(inputs) if t is i), None)
    invariant = bound.node.is_constant or any(
        t is bound for t in inputs[num_loop_vars:])
    if k is None or k >= num_loop_vars or not invariant:
        return None
    increment = body_graph.outputs[k].node
    counter = body_graph.inputs[k]
    if increment.is_source or registry.OPS[increment.op].kernel is not operator.add or \
            increment.attrs:
        return None
    others = [t for t in increment.inputs if t is not counter]
    if len(others) != 1 or not others[0].node.is_constant or \
            int(others[0].node.attrs["value"]) != 1:
        return None
    reads = sum(1 for n in body_graph.nodes for t in n.inputs if t is increment.outputs[0])
    reads += sum(1 for t in body_graph.outputs if t is increment.outputs[0])
    return (k, bound, increment) if reads == 1 else None


def offset_counter(body_graph, k, increment):
    """Recognises a counting loop's counter read only as `1 + i` (besides its increment).

    `for i in range(1, n + 1)` stages as a counter from 0 and `1 + i` in the body: Python can
    iterate the value itself, `for v in range(start + 1, bound + 1)`. With an offset of 1 the
    value stays in range (it is at most the bound); other offsets could wrap, so they are left.

    Args:
        body_graph: The loop's body subgraph.
        k: The counter's loop-variable index (counting_loop).
        increment: The body node computing i + 1 (counting_loop).

    Returns:
        The node computing 1 + i, or None.
    """
    counter = body_graph.inputs[k]
    if any(t is counter for t in body_graph.outputs):
        return None
    readers = [n for n in body_graph.nodes for t in n.inputs if t is counter]
    if len(readers) != 2 or increment not in readers:
        return None
    value = readers[0] if readers[1] is increment else readers[1]
    if value is increment or value.is_source or value.attrs or \
            registry.OPS[value.op].kernel is not operator.add:
        return None
    others = [t for t in value.inputs if t is not counter]
    if len(others) != 1 or not others[0].node.is_constant or \
            int(others[0].node.attrs["value"]) != 1 or value.outputs[0].dtype != counter.dtype:
        return None
    return value


def refine_when_true(node, bounds):
    """The intervals of a comparison's int operands wherever the comparison held.

    Args:
        node: The node computing a bool (a while loop's test).
        bounds: Callable(tensor) -> the interval (lo, hi) the operand is known to be in.

    Returns:
        A list of (operand tensor, interval); empty when the node is no int comparison.
    """
    kernel = registry.OPS[node.op].kernel
    if not _hashable(kernel) or kernel not in _REFINE or node.attrs:
        return []
    x, y = node.inputs
    if not all(t.shape == () and t.dtype.np_dtype.kind == "i" for t in (x, y)):
        return []
    return list(zip((x, y), _REFINE[kernel](bounds(x), bounds(y))))


def _floordiv_rule(divisor):
    if divisor > 0:
        return lambda x, y: (x[0] // divisor, x[1] // divisor)
    return lambda x, y: (x[1] // divisor, x[0] // divisor)


def _floormod_rule(divisor):
    return lambda x, y: (0, divisor - 1) if divisor > 0 else (divisor + 1, 0)


def python_rule(node, ctx):
    """How `node` computes on Python scalars, or None when it needs numpy values.

    Args:
        node: An ordinary op node whose inputs and outputs are all rank-0 ints or bools.
        ctx: The code generator (`ctx.known`).

    Returns:
        (kind, interval rule): kind is RING or EXACT; the rule maps the operands' intervals
        (lo, hi) to the exact result's interval, or is None (the result stays in range:
        a bool, or a bitwise result of in-range operands).
    """
    kernel = registry.OPS[node.op].kernel
    if kernel is math_ops._cast_kernel:
        return _cast_rule(node.inputs[0].dtype.np_dtype, node.outputs[0].dtype.np_dtype)
    if node.attrs or not _hashable(kernel):
        return None
    if kernel is getattr(math_ops, "_floordiv_kernel", None) or \
            kernel is getattr(math_ops, "_floormod_kernel", None):
        divisor = ctx.known(node.inputs[1])
        if divisor is None or not int(divisor):
            return None
        make = _floordiv_rule if kernel is math_ops._floordiv_kernel else _floormod_rule
        return EXACT, make(int(divisor))
    if kernel is getattr(array_ops, "_identity_kernel", None):
        return EXACT, lambda x: x
    rule = _PYTHON_RULES.get(kernel)
    if rule is None or (kernel is operator.invert and node.inputs[0].dtype.np_dtype.kind != "i"):
        return None
    return rule


def _cast_rule(source, target):
    """A cast between ints is the identity modulo 2**bits (RING: the generator wraps what may
    leave the target's range); int to bool is `!= 0`; bool to int is 0 or 1."""
    if target.kind == "i":
        return (RING, lambda x: x) if source.kind == "i" else (EXACT, lambda x: (0, 1))
    return EXACT, None


def python_expression(node, args, ctx):
    """The inline expression of a node `python_rule` accepts, on Python scalar `args`."""
    kernel = registry.OPS[node.op].kernel
    if kernel is math_ops._cast_kernel:
        source, target = node.inputs[0].dtype.np_dtype.kind, node.outputs[0].dtype.np_dtype.kind
        if source == target:
            return args[0]
        return f"{args[0]} != 0" if target == "b" else f"1 if {ctx.truth(args[0])} else 0"
    if kernel is np.logical_not:
        return f"not {ctx.truth(args[0])}"  # a Python bool, from a Python or a numpy bool
    if kernel is getattr(array_ops, "_identity_kernel", None):
        return args[0]
    if kernel is math_ops._floordiv_kernel:
        return f"{args[0]} // {args[1]}"
    if kernel is math_ops._floormod_kernel:
        return f"{args[0]} % {args[1]}"
    template = INFIX.get(kernel) or _UFUNC_OPERATORS.get(kernel) or _PYTHON_CALLS[kernel]
    return template.format(*args)


# Operator kernel -> the ufunc it calls on arrays (`a + b` is `np.add(a, b)`).
_OPERATOR_UFUNCS = {
    operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply,
    operator.neg: np.negative, operator.and_: np.bitwise_and, operator.or_: np.bitwise_or,
    operator.xor: np.bitwise_xor, operator.invert: np.invert,
}


def ufunc_for(node):
    """The numpy ufunc computing `node` elementwise on arrays, or None.

    With it the code generator writes the result into a dead input's memory (`out=`): the
    same values, dtype and floating-point errors as the kernel.
    """
    kernel = registry.OPS[node.op].kernel
    if node.attrs or not _hashable(kernel) or len(node.outputs) != 1:
        return None
    if not all(_numeric(t) for t in node.inputs + node.outputs):
        return None
    if isinstance(kernel, np.ufunc):
        return kernel if kernel.nout == 1 else None
    return _OPERATOR_UFUNCS.get(kernel)


def makes_new_array(node):
    """Whether `node`'s result is always a new array no other value shares (an elementwise
    ufunc's, a matmul's), so a later elementwise op may write over it when it is dead."""
    if ufunc_for(node) is not None:
        return True
    kernel = registry.OPS[node.op].kernel
    return kernel is getattr(math_ops, "_matmul_kernel", None)


# Kernels that turn their rank-0 int operands after the first into Python ints themselves
# (`int(index)`): they take the generated code's Python ints as they are, without a conversion
# to numpy (~0.2 us each).
_PYTHON_INT_KERNELS = (slicing._getitem_kernel, state_ops._ta_read_kernel)


def takes_python_ints(node, kernel_call=False):
    """Whether `node` takes Python int operands after its first as they are.

    Args:
        node: An ordinary op node.
        kernel_call: False: through its statement emitter (indices); True: through a call
            of its kernel.

    Returns:
        True or False.
    """
    kernel = registry.OPS[node.op].kernel
    if kernel_call:
        return any(kernel is k for k in _PYTHON_INT_KERNELS)
    entry = STATEMENTS.get(node.op)
    return (node.op in PYTHON_INDEX_STATEMENTS and entry is not None
            and entry[0] is kernel)


def register_emitter(op, kernel):
    """Decorator registering `emitter(node, args, ctx) -> str | None` for op `op`.

    Args:
        op: The op name.
        kernel: The kernel the emitter reproduces (None: the module attribute is missing, and
            the emitter is not registered).

    Returns:
        The decorator.
    """
    def decorator(emitter):
        if kernel is not None:
            EMITTERS[op] = (kernel, emitter)
        return emitter
    return decorator


def register_statement_emitter(op, kernel, python_ints=False):
    """Decorator registering `emitter(node, args, ctx, depth) -> bool` for op `op`.

    A statement emitter writes whole lines itself (`ctx.line`) and binds the node's outputs in
    `ctx.env`; it returns False to leave the node to `expression` and the kernel call.

    Args:
        op: The op name.
        kernel: The kernel the emitter reproduces.
        python_ints: Whether its rank-0 int operands may be Python ints (indices): the code
            and the kernel behave the same on them as on numpy ints.

    Returns:
        The decorator.
    """
    def decorator(emitter):
        STATEMENTS[op] = (kernel, emitter)
        if python_ints:
            PYTHON_INDEX_STATEMENTS.add(op)
        return emitter
    return decorator


def statement(node, args, ctx, depth):
    """Emits `node` as statements when a statement emitter applies; returns whether it did."""
    entry = STATEMENTS.get(node.op)
    if entry is None or entry[0] is not registry.OPS[node.op].kernel:
        return False
    return entry[1](node, args, ctx, depth)


def expression(node, args, ctx):
    """Returns an inline expression computing `node`, or None to call its kernel.

    Args:
        node: The Node (an ordinary op).
        args: Source expressions of its inputs (plain names or globals).
        ctx: The code generator; `ctx.global_(value, hint)` binds a global and returns its
            name, `ctx.known(tensor)` returns a compile-time value or None.

    Returns:
        A source expression, or None.
    """
    kernel = registry.OPS[node.op].kernel
    entry = EMITTERS.get(node.op)
    if entry is not None and entry[0] is kernel:
        text = entry[1](node, args, ctx)
        if text is not None:
            return text
    if node.attrs:
        return None
    template = INFIX.get(kernel) if _hashable(kernel) else None
    if template is not None:
        return template.format(*args)
    template = _UFUNC_OPERATORS.get(kernel) if _hashable(kernel) else None
    if template is not None and all(_numeric(t) for t in node.inputs):
        return template.format(*args)
    return None


def _hashable(value):
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _numeric(tensor):
    return tensor.dtype.np_dtype.kind in _NUMERIC_KINDS


def _float(tensor):
    return tensor.dtype.np_dtype.kind == "f"


def _nonzero_constant(ctx, tensor):
    value = ctx.known(tensor)
    return value is not None and bool(np.all(value))


@register_emitter("identity", getattr(array_ops, "_identity_kernel", None))
def _identity(node, args, ctx):
    return args[0]


@register_emitter("cast", getattr(math_ops, "_cast_kernel", None))
def _cast(node, args, ctx):
    dtype = ctx.global_(node.attrs["dtype"].np_dtype, "dt_" + node.attrs["dtype"].name)
    return f"{args[0]}.astype({dtype})"


@register_emitter("floordiv", getattr(math_ops, "_floordiv_kernel", None))
def _floordiv(node, args, ctx):
    # The kernel only adds a zero-divisor check for integers.
    if _float(node.inputs[1]) or _nonzero_constant(ctx, node.inputs[1]):
        return f"{args[0]} // {args[1]}"
    return None


@register_emitter("floormod", getattr(math_ops, "_floormod_kernel", None))
def _floormod(node, args, ctx):
    if _float(node.inputs[1]) or _nonzero_constant(ctx, node.inputs[1]):
        return f"{args[0]} % {args[1]}"
    return None


@register_emitter("pow", getattr(math_ops, "_pow_kernel", None))
def _pow(node, args, ctx):
    # The kernel only adds a negative-exponent check for integer bases.
    if _float(node.inputs[0]):
        return f"{args[0]} ** {args[1]}"
    value = ctx.known(node.inputs[1])
    if value is not None and not np.any(np.asarray(value) < 0):
        return f"{args[0]} ** {args[1]}"
    return None


@register_emitter("truediv", getattr(math_ops, "_truediv_kernel", None))
def _truediv(node, args, ctx):
    if _float(node.inputs[0]):
        return f"{args[0]} / {args[1]}"
    target = getattr(math_ops, "_TRUEDIV_NP", {}).get(node.inputs[0].dtype.np_dtype)
    if target is None:
        return None
    divide = ctx.global_(np.true_divide, "np_true_divide")
    dtype = ctx.global_(target, "dt_" + target.name)
    return f"{divide}({args[0]}, {args[1]}, dtype={dtype})"


@register_emitter("matmul", getattr(math_ops, "_matmul_kernel", None))
def _matmul(node, args, ctx):
    if node.attrs.get("transpose_a") or node.attrs.get("transpose_b"):
        return None
    return f"{args[0]} @ {args[1]}"


@register_emitter("select", getattr(array_ops, "_select_kernel", None))
def _select(node, args, ctx):
    where = ctx.global_(np.where, "np_where")
    return f"{where}({args[0]}, {args[1]}, {args[2]})"


@register_emitter("transpose", getattr(array_ops, "_transpose_kernel", None))
def _transpose(node, args, ctx):
    fn = ctx.global_(np.transpose, "np_transpose")
    perm = ctx.literal(node.attrs.get("perm"))
    return f"{fn}({args[0]}, {perm})"


@register_emitter("logical_not", np.logical_not)
def _logical_not(node, args, ctx):
    # `b ^ True` is logical not for bool scalars and arrays, ~10x faster on scalars.
    return f"{args[0]} ^ True"


def _dimension_read(node, ctx):
    """Whether `node` takes one dimension of a shape (`tf.shape(x)[1]`) as a Python int: an
    element read (`ctx.element_read`) of the shape vector at a constant index in range."""
    if not ctx.element_read(node):
        return False
    index, rank = node.attrs["spec"][0], node.inputs[0].shape[0]
    return type(index) is int and rank is not None and -rank <= index < rank


@register_statement_emitter("shape", array_ops._shape_kernel)
def _shape(node, args, ctx, depth):
    """Emits `x.shape` (a tuple of Python ints) where its one reader takes one dimension,
    `tf.shape(x)[1]`: ~30 ns, where the kernel makes an array to index and convert (~300 ns).

    Returns:
        Whether the node was emitted (False: the shape is read otherwise).
    """
    reader = ctx.sole_reader(node.outputs[0])
    if reader is None or not _dimension_read(reader, ctx):
        return False
    name = ctx.new_name(node.outputs[0].node.name)
    ctx.env[node.outputs[0]] = name
    ctx.shape_tuples.add(node.outputs[0])
    ctx.line(depth, f"{name} = {args[0]}.shape", node)
    return True


@register_statement_emitter("getitem", slicing._getitem_kernel, python_ints=True)
def _getitem(node, args, ctx, depth):
    """Emits `x[i, j]` for integer indexing, falling back to the kernel on IndexError.

    The kernel resolves the spec and turns IndexError into InvalidArgumentError; calling it
    on failure gives exactly its error while the common case indexes directly. An element
    that a loop reads from its memoryview (`ctx.element_view`) is already a Python scalar.

    Returns:
        Whether the node was emitted (False: the spec has slices, None or Ellipsis).
    """
    keys = []
    for item in node.attrs["spec"]:
        if isinstance(item, slicing.TensorIndex):
            keys.append(args[item.position])
        elif type(item) is int:
            keys.append(repr(item))
        else:
            return False
    if not keys:
        return False
    name = ctx.new_name(node.outputs[0].node.name)
    ctx.env[node.outputs[0]] = name
    if node.inputs[0] in ctx.shape_tuples:  # `x.shape[1]`: a Python int, a dimension
        ctx.python_ready.add(node.outputs[0])
        ctx.interval[node.outputs[0]] = (0, int(np.iinfo(node.outputs[0].dtype.np_dtype).max))
        ctx.line(depth, f"{name} = {args[0]}[{keys[0]}]", node)
        return True
    kernel = ctx.global_(slicing._getitem_kernel, "k_getitem")
    spec = ctx.literal(node.attrs["spec"])
    view = ctx.element_view(node)
    fallback = f"{kernel}({', '.join(args)}, spec={spec})"
    if view is not None:
        fallback = ctx.python_text(node.outputs[0], fallback)
        if ctx.flat_shape(view) is not None:
            _flat_read(node, keys, view, ctx.flat_shape(view), name, fallback, ctx, depth)
            return True
    read = f"{name} = {view or args[0]}[{', '.join(keys)},]"
    if _in_range(node, ctx):  # it cannot raise: the kernel would index the same
        ctx.line(depth, read, node)
        return True
    ctx.line(depth, "try:", node)
    ctx.line(depth + 1, read, node)
    ctx.line(depth, "except IndexError:", node)
    ctx.line(depth + 1, f"{name} = {fallback}", node)
    return True


def strides(shape):
    """The strides of a C-ordered array of `shape`, in elements."""
    found = [1] * len(shape)
    for k in range(len(shape) - 1, 0, -1):
        found[k - 1] = found[k] * shape[k]
    return found


def flat_terms(shape, spec, keys):
    """The terms of the linear index into the flat view of an array of `shape` (codegen's
    `view`) that a getitem with `spec` reads, one per dimension: the element offset of an int
    in range (a negative one counted from the end), None for an int out of range, and
    `key * stride` for a tensor index whose source text is in `keys`."""
    terms = []
    for dim, item, key, stride in zip(shape, spec, keys, strides(shape)):
        if type(item) is int:
            terms.append((item + dim if item < 0 else item) * stride
                         if -dim <= item < dim else None)
        else:
            key = key if key.isidentifier() else f"({key})"
            terms.append(key if stride == 1 else f"{key} * {stride}")
    return terms


def sum_text(terms):
    """`a * 10 + b + 4` of index terms (texts, and ints summed at the end)."""
    texts = [t for t in terms if type(t) is str]
    constant = sum(t for t in terms if type(t) is int)
    return " + ".join(texts + ([str(constant)] if constant or not texts else []))


def _flat_read(node, keys, view, shape, name, fallback, ctx, depth):
    """Emits getitem `node`'s read from the flat view of its array (codegen's `view`):
    `v[i * 10 + j]`, or `v[row + j]` where `row = i * 10` is computed before the loop
    (`ctx.offsets`). Each index not known to be in `range(dim)` is tested first; one that is
    not (negative, past the end) reads through the kernel, which counts a negative index from
    the end or raises its error."""
    spec = node.attrs["spec"]
    terms = flat_terms(shape, spec, keys)
    tests = []
    for dim, item, key, term in zip(shape, spec, keys, terms):
        if term is None:  # an int out of range: the kernel raises
            tests.append("False")
        elif type(item) is not int:
            interval = ctx.bounds(node.inputs[item.position])
            if interval is None or interval[0] < 0 or interval[1] >= dim:
                key = key if key.isidentifier() else f"({key})"
                tests.append(f"0 <= {key} < {dim}")
    offset = ctx.offsets.get(node)
    if offset is not None:  # the offset holds all but the last index
        terms = [offset] + terms[-1:]
    read = f"{name} = {view}[{sum_text(terms)}]"
    if not tests:
        ctx.line(depth, read, node)
        return
    ctx.line(depth, f"if {' and '.join(tests)}:", node)
    ctx.line(depth + 1, read, node)
    ctx.line(depth, "else:", node)
    ctx.line(depth + 1, f"{name} = {fallback}", node)


def _in_range(node, ctx):
    """Whether every index of getitem `node` (ints and Python int tensors) is known to be in
    range of its dimension of the array's static shape (negative ones counting from the end)."""
    shape = node.inputs[0].shape
    if shape is None:
        return False
    for dim, item in zip(shape, node.attrs["spec"]):
        interval = (item, item) if type(item) is int else ctx.bounds(node.inputs[item.position])
        if dim is None or interval is None or interval[0] < -dim or interval[1] >= dim:
            return False
    return True


@register_statement_emitter("tensor_array_write", state_ops._ta_write_kernel, python_ints=True)
def _tensor_array_write(node, args, ctx, depth):
    """Emits `items[i] = value` for a write in range, the kernel otherwise (growth, errors).

    The kernel's dtype and element-shape checks are settled when the graph is built: the
    TensorArray checks the value's dtype as it adds the node, and a value whose static shape
    is fully known was merged into the array's element shape then. Only the index is checked
    at run time (negative or past the end: the kernel raises, or grows a dynamic array).

    Returns:
        Whether the node was emitted (False: the value's shape is not fully known).
    """
    shape = node.inputs[2].shape
    if shape is None or None in shape:
        return False
    handle, index = args[:2]
    value = ctx.numpy_arg(node.inputs[2], depth)  # a rank-0 value is stored as numpy
    kernel = ctx.global_(state_ops._ta_write_kernel, "k_tensor_array_write")
    ctx.line(depth, f"if 0 <= {index} < len({handle}.items):", node)
    ctx.line(depth + 1, f"{handle}.items[{index}] = {value}", node)
    ctx.line(depth, "else:", node)
    ctx.line(depth + 1, f"{kernel}({handle}, {index}, {value})", node)
    ctx.env[node.outputs[0]] = handle  # the kernel returns the storage it was given
    return True
