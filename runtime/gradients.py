"""tf.GradientTape: records differentiable ops and runs their vjp rules backwards.

Recording happens in one place, `runtime.ops.registry.apply`, for eager and traced ops alike:
an op is recorded on a tape when one of its inputs is tracked by that tape (watched, or
computed from a watched value), and its floating-point outputs become tracked. Variable reads
are recorded by `Variable.read_value` (trainable variables are watched when read, unless
`watch_accessed_variables=False`). `gradient` walks the records in reverse program order and
calls each op's vjp rule (registered next to its kernel with `registry.defvjp`); the rules
build the gradients with ordinary ops, so a tape inside a tf.function yields gradient nodes in
the traced graph, and a tape outside one yields eager values.
"""
import contextlib
import enum

from runtime import context
from runtime import dtypes
from runtime.tensor import Tensor
from runtime.tensor_conversion import convert_to_tensor
from runtime.ops.registry import OPS
from runtime.ops.registry import apply
from runtime.ops import tensor_array_grad
from runtime.ops.math_ops import add
from runtime.ops.math_ops import cast
from runtime.ops.creation_ops import ones_like
from runtime.ops.creation_ops import zeros_like

__all__ = ["GradientTape", "UnconnectedGradients", "stop_gradient", "custom_gradient"]

_state = context._state


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


class Record:
    """One recorded op, as a vjp rule sees it (TensorFlow's `op` argument).

    Attributes:
        vjp: The gradient rule, `vjp(record, *dys) -> input gradients`.
        inputs: The op's input Tensors (or Variables, for variable reads).
        outputs: The op's output Tensors.
        attrs: The op's attributes.
        node: The graph Node for structured ops (cond, while) whose rule needs it, else None.
    """

    __slots__ = ("vjp", "inputs", "outputs", "attrs", "node", "_tracked")

    def __init__(self, vjp, inputs, outputs, attrs, node=None):
        self.vjp = vjp
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs
        self.node = node
        self._tracked = None

    def needs_gradient(self, index):
        """True when the tape taking the gradient wants the gradient of input `index`.

        A rule may skip computing the others (returning None for them): a structured op's
        rule uses it not to build gradients nobody asked for, such as a loop's captured
        inputs that no tape watches.
        """
        tracked = self._tracked
        return tracked is None or id(self.inputs[index]) in tracked


def _differentiable(value):
    """Floating tensors and Variables, and variant tensors (TensorArray handles, whose
    gradient is a list of their elements' gradients: runtime.ops.tensor_array_grad)."""
    dtype = getattr(value, "dtype", None)
    return dtype is not None and (dtype.is_floating or dtype is dtypes.variant)


def _current_graph():
    stack = _state.stack
    return stack[-1] if stack else None


def record(vjp, inputs, outputs, attrs, node=None):
    """Records an op on every active tape that tracks one of its inputs.

    A tape records the ops of the graph (or eager context) it was entered in: ops traced into
    a tf.cond branch or while_loop body belong to the cond/while node, which is recorded
    instead.

    Args:
        vjp: The op's gradient rule.
        inputs: Its input Tensors (or Variables).
        outputs: Its output Tensors.
        attrs: Its attributes.
        node: The Node, for structured ops.
    """
    entry = None
    graph = None
    for tape in _state.tapes:
        if not tape._recording:
            continue
        if entry is None:
            graph = _current_graph()
        if tape._graph is not graph:
            continue
        tracked = tape._tracked
        for t in inputs:
            if id(t) in tracked:
                break
        else:
            continue
        if entry is None:
            entry = Record(vjp, list(inputs), list(outputs), attrs, node)
        tape._records.append(entry)
        for out in outputs:
            if _differentiable(out):
                tracked[id(out)] = out


def _identity_vjp(op, dy):
    return [dy]


def note_variable_access(variable):
    """Watches `variable` on the active tapes that watch accessed trainable variables.

    Args:
        variable: A Variable being read.
    """
    graph = _current_graph()
    for tape in _state.tapes:
        if (tape._recording and tape._graph is graph and tape._watch_accessed
                and variable.trainable and _differentiable(variable)):
            tape._watch_one(variable)


