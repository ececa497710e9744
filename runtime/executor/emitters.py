"""The code generator's rules for ordinary ops: inline expressions and statements by op name.

An expression rule returns source text that computes exactly what the op's registered kernel
computes (same value, dtype and errors), or None to fall back to calling the kernel. A
statement rule writes whole lines. Both tables are keyed by op name, and registering a rule
for a name the op registry does not hold raises at import (JAX's
`mlir.register_lowering(prim, rule)`), so renaming or removing an op cannot make a rule
vanish silently.

Kernels that are Python operators (``operator.add`` ...) become infix expressions and numpy
ufuncs or builtins are called directly; neither needs a rule.
"""
import operator

import numpy as np

from runtime.ops import array_ops  # noqa: F401 - registers the ops the rules below name
from runtime.ops import math_ops
from runtime.ops import registry
from runtime.ops import slicing
from runtime.ops import state_ops  # noqa: F401 - registers the ops the rules below name

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
# (on scalars `a != b` takes numpy's scalar fast paths, which `np.not_equal(a, b)` does not).
UFUNC_OPERATORS = {np.equal: "{0} == {1}", np.not_equal: "{0} != {1}"}
_NUMERIC_KINDS = "biuf"

EXPRESSIONS = {}  # op name -> expression rule(node, args, ctx) -> str | None
STATEMENTS = {}  # op name -> statement rule(node, args, ctx, depth) -> bool
PYTHON_INDEX_STATEMENTS = set()  # op names whose statement rule takes Python int operands


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
    if node.attrs or not hashable(kernel) or len(node.outputs) != 1:
        return None
    if not all(_numeric(t) for t in node.inputs + node.outputs):
        return None
    if isinstance(kernel, np.ufunc):
        return kernel if kernel.nout == 1 else None
    return _OPERATOR_UFUNCS.get(kernel)


def makes_new_array(node):
    """Whether `node`'s result is always a new array no other value shares (an elementwise
    ufunc's, a matmul's), so a later elementwise op may write over it when it is dead."""
    return _KERNEL_CALLS.get(node.op) == _NEW_ARRAY or ufunc_for(node) is not None


# Op name -> what a call of its kernel guarantees besides its value (checked at import).
# _NEW_ARRAY: the result is always a new array that no other value shares. _PYTHON_INTS: the
# kernel turns its rank-0 int operands after the first into Python ints itself (`int(index)`),
# so it takes the generated code's Python ints as they are, without a conversion to numpy.
_NEW_ARRAY = "new array"
_PYTHON_INTS = "Python ints"
_KERNEL_CALLS = {"matmul": _NEW_ARRAY, "getitem": _PYTHON_INTS,
                 "tensor_array_read": _PYTHON_INTS}
for _op in _KERNEL_CALLS:
    registry.get_op(_op)  # a misspelt or removed op fails here, at import


def takes_python_ints(node, kernel_call=False):
    """Whether `node` takes Python int operands after its first as they are.

    Args:
        node: An ordinary op node.
        kernel_call: False: through its statement emitter (indices); True: through a call
            of its kernel.

    Returns:
        True or False.
    """
    if kernel_call:
        return _KERNEL_CALLS.get(node.op) == _PYTHON_INTS
    return node.op in PYTHON_INDEX_STATEMENTS


def _checked(table, op):
    """The name of an ordinary registered op without a rule in `table` yet, else raises."""
    opdef = registry.get_op(op)  # KeyError: no such op (misspelt, renamed or removed)
    if opdef.structured:
        raise ValueError(f"Op {op!r} is structured: its code comes from its emit rule "
                         f"(registry.register_structured), not from an inline rule.")
    if op in table:
        raise ValueError(f"Op {op!r} already has a rule here.")
    return op


def register_expression(op):
    """Decorator registering `rule(node, args, ctx) -> str | None` for op `op`.

    Args:
        op: A registered ordinary op's name.

    Returns:
        The decorator.

    Raises:
        KeyError: if no op `op` is registered.
        ValueError: if `op` is structured or already has an expression rule.
    """
    def decorator(rule):
        EXPRESSIONS[_checked(EXPRESSIONS, op)] = rule
        return rule
    return decorator


def register_statement(op, python_ints=False):
    """Decorator registering `rule(node, args, ctx, depth) -> bool` for op `op`.

    A statement rule writes whole lines itself (`ctx.line`) and binds the node's outputs in
    `ctx.env`; it returns False to leave the node to `expression` and the kernel call.

    Args:
        op: A registered ordinary op's name.
        python_ints: Whether its rank-0 int operands may be Python ints (indices): the code
            and the kernel behave the same on them as on numpy ints.

    Returns:
        The decorator.

    Raises:
        KeyError: if no op `op` is registered.
        ValueError: if `op` is structured or already has a statement rule.
    """
    def decorator(rule):
        STATEMENTS[_checked(STATEMENTS, op)] = rule
        if python_ints:
            PYTHON_INDEX_STATEMENTS.add(op)
        return rule
    return decorator


def statement(node, args, ctx, depth):
    """Emits `node` as statements when a statement rule applies; returns whether it did."""
    rule = STATEMENTS.get(node.op)
    return rule is not None and rule(node, args, ctx, depth)


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
    rule = EXPRESSIONS.get(node.op)
    if rule is not None:
        text = rule(node, args, ctx)
        if text is not None:
            return text
    if node.attrs:
        return None
    kernel = registry.OPS[node.op].kernel
    template = INFIX.get(kernel) if hashable(kernel) else None
    if template is not None:
        return template.format(*args)
    template = UFUNC_OPERATORS.get(kernel) if hashable(kernel) else None
    if template is not None and all(_numeric(t) for t in node.inputs):
        return template.format(*args)
    return None


