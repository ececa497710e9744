"""The op registry: each op's numpy kernel, shape/dtype rule, kind and statefulness.

An op is registered with a decorator on its kernel (JAX ``Primitive.def_impl`` style)::

    @register("add", infer=infer_binary, kind=OpKind.ELEMENTWISE, tf_name="AddV2")
    def _add(x, y):
        return x + y

Kernel contract: ``kernel(*input_values, **attrs)`` where the values are numpy arrays or numpy
scalars (never Python scalars) and ``attrs`` are exactly ``node.attrs``. It returns one value,
or a sequence of values when the op is ``multi_output``.

Shape rule contract: ``infer(*input_tensors, **attrs)`` gets tensors with ``.shape`` (None for
unknown dims) and ``.dtype`` and returns ``(shape, dtype)`` (a sequence of them when
``multi_output``).

Gradient contract (JAX ``defvjp``, TensorFlow ``RegisterGradient``): a differentiable op
declares its vector-Jacobian product next to its kernel::

    @defvjp("multiply")
    def _multiply_vjp(op, dy):
        x, y = op.inputs
        return [unbroadcast(dy * y, x), unbroadcast(dy * x, y)]

``vjp(op, *dys)`` gets the recorded op (``.inputs``, ``.outputs``, ``.attrs``) and one upstream
gradient per output (None for an output nothing depends on), builds the input gradients with
ordinary ops (so it works eagerly and while tracing) and returns one per input (None where
the input is not differentiable). Ops without a rule are not differentiable: a GradientTape
does not record them.

Structured ops (``cond``, ``while``, ``switch_case``) hold subgraphs in their attrs and have no
kernel. Each executor or pass that runs them has its own table of rules keyed by op name
(JAX keeps one per interpreter: ``mlir.register_lowering(while_p, rule)``): ``INTERPRET`` (the
reference interpreter), ``EMIT`` (the code generator) and ``PRUNE`` (the optimiser).
``register_structured`` registers the op and its rule in every table at once::

    register_structured("cond", tf_name="If", interpret=..., emit=..., prune=...)

A rule for an op the registry does not hold, a structured op missing from a table
(``check_rules``, run when ``runtime`` finishes importing), or a second rule for one op raises.

- ``interpret(interpreter, node)`` -> ``run(args)``: plans the node once for the reference
  interpreter (``interpreter.plan(subgraph)``) and returns a callable mapping its input values
  to its output values (``interpreter.run_plan(plan, values)`` runs a subgraph).
- ``emit(ctx, node, depth)``: writes the node's source for the compiled executor through
  ``ctx``, a ``runtime.executor.emit_context.EmitContext`` (its docstring lists what a rule
  may use: ``ctx.line``, ``ctx.value``, ``ctx.branch``, ``ctx.output_names``, ...). An input's
  value may be an expression evaluated where it is read: the rule calls
  ``ctx.materialize_all(tensors, depth)`` first on the inputs it reads more than once.
- ``prune(ctx)`` -> ``ctx.decide(...)``: says which inputs, outputs and subgraph parts survive
  optimisation (``runtime.executor.optimize.StructuredContext``). Structured nodes are never
  folded.
- ``vjp(op, *dys)``: the gradient rule, as for ``defvjp`` (``op.node`` is the structured node;
  ``runtime.control_flow_grad`` has the shared machinery: replaying a subgraph under a tape,
  `branch_vjp` for branching ops, `while_vjp`).

Optimiser contract (`runtime.executor.optimize` reads these, never an op's name):

- ``shape_only=True`` (``register``): the op's value depends only on its input's static shape
  (``shape``, ``size``, ``rank``), so it folds whenever that shape is fully known.
- ``deffuse(name)``: a fusion rule ``fuse(ctx, node, inputs)`` that returns the tensor the
  node's single output always equals (the node disappears, its users read that tensor), or a
  list of replacement inputs (the node stays, reading them), or None. ``ctx.value_of(t)``
  is ``t``'s value when known at compile time (else None) and ``ctx.analysed_inputs(node)``
  the inputs of an earlier pure node after fusion (None for stateful or unanalysed nodes).

``apply`` is the single dispatch point: it runs the kernel now in eager mode, or adds a node to
the graph being built and returns symbolic tensors; a GradientTape in scope records it.
"""
import enum

