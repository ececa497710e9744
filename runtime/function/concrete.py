"""ConcreteFunction: one trace of a runtime.function, a Graph plus its executor and signature."""
import operator
import weakref

from autograph.impl import traceback_filter
from runtime.data.structure import DatasetBase
from runtime.data.structure import DatasetSpec
from runtime import executor as _executor
from runtime.executor import xla as _xla
from runtime.function import calls as function_calls
from runtime.function import keys
from runtime.function import stash
from runtime.errors import InvalidArgumentError
from runtime.tensor import EagerTensor
from runtime.tensor import SymbolicTensor
from runtime.tensor import Tensor
from runtime.tensor import TensorSpec
from runtime.tensor_conversion import convert_to_tensor
from runtime.tensor_shape import shape_str
from runtime.resources import ResourceKey

EXECUTORS = {"compiled": _executor.compile, "interpreter": _executor.interpret,
             "xla": _xla.compile}


class ConcreteFunction:
    """A traced graph, callable with tensors matching the signature it was traced for.

    Built by `Function` (see runtime.function); not meant to be constructed by users.

    Args:
        graph: The traced Graph, named as the Python function (inputs are the tensor
            arguments' placeholders).
        arg_spec: The function_keys.ArgSpec of the Python function.
        leaves: The function_keys.Leaf list of the traced arguments, in flattening order.
        arg_structure: (positional values, names, keywords) as traced; tensors replaced by
            their placeholders.
        structured_outputs: The returned structure, tensors replaced by graph outputs.
        executor: 'compiled' or 'interpreter'.
    """

    def __init__(self, graph, arg_spec, leaves, arg_structure, structured_outputs, executor):
        self.name = graph.name
        self._arg_spec = arg_spec
        self._leaves = leaves
        positional, self._names, keywords = arg_structure
        # Placeholder position by identity (Tensor `==` is elementwise, so no list.index);
        # made when a direct call first checks a tensor argument (see _check_tensor).
        self._input_index = None
        outputs = [t for t in keys.flatten(structured_outputs) if t is not None]
        graph.outputs = outputs
        self._run = EXECUTORS[executor](graph, list(graph.inputs), outputs)
        graph.release_build_state()
        self._pack = function_calls.output_packer(structured_outputs)
        # When every argument is a tensor, passed positionally in graph-input order: the
        # (numpy dtype, shape with None wildcards) of each input, for the generated `_call`.
        self._fast_inputs = None
        if not keywords and len(positional) == len(graph.inputs) and all(
                t is p for t, p in zip(positional, graph.inputs)):
            self._fast_inputs = [(p.dtype.np_dtype, _placeholder_shape(p))
                                 for p in graph.inputs]
        # What Function's call tables need of the traced arguments (see feed_plan).
        self.feed_plan = feed_plan(positional, keywords, graph.inputs)
        # (graph, positional, keywords, structured outputs) as traced, or a stash.Stash of
        # them where the graph is large (see stash_graph): rebuilt when gradients, export or
        # listing ask.
        self._state = (graph, positional, keywords, structured_outputs)

    def stash_graph(self):
        """Keeps a compressed copy of the traced graph in its place where it is large (the
        Function calls it once the trace is final: its first trace's variables are
        initialised from that graph itself)."""
        state = self._state
        if type(state) is not stash.Stash:
            self._state = stash.keep(state, state[0])

    def _traced(self):
        """(graph, positional, keywords, structured outputs), rebuilt from the stash once."""
        state = self._state
        if type(state) is stash.Stash:
            state = self._state = state.load()
        return state

    @property
    def graph(self):
        """The traced Graph (rebuilt from its compressed copy where it was large)."""
        return self._traced()[0]

    @property
    def _positional(self):
        return self._traced()[1]

    @property
    def _keywords(self):
        return self._traced()[2]

    @property
    def structured_outputs(self):
        """The returned structure, graph output tensors in place of the tensors."""
        return self._traced()[3]

    # -- inspection -----------------------------------------------------------------------

    @property
    def structured_input_signature(self):
        """(args, kwargs) as traced: TensorSpecs for tensors, values for everything else."""
        specs = iter(self.graph.inputs)

        def spec_of(value):
            if isinstance(value, SymbolicTensor):
                placeholder = next(specs)
                return TensorSpec(_placeholder_shape(placeholder), placeholder.dtype,
                                  placeholder.node.name)
            if isinstance(value, keys.IdRef):
                return value.get()
            return value

        args = tuple(keys.map_structure(spec_of, v) for v in self._positional)
        kwargs = {k: keys.map_structure(spec_of, v) for k, v in self._keywords.items()}
        return args, kwargs

    @property
    def inputs(self):
        """The graph's input placeholders (TensorFlow's `ConcreteFunction.inputs`)."""
        return list(self.graph.inputs)

    @property
    def outputs(self):
        """The graph's output tensors (TensorFlow's `ConcreteFunction.outputs`)."""
        return list(self.graph.outputs)

    def _header(self):
        params = []
        for name, value in zip(self._names, self._positional):
            params.append(_param_text(name, value))
        for name, value in self._keywords.items():
            params.append(_param_text(name, value))
        return f"{self.name}({', '.join(params)})"

    def pretty_printed_signature(self, verbose=True):
        """Returns TensorFlow 2.21's summary (what `str()` prints after 'ConcreteFunction ').

        Example:

            Input Parameters:
              a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.int32, name=None)
              b (POSITIONAL_OR_KEYWORD): Literal[2]
            Output Type:
              TensorSpec(shape=(), dtype=tf.int32, name=None)
            Captures:
              None

        Args:
            verbose: Accepted for TensorFlow's signature; the summary is always this one.

        Returns:
            A string.
        """
        del verbose
        args, kwargs = self.structured_input_signature
        params = self._arg_spec.signature.parameters
        lines = ["Input Parameters:"]
        for name, value in zip(self._names, args):
            lines.append(f"  {name} ({_kind(params, name, True)}): {type_text(value)}")
        for name, value in kwargs.items():
            lines.append(f"  {name} ({_kind(params, name, False)}): {type_text(value)}")
        lines += ["Output Type:", "  " + type_text(self.structured_outputs), "Captures:"]
        captures = _captured_variables(self.graph)
        lines += [f"  {id(v)}: TensorSpec(shape={shape_str(v.shape)}, dtype=tf.resource, "
                  f"name=None)" for v in captures] or ["  None"]
        return "\n".join(lines)

    def __str__(self):
        return "ConcreteFunction " + self.pretty_printed_signature()

    def __repr__(self):
        return f"<ConcreteFunction {self._header()} at 0x{id(self):x}>"

    # -- calling --------------------------------------------------------------------------

    def _raise_after_run(self, error):
        """Makes every run execute the graph's side effects, then raise `error`.

        For a trace that stopped with a Python exception after staging side effects (see
        `Function._trace_once`).
        """
        run = self._run
        traceback = error.__traceback__

        def run_then_raise(*values):
            run(*values)
            raise error.with_traceback(traceback)

        self._run = run_then_raise
        self.deferred_error = error

    def _call_values(self, values):
        """Runs the graph on numpy values (one per tensor leaf) and packs the outputs."""
        return self._pack(self._run(*values))

    def _call(self, *args, **kwargs):
        """Runs the traced graph.

        Arguments are matched against the traced signature: tensors must have the traced
        dtype and a compatible shape, Python values must equal the traced ones (they may be
        omitted). As in TensorFlow, the flat form (only the tensor arguments, in order) is
        accepted too.

        Args:
            *args: Positional arguments, as for the Python function.
            **kwargs: Keyword arguments.

        Returns:
            The function's outputs, with eager tensors in place of graph outputs.

        Raises:
            TypeError: if a Python argument differs from the traced value, or the arguments
                do not fit the signature.
            InvalidArgumentError: if a tensor has the wrong dtype or an incompatible shape.
        """
        try:  # (the generated entry filters the same way)
            if self._fast_inputs is None:
                return self._call_general(args, kwargs)
            # (an attribute added after __init__: its instance dict stops sharing keys; only
            # the rare concrete function called directly pays that)
            self._call = function_calls.entry(self._fast_inputs, self, weakref.ref(self))
            return self._call(*args, **kwargs)
        except Exception as error:
            traceback_filter.filter_exception(error)
            raise

    # Calls read `_call` through this property: the method above at the first call, then the
    # function it generates for calls with tensors only (see Function.__call__).
    __call__ = property(operator.attrgetter("_call"), doc=_call.__doc__)

    def _call_general(self, args, kwargs):
        """Every call that the generated `_call` does not run (errors are raised here)."""
        try:
            values = self._bind_structured(args, kwargs)
        except TypeError as structured_error:
            try:
                values = self._bind_flat(args, kwargs)
            except (TypeError, InvalidArgumentError):
                raise structured_error from None
        return self._call_values(values)

    def _bind_structured(self, args, kwargs):
        positional, names, keywords = self._arg_spec.canonicalize(args, kwargs, partial=True)
        given = dict(zip(names, positional))
        given.update(keywords)
        traced = dict(zip(self._names, self._positional))
        traced.update(self._keywords)
        extra = [n for n in given if n not in traced]
        if extra:
            raise TypeError(f"{self._describe()} got unexpected arguments: {', '.join(extra)}.")
        values = []
        for name, traced_value in traced.items():
            if name in given:
                self._match(name, name, traced_value, given[name], values)
            elif any(isinstance(v, SymbolicTensor) for v in keys.flatten(traced_value)):
                raise TypeError(f"{self._describe()} missing required tensor argument "
                                f"`{name}`.")
            # else: an omitted Python value takes its traced value; nothing to feed.
        return values

    def _match(self, arg, path, traced, value, values):
        if isinstance(traced, SymbolicTensor):
            values.append(self._check_tensor(path, traced, value))
            return
        if isinstance(traced, DatasetBase):
            values.append(self._check_dataset(path, traced, value))
            return
        if isinstance(traced, keys.IdRef):
            if value is not traced.get():
                raise TypeError(
                    f"ConcreteFunction {self._describe()} was constructed with "
                    f"{_type_desc(traced.get())} in "
                    f"{path}, but was called with a different object, "
                    f"{_type_desc(value)}. Trace a new ConcreteFunction for it.")
            return
        if keys.is_nested(traced):
            if not keys.is_nested(value) or type(value) is not type(traced) or len(value) != len(
                    traced) or (isinstance(traced, dict) and set(traced) != set(value)):
                raise TypeError(
                    f"{self._describe()} was constructed with {keys.describe_structure(traced)}"
                    f" in {path}, but was called with {keys.describe_structure(value)}: the "
                    f"nesting structure differs.")
            for (suffix, t), (_, v) in zip(keys.children(traced), keys.children(value)):
                self._match(arg, path + suffix, t, v, values)
            return
        if type(value) is not type(traced) or value != traced:
            raise TypeError(
                f"ConcreteFunction {self._describe()} was constructed with "
                f"{type(traced).__name__} value {traced!r} in {path}, but was called with "
                f"{type(value).__name__} value {value!r}.")

    def _check_dataset(self, path, traced, value):
        expected = DatasetSpec(traced.element_spec)
        if not isinstance(value, DatasetBase) or DatasetSpec(value.element_spec) != expected:
            raise TypeError(f"{self._describe()} was traced with a dataset of {expected} for "
                            f"`{path}`, but was called with {keys.safe_repr(value)}. Pass a "
                            f"dataset of that element_spec, or trace a ConcreteFunction for it.")
        return value._feed_value()

    def _check_tensor(self, path, placeholder, value):
        if not isinstance(value, Tensor):
            try:
                value = convert_to_tensor(value, placeholder.dtype)
            except (TypeError, ValueError, InvalidArgumentError) as e:
                raise TypeError(f"{self._describe()} expected a {placeholder.dtype.name} "
                                f"tensor for `{path}`, found {value!r}: {e}") from None
        if type(value) is not EagerTensor:
            raise TypeError(f"{self._describe()} was called with the symbolic tensor "
                            f"'{value.name}' for `{path}`; call it with eager tensors.")
        if self._input_index is None:
            self._input_index = {id(p): i for i, p in enumerate(self.graph.inputs)}
        index = self._input_index[id(placeholder)]
        if value.dtype is not placeholder.dtype:
            raise InvalidArgumentError(
                f"cannot compute {self.name} as input #{index}(zero-based) was expected to be "
                f"a {placeholder.dtype.name} tensor but is a {value.dtype.name} tensor "
                f"(argument `{path}`). Trace a ConcreteFunction for this dtype, or tf.cast "
                f"the argument.", self.name)
        shape = _placeholder_shape(placeholder)
        if not keys.spec_accepts(TensorSpec(shape, placeholder.dtype),
                                 TensorSpec(value.shape, value.dtype)):
            raise InvalidArgumentError(
                f"cannot compute {self.name} as input #{index}(zero-based) was expected to "
                f"have shape {keys.format_shape(shape)} but has shape "
                f"{keys.format_shape(value.shape)} (argument `{path}`).", self.name)
        return value._value

    def _bind_flat(self, args, kwargs):
        leaves = [leaf for leaf in self._leaves if leaf.kind == keys.TENSOR]
        names = [p.node.name for p in self.graph.inputs]
        if len(args) > len(leaves):
            raise TypeError(f"{self._flat_describe()} takes {len(leaves)} tensor arguments, "
                            f"got {len(args)}.")
        feed = list(args) + [None] * (len(leaves) - len(args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"{self._flat_describe()} got unexpected keyword arguments: "
                                f"{key}.")
            feed[names.index(key)] = value
        values = []
        for placeholder, value in zip(self.graph.inputs, feed):
            if value is None:
                raise TypeError(f"{self._flat_describe()} missing argument "
                                f"{placeholder.node.name}.")
            if keys.is_nested(value):
                raise TypeError(f"{self._flat_describe()} takes tensors, found a "
                                f"{type(value).__name__}.")
            values.append(self._check_tensor(placeholder.node.name, placeholder, value))
        return values

    def _describe(self):
        return f"{self.name}({', '.join(list(self._names) + list(self._keywords))})"

    def _flat_describe(self):
        return f"{self.name}({', '.join(p.node.name for p in self.graph.inputs)})"


class FeedPlan:
    """What Function's call tables need of a trace's arguments, without its graph.

    Attributes:
        entries: per traced argument (positional, then keyword values): (graph input index,
            None) for a tensor argument, (None, the value) for a Python value, (None, NESTED)
            for a structure holding tensors.
        keyword_names: The traced keyword arguments' names, in order.
        input_count: The number of graph inputs.
    """

    __slots__ = ("entries", "keyword_names", "input_count")
    NESTED = object()

    def __init__(self, entries, keyword_names, input_count):
        self.entries = entries
        self.keyword_names = keyword_names
        self.input_count = input_count


def feed_plan(positional, keywords, inputs):
    """The FeedPlan of traced arguments whose tensors are the placeholders `inputs`."""
    index = {id(p): i for i, p in enumerate(inputs)}
    entries = []
    for value in list(positional) + list(keywords.values()):
        if id(value) in index:
            entries.append((index[id(value)], None))
        elif any(isinstance(v, SymbolicTensor) for v in keys.flatten(value)):
            entries.append((None, FeedPlan.NESTED))
        else:
            entries.append((None, value))
    return FeedPlan(entries, list(keywords), len(inputs))


def _placeholder_shape(placeholder):
    return placeholder.node.attrs.get("shape", placeholder.shape)


def _kind(params, name, positional):
    """TensorFlow's parameter kind for a traced argument (`*args` entries are args_0, ...)."""
    param = params.get(name)
    if param is not None:
        return param.kind.name
    return "POSITIONAL_ONLY" if positional else "KEYWORD_ONLY"


def type_text(value):
    """TensorFlow's text for a traced value's type: TensorSpec(...), Literal[2], Tuple[...]."""
    if isinstance(value, TensorSpec):
        return f"TensorSpec(shape={shape_str(value.shape)}, dtype=tf.{value.dtype.name}, name=None)"
    if isinstance(value, SymbolicTensor):
        return f"TensorSpec(shape={shape_str(value.shape)}, dtype=tf.{value.dtype.name}, name=None)"
    if value is None:
        return "None"
    if isinstance(value, DatasetBase):
        return repr(DatasetSpec(value.element_spec))
    if isinstance(value, dict):
        items = ", ".join(f"[{k!r}, {type_text(value[k])}]" for k in sorted(value))
        return f"Dict[{items}]"
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        inner = ", ".join(f"{f}={type_text(getattr(value, f))}" for f in value._fields)
        return f"{type(value).__name__}[{inner}]"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(type_text(v) for v in value)
        return f"{'Tuple' if isinstance(value, tuple) else 'List'}[{inner}]"
    if isinstance(value, (bool, int, float, str, bytes)):
        return f"Literal[{value!r}]"
    return f"Literal[{keys.safe_repr(value)}]"


def _captured_variables(graph):
    """The Variables that `graph` (or a subgraph) names (its var_handles' keys), in first-use
    order."""
    found = {}
    stack = [graph]
    while stack:
        g = stack.pop()
        for node in g.nodes:
            for value in node.attrs.values():
                if type(value) is ResourceKey:
                    variable = value.resolve()
                    found.setdefault(id(variable), variable)
                elif hasattr(value, "nodes") and hasattr(value, "outputs"):
                    stack.append(value)
    return list(found.values())


def _param_text(name, value):
    flat = keys.flatten(value)
    if any(isinstance(v, (SymbolicTensor, keys.IdRef)) for v in flat):
        return name
    return f"{name}={value!r}"


def _type_desc(value):
    return f"a {type(value).__name__} object ({keys.safe_repr(value)})"