def hashable(value):
    """Whether `value` can key a dict (a kernel made by functools.partial may not)."""
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


@register_statement("var_handle")
def _var_handle(node, args, ctx, depth):
    """A handle is bound to its Variable as a global: no code runs for it."""
    ctx.env[node.outputs[0]] = ctx.global_(node.attrs["resource"].resolve(), "var")
    return True


@register_expression("read_variable")
def _read_variable(node, args, ctx):
    return f"{args[0]}._value"  # the kernel's body: a read costs an attribute load


@register_expression("identity")
def _identity(node, args, ctx):
    return args[0]


@register_expression("cast")
def _cast(node, args, ctx):
    dtype = ctx.global_(node.attrs["dtype"].np_dtype, "dt_" + node.attrs["dtype"].name)
    return f"{args[0]}.astype({dtype})"


@register_expression("floordiv")
def _floordiv(node, args, ctx):
    # The kernel only adds a zero-divisor check for integers.
    if _float(node.inputs[1]) or _nonzero_constant(ctx, node.inputs[1]):
        return f"{args[0]} // {args[1]}"
    return None


@register_expression("floormod")
def _floormod(node, args, ctx):
    if _float(node.inputs[1]) or _nonzero_constant(ctx, node.inputs[1]):
        return f"{args[0]} % {args[1]}"
    return None


@register_expression("pow")
def _pow(node, args, ctx):
    # The kernel only adds a negative-exponent check for integer bases.
    if _float(node.inputs[0]):
        return f"{args[0]} ** {args[1]}"
    value = ctx.known(node.inputs[1])
    if value is not None and not np.any(np.asarray(value) < 0):
        return f"{args[0]} ** {args[1]}"
    return None


@register_expression("truediv")
def _truediv(node, args, ctx):
    if _float(node.inputs[0]):
        return f"{args[0]} / {args[1]}"
    target = math_ops.TRUEDIV_NP.get(node.inputs[0].dtype.np_dtype)
    if target is None:
        return None
    divide = ctx.global_(np.true_divide, "np_true_divide")
    dtype = ctx.global_(target, "dt_" + target.name)
    return f"{divide}({args[0]}, {args[1]}, dtype={dtype})"


@register_expression("matmul")
def _matmul(node, args, ctx):
    if node.attrs.get("transpose_a") or node.attrs.get("transpose_b"):
        return None
    return f"{args[0]} @ {args[1]}"


@register_expression("select")
def _select(node, args, ctx):
    where = ctx.global_(np.where, "np_where")
    return f"{where}({args[0]}, {args[1]}, {args[2]})"


@register_expression("transpose")
def _transpose(node, args, ctx):
    fn = ctx.global_(np.transpose, "np_transpose")
    perm = ctx.literal(node.attrs.get("perm"))
    return f"{fn}({args[0]}, {perm})"


@register_expression("logical_not")
def _logical_not(node, args, ctx):
    # `b ^ True` is logical not for bool scalars and arrays, and no ufunc call on scalars.
    return f"{args[0]} ^ True"


def _dimension_read(node, ctx):
    """Whether `node` takes one dimension of a shape (`tf.shape(x)[1]`) as a Python int: an
    element read (`ctx.element_read`) of the shape vector at a constant index in range."""
    if not ctx.element_read(node):
        return False
    index, rank = node.attrs["spec"][0], node.inputs[0].shape[0]
    return type(index) is int and rank is not None and -rank <= index < rank


@register_statement("shape")
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


@register_statement("getitem", python_ints=True)
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
    kernel = ctx.global_(registry.OPS["getitem"].kernel, "k_getitem")
    spec = ctx.literal(node.attrs["spec"])
    view = ctx.element_view(node)
    fallback = f"{kernel}({', '.join(args)}, spec={spec})"
    if view is not None:
        fallback = ctx.python_text(node.outputs[0], fallback)
        if ctx.flat_shape(view) is not None:
            tests, index = _flat_read(node, keys, view, ctx)
            read = f"{name} = {view}[{index}]"
            if not tests:
                ctx.line(depth, read, node)
                return True
            ctx.line(depth, f"if {' and '.join(tests)}:", node)
            ctx.line(depth + 1, read, node)
            ctx.line(depth, "else:", node)
            ctx.line(depth + 1, f"{name} = {fallback}", node)
            return True
    # one index alone, not a 1-tuple: `v[i]` reads a memoryview in about 20 ns in a loop,
    # `v[i,]` in 35 (the tuple is built and parsed); an array reads the same either way
    subscript = keys[0] if len(keys) == 1 else ", ".join(keys) + ","
    read = f"{name} = {view or args[0]}[{subscript}]"
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


def _flat_read(node, keys, view, ctx):
    """How getitem `node` reads from the flat view of its array (codegen's `view`): the
    index, `i * 10 + j` (or `row + j` where `row = i * 10` is computed before the loop:
    `ctx.offsets`), and the tests of the indices not known to be in `range(dim)`. Where a
    test fails (a negative index, one past the end) the kernel reads, which counts a
    negative index from the end or raises its error.

    Returns:
        (tests, index): the test texts (empty: none needed) and the index text.
    """
    shape = ctx.flat_shape(view)
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
    return tests, sum_text(terms)


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