from runtime import context
from runtime.errors import DTypeMismatchError
from runtime.errors import InvalidArgumentError
from runtime.resources import ResourceTensor
from runtime.tensor import EagerTensor
from runtime.tensor import SymbolicTensor
from runtime.graph import leaked_eager_error


class OpKind(enum.Enum):
    """What an op does; the optimiser and code generator group ops by kind."""

    ELEMENTWISE = "Applies elementwise with numpy broadcasting; output dtype of the inputs."
    COMPARISON = "Elementwise with broadcasting; output dtype bool."
    REDUCTION = "Reduces over `axis` (None: all axes), optional keepdims."
    ARRAY = "Rearranges or creates values (shape, reshape, concat, slicing, fill, ...)."
    SOURCE = "Has no tensor inputs: placeholder or constant."
    RANDOM = "Draws fresh random numbers at every execution (stateful)."
    STATE = "Reads or writes a Variable or TensorArray storage (stateful)."
    IO = "Has an external side effect: print, assert, py_function (stateful)."
    CONTROL_FLOW = "Holds subgraphs in its attrs (cond, while, switch_case); see register_structured."


class OpDef:
    """A registered op.

    Attributes:
        name: Registry name (also `node.op`).
        kernel: The numpy implementation.
        infer: The shape/dtype rule.
        kind: An OpKind.
        stateful: True for ops the optimiser must never prune, fold or reorder.
        multi_output: True when the kernel returns a sequence of outputs.
        tf_name: TensorFlow's op type (e.g. 'AddV2'), used in graph_def and error messages.
        vjp: The gradient rule (see `defvjp`), or None for a non-differentiable op.
        fuse: The optimiser's fusion rule (see `deffuse`), or None.
        shape_only: True when the value depends only on the input's static shape.
        stateless_tf_name: Structured ops: TensorFlow's op type when no subgraph has side
            effects ('StatelessIf'); None for ordinary ops.
    """

    __slots__ = ("name", "kernel", "infer", "kind", "stateful", "multi_output", "tf_name",
                 "vjp", "stateless_tf_name", "fuse", "shape_only")

    def __init__(self, name, kernel, infer, kind, tf_name):
        self.name = name
        self.kernel = kernel
        self.infer = infer
        self.kind = kind
        self.stateful = kind in _STATEFUL_KINDS
        self.multi_output = False
        self.tf_name = tf_name
        self.vjp = None
        self.stateless_tf_name = None
        self.fuse = None
        self.shape_only = False

    @property
    def structured(self):
        """True for ops holding subgraphs, run through their rules instead of a kernel."""
        return self.kernel is None

    def __repr__(self):
        return f"<OpDef {self.name} ({self.kind.name})>"


OPS = {}  # name -> OpDef
_STATEFUL_KINDS = (OpKind.RANDOM, OpKind.STATE, OpKind.IO)
_state = context._state  # the per-thread graph stack, read on every op

# Op-name groups, filled by `register` (tinygrad GroupOp style).
ELEMENTWISE = set()
COMPARISON = set()
REDUCTION = set()
STATEFUL = set()
CONTROL_FLOW = set()  # the structured ops (register_structured)

_GROUPS = {OpKind.ELEMENTWISE: ELEMENTWISE, OpKind.COMPARISON: COMPARISON,
           OpKind.REDUCTION: REDUCTION}
_TF_NAMES = {"placeholder": "Placeholder", "constant": "Const"}


def register(name, *, infer, kind=OpKind.ARRAY, multi_output=False, tf_name=None,
             shape_only=False):
    """Decorator registering a kernel as op `name`.

    Args:
        name: The op name.
        infer: The shape/dtype rule.
        kind: An OpKind (RANDOM, STATE and IO ops are stateful).
        multi_output: Whether the kernel returns a sequence of outputs.
        tf_name: TensorFlow's op type; defaults to the CamelCase of `name`.
        shape_only: The value depends only on the input's static shape (folds when it is
            fully known).

    Returns:
        The decorator (which returns the kernel unchanged).

    Raises:
        ValueError: if `name` is already registered.
    """
    def decorator(kernel):
        if name in OPS:
            raise ValueError(f"Op {name!r} is already registered.")
        camel = tf_name or "".join(p.capitalize() for p in name.split("_"))
        opdef = OPS[name] = OpDef(name, kernel, infer, kind, camel)
        opdef.multi_output = multi_output
        opdef.shape_only = shape_only
        _TF_NAMES[name] = camel
        if kind in _GROUPS:
            _GROUPS[kind].add(name)
        if opdef.stateful:
            STATEFUL.add(name)
        return kernel

    return decorator