def record_variable_read(variable, tensor):
    """Records that `tensor` is the value of `variable` (called by Variable.read_value).

    Args:
        variable: The Variable.
        tensor: The Tensor its read returned.
    """
    note_variable_access(variable)
    record(_identity_vjp, [variable], [tensor], {})


class GradientTape:
    """Records operations for automatic differentiation (tf.GradientTape).

    Args:
        persistent: Whether `gradient` may be called more than once.
        watch_accessed_variables: Whether trainable Variables read while the tape is active
            are watched automatically.
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed = watch_accessed_variables
        self._tracked = {}  # id -> Tensor or Variable: watched values and values computed from them
        self._watched = {}  # id -> explicitly or automatically watched Tensor or Variable
        self._records = []  # Record, in program order
        self._recording = False  # True while inside the `with` block (and not stopped)
        self._used = False  # a non-persistent tape computes gradients once
        self._graph = None  # the graph (None: eager) whose ops this tape records

    def __enter__(self):
        self._graph = _current_graph()
        _state.tapes.append(self)
        context._open_scopes.append(None)
        self._recording = True
        return self

    def __exit__(self, *exc):
        self._recording = False
        _state.tapes.remove(self)
        context._open_scopes.pop()
        return False

    def _watch_one(self, value):
        key = id(value)
        if key not in self._watched:
            self._watched[key] = value
            self._tracked[key] = value

    def watch(self, tensor):
        """Ensures that `tensor` (a Tensor, Variable, or nested structure of them) is traced.

        Integer and boolean tensors are not differentiable and are ignored.

        Args:
            tensor: A Tensor, a Variable, or a nested list/tuple/dict of them.
        """
        # late: control_flow imports this module as it loads through control_flow_grad
        # late: variables imports this module as it loads
        from runtime.control_flow import flatten
        from runtime.variables import Variable
        for value in flatten(tensor):
            if not isinstance(value, (Tensor, Variable)):
                raise ValueError(f"GradientTape.watch expects Tensors or Variables, found "
                                 f"{type(value).__name__}: {value!r}.")
            if _differentiable(value):
                self._watch_one(value)

    def watched_variables(self):
        """Returns the Variables watched by this tape, in the order they were watched."""
        # late: variables imports this module as it loads
        from runtime.variables import Variable
        return tuple(v for v in self._watched.values() if isinstance(v, Variable))

    @contextlib.contextmanager
    def stop_recording(self):
        """Context manager: operations inside are not recorded on this tape."""
        was = self._recording
        self._recording = False
        try:
            yield
        finally:
            self._recording = was

    def reset(self):
        """Forgets everything recorded so far."""
        self._tracked = {}
        self._watched = {}
        self._records = []

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """Computes the gradient of `target` with respect to `sources`.

        Args:
            target: A Tensor, or a nested structure of Tensors (their sum is differentiated).
            sources: A Tensor or Variable, or a nested structure of them.
            output_gradients: Optional upstream gradients, one per target (default ones).
            unconnected_gradients: `UnconnectedGradients.NONE` (default) gives None for a
                source the target does not depend on; `ZERO` gives zeros.

        Returns:
            The gradients, in the structure of `sources`.

        Raises:
            RuntimeError: if a non-persistent tape is used twice.
            ValueError: for an unknown `unconnected_gradients` value.
        """
        # late: control_flow imports this module as it loads through control_flow_grad
        from runtime.control_flow import flatten
        from runtime.control_flow import pack_sequence_as
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians). Create the tape with "
                               "tf.GradientTape(persistent=True) to call gradient() again.")
        unconnected_gradients = UnconnectedGradients(
            unconnected_gradients.value if isinstance(unconnected_gradients,
                                                      UnconnectedGradients)
            else unconnected_gradients)
        targets = flatten(target)
        flat_sources = flatten(sources)
        if output_gradients is None:
            upstream = [None] * len(targets)
        else:
            upstream = flatten(output_gradients)
            if len(upstream) != len(targets):
                raise ValueError(f"output_gradients has {len(upstream)} entries but target has "
                                 f"{len(targets)}; give one per target (or None).")
        was = self._recording
        self._recording = False
        try:
            grads = backward(self._records, self._tracked, targets, upstream)
        finally:
            self._recording = was
        if not self._persistent:
            self._used = True
            self._records = []
        results = []
        for source in flat_sources:
            g = grads.get(id(source))
            if g is None and unconnected_gradients is UnconnectedGradients.ZERO:
                g = _zeros_like(source)
            elif g is not None and _dtype_of(g) is not _dtype_of(source):
                g = cast(g, _dtype_of(source))
            results.append(g)
        return pack_sequence_as(sources, results)

    def jacobian(self, target, sources):
        """Not provided; compute rows with gradient() on a persistent tape."""
        raise NotImplementedError("GradientTape.jacobian is not implemented in this runtime: "
                                  "use a persistent tape and one gradient() per output.")


def _dtype_of(value):
    return value.dtype


def _zeros_like(value):
    # late: variables imports this module as it loads
    from runtime.variables import Variable
    if isinstance(value, Variable):
        value = value.read_value()
    if value.dtype is dtypes.variant:
        return tensor_array_grad.zeros()
    return zeros_like(value)


def _add(a, b):
    if a.dtype is dtypes.variant:
        return tensor_array_grad.add(a, b)
    return add(a, b)


def backward(records, tracked, targets, upstream):
    """Runs the vjp rules of `records` in reverse, from `targets` back to every tracked value.

    Args:
        records: The Records, in program order.
        tracked: id -> tracked Tensor or Variable (only these receive gradients).
        targets: The target Tensors.
        upstream: One upstream gradient (or None for ones) per target.

    Returns:
        A dict id(value) -> gradient Tensor.
    """
    grads = {}

    def accumulate(value, g):
        key = id(value)
        old = grads.get(key)
        grads[key] = g if old is None else _add(old, g)

    for t, g in zip(targets, upstream):
        if id(t) not in tracked:
            continue
        if g is None:
            g = ones_like(t)
        else:
            g = convert_to_tensor(g, dtype=t.dtype)
        accumulate(t, g)
    for entry in reversed(records):
        dys = [grads.get(id(out)) for out in entry.outputs]
        if all(d is None for d in dys):
            continue
        entry._tracked = tracked
        try:
            in_grads = entry.vjp(entry, *dys)
        finally:
            entry._tracked = None
        for value, g in zip(entry.inputs, in_grads):
            if g is not None and id(value) in tracked:
                accumulate(value, g)
    return grads


# -- stop_gradient and custom_gradient ---------------------------------------------------------

def stop_gradient(input, name=None):  # noqa: A002 - TensorFlow's name
    """Returns `input` unchanged; no gradient flows through it.

    Args:
        input: A Tensor or value.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    return apply(OPS["stop_gradient"], [convert_to_tensor(input)], {}, name)