class RuleTable:
    """One executor's or pass's rules for the structured ops, keyed by op name.

    Attributes:
        name: What the rules do ('interpret', 'emit', 'prune'), as messages name it.
    """

    __slots__ = ("name", "_rules")

    def __init__(self, name):
        self.name = name
        self._rules = {}  # op name -> rule

    def register(self, op, rule):
        """Makes `rule` the rule of structured op `op` in this table.

        Raises:
            KeyError: if no op `op` is registered (a misspelt name).
            ValueError: if `op` is not structured, or already has a rule here.
            TypeError: if `rule` is not callable.
        """
        if not get_op(op).structured:
            raise ValueError(f"Op {op!r} has a kernel: only structured ops take a "
                             f"{self.name} rule.")
        if op in self._rules:
            raise ValueError(f"Op {op!r} already has a rule in the {self.name} table.")
        if not callable(rule):
            raise TypeError(f"The {self.name} rule of op {op!r} must be callable, found "
                            f"{type(rule).__name__}.")
        self._rules[op] = rule

    def __getitem__(self, op):
        try:
            return self._rules[op]
        except KeyError:
            raise KeyError(f"Op {op!r} has no {self.name} rule.") from None

    def __contains__(self, op):
        return op in self._rules

    def missing(self):
        """The structured ops without a rule in this table, sorted."""
        return sorted(CONTROL_FLOW - set(self._rules))


INTERPRET = RuleTable("interpret")  # the reference interpreter's (runtime.executor.interpreter)
EMIT = RuleTable("emit")  # the code generator's (runtime.executor.codegen)
PRUNE = RuleTable("prune")  # the optimiser's (runtime.executor.optimize)
RULE_TABLES = (INTERPRET, EMIT, PRUNE)


def check_rules():
    """Raises when a structured op lacks a rule in some table (`runtime` runs it at import).

    Raises:
        LookupError: naming each table and the ops missing from it.
    """
    gaps = [f"{table.name}: {', '.join(table.missing())}" for table in RULE_TABLES
            if table.missing()]
    if gaps:
        raise LookupError("Structured ops without rules (register them with "
                          "register_structured or RuleTable.register): " + "; ".join(gaps))


def register_structured(name, *, tf_name, interpret, emit, prune, vjp=None):
    """Registers a structured op: one holding subgraphs, run by its rules (no kernel).

    The tracing function that builds the node computes its output specs itself
    (`graph.add_node`), so a structured op has no shape rule. The rules go into the tables
    INTERPRET, EMIT and PRUNE; see the module docstring for their contracts.

    Args:
        name: The op name (`node.op`).
        tf_name: TensorFlow's op type ('If'); a node without side effects is
            'Stateless' + tf_name ('StatelessIf'), as in TensorFlow.
        interpret: The reference interpreter's rule.
        emit: The code generator's rule.
        prune: The optimiser's rule.
        vjp: The gradient rule (`vjp(op, *dys)`, as for `defvjp`; `op.node` is the structured
            node), or None for an op that is not differentiable.

    Returns:
        The OpDef.

    Raises:
        ValueError: if `name` is already registered.
        TypeError: if a rule is not callable (nothing is registered then).
    """
    if name in OPS:
        raise ValueError(f"Op {name!r} is already registered.")
    rules = ((INTERPRET, interpret), (EMIT, emit), (PRUNE, prune))
    for table, rule in rules:
        if not callable(rule):
            raise TypeError(f"The {table.name} rule of op {name!r} must be callable, found "
                            f"{type(rule).__name__}.")
    opdef = OpDef(name, None, None, OpKind.CONTROL_FLOW, tf_name)
    opdef.multi_output = True
    opdef.vjp = vjp
    opdef.stateless_tf_name = "Stateless" + tf_name
    OPS[name] = opdef
    _TF_NAMES[name] = tf_name
    CONTROL_FLOW.add(name)
    for table, rule in rules:
        table.register(name, rule)
    return opdef


def defvjp(name):
    """Decorator registering the gradient rule (vector-Jacobian product) of op `name`.

    Args:
        name: A registered op name.

    Returns:
        The decorator (which returns the rule unchanged).

    Raises:
        ValueError: if the op already has a rule.
    """
    def decorator(rule):
        opdef = get_op(name)
        if opdef.vjp is not None:
            raise ValueError(f"Op {name!r} already has a gradient rule.")
        opdef.vjp = rule
        return rule

    return decorator