def custom_gradient(f=None):
    """Decorator: `f(*x)` returns `(y, grad_fn)`; `grad_fn(*dy)` gives the gradients of x.

    As in TensorFlow, `grad_fn` returns one gradient per tensor argument (a single value
    when there is one). The ops inside `f` are not recorded; the call is recorded as one op.

    Args:
        f: The function.

    Returns:
        The decorated function, returning y.
    """
    if f is None:
        return custom_gradient
    import functools

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        # late: control_flow imports this module as it loads through control_flow_grad
        from runtime.control_flow import flatten
        inputs = [a for a in args if isinstance(a, Tensor)]
        tapes = _state.tapes
        saved = [t._recording for t in tapes]
        for t in tapes:
            t._recording = False
        try:
            y, grad_fn = f(*args, **kwargs)
        finally:
            for t, was in zip(tapes, saved):
                t._recording = was
        outputs = [o if isinstance(o, Tensor) else convert_to_tensor(o) for o in flatten(y)]

        def vjp(op, *dys):
            dys = [_zeros_like(o) if d is None else d for o, d in zip(op.outputs, dys)]
            grads = grad_fn(*dys)
            if not isinstance(grads, (list, tuple)):
                grads = [grads]
            grads = list(grads)
            if len(grads) != len(op.inputs):
                raise ValueError(
                    f"The grad_fn of custom_gradient function `{f.__name__}` returned "
                    f"{len(grads)} gradient(s) for {len(op.inputs)} tensor argument(s); "
                    f"return one per tensor argument.")
            return [None if g is None else convert_to_tensor(g) for g in grads]

        record(vjp, inputs, outputs, {})
        return y

    return decorated