def deffuse(name):
    """Decorator registering the optimiser's fusion rule of op `name` (see the module docstring).

    Args:
        name: A registered op name.

    Returns:
        The decorator (which returns the rule unchanged).

    Raises:
        ValueError: if the op already has a rule.
    """
    def decorator(rule):
        opdef = get_op(name)
        if opdef.fuse is not None:
            raise ValueError(f"Op {name!r} already has a fusion rule.")
        opdef.fuse = rule
        return rule

    return decorator


def get_op(name):
    """Returns the OpDef registered as `name`.

    Args:
        name: The op name (a node's `op`).

    Returns:
        The OpDef.

    Raises:
        KeyError: if no such op exists (e.g. for 'placeholder' and 'constant').
    """
    try:
        return OPS[name]
    except KeyError:
        raise KeyError(f"No op named {name!r} is registered; known ops: "
                       f"{', '.join(sorted(OPS))}.") from None


def tf_name(op, node=None):
    """Returns TensorFlow's op type for an op name (e.g. 'add' -> 'AddV2').

    Args:
        op: The op name.
        node: Optional Node; stateless control flow maps to 'StatelessIf'/'StatelessWhile'.

    Returns:
        A string.
    """
    opdef = OPS.get(op)
    if node is not None and opdef is not None and opdef.stateless_tf_name is not None and (
            not node.stateful):
        return opdef.stateless_tf_name
    return _TF_NAMES.get(op, op)


def apply(opdef, inputs, attrs, name=None):
    """Runs an op eagerly, or adds it to the graph being built.

    Args:
        opdef: The OpDef.
        inputs: List of Tensors (already converted and dtype-checked).
        attrs: Dict of attributes (kernel keyword arguments).
        name: Optional node name in graph mode.

    Returns:
        A Tensor, or a list of Tensors for multi_output ops.

    Raises:
        TypeError: if a symbolic tensor is used eagerly (it leaked out of its graph).
    """
    stack = _state.stack
    if not stack or stack[-1] is None:  # eager: run the kernel now
        values = []
        for t in inputs:
            if type(t) is not EagerTensor and type(t) is not ResourceTensor:
                raise _leaked(t)
            values.append(t._value)
        out = opdef.kernel(*values, **attrs)
        if opdef.multi_output:
            outputs = [EagerTensor(v) for v in out]
        else:
            outputs = [EagerTensor(out)]
    else:
        outputs = stack[-1].create_op(opdef, inputs, attrs, name)
    if _state.tapes and opdef.vjp is not None:
        # late: gradients imports this module as it loads
        from runtime import gradients
        gradients.record(opdef.vjp, inputs, outputs, attrs)
    if opdef.multi_output:
        return outputs
    return outputs[0]


def _leaked(tensor):
    if isinstance(tensor, SymbolicTensor):
        return leaked_eager_error(tensor)
    return TypeError(f"Expected a Tensor, found {type(tensor).__name__}: {tensor!r}.")


def check_same_dtype(opdef, tensors):
    """Raises TensorFlow's error when the inputs of an op do not share one dtype.

    Args:
        opdef: The OpDef (its tf_name appears in the message).
        tensors: The input Tensors.

    Raises:
        DTypeMismatchError: (an InvalidArgumentError) on a mismatch.
    """
    first = tensors[0].dtype
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not first:
            raise DTypeMismatchError(
                f"cannot compute {opdef.tf_name} as input #{i}(zero-based) was expected to be "
                f"a {first.name} tensor but is a {t.dtype.name} tensor. Use tf.cast to give "
                f"both operands the same dtype (TensorFlow does not promote dtypes).",
                opdef.name)


def check_dtype_allowed(opdef, tensor, allowed, what="T"):
    """Raises TensorFlow's error when an input dtype is not supported by an op.

    Args:
        opdef: The OpDef.
        tensor: The input Tensor.
        allowed: A collection of allowed DTypes.
        what: The attr name shown in the message.

    Raises:
        InvalidArgumentError: if the dtype is not allowed.
    """
    if tensor.dtype not in allowed:
        names = ", ".join(sorted(d.name for d in allowed))
        raise InvalidArgumentError(
            f"Value for attr '{what}' of {tensor.dtype.name} is not in the list of allowed "
            f"values for {opdef.tf_name}: {names}. Use tf.cast to convert the input.",
            opdef.name)
