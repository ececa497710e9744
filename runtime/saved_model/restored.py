"""What runtime.saved_model.load returns: functions and modules rebuilt without their source.

A `LoadedFunction` holds one `LoadedConcreteFunction` per saved trace and calls the first
whose signature accepts the arguments, as TensorFlow's restored functions do. Each concrete
function runs as a tf.function (input_signature: its saved tensor specs) whose Python function
replays the saved graph (`replay.py`), so calls are compiled and gradient tapes see through
them.
"""
from runtime.function import function as tf_function
from runtime.graph import Graph
from runtime.module import Module
from runtime.saved_model.replay import replay_graph
from runtime.saved_model.structures import decode_structure
from runtime.tensor import Tensor
from runtime.tensor import TensorSpec
from runtime.tensor_conversion import convert_to_tensor
from runtime.saved_model.encoding import SavedModelError
from runtime.function.concrete import _captured_variables


class _Replay:
    """The Python function of a loaded trace: replays its graph (an object per trace, so
    that each has its own frequent-retracing detector: loading many is no loop of the user's).
    """

    def __init__(self, name, graph_def):
        self.__name__ = name
        self._graph_def = graph_def

    def __call__(self, *inputs):
        return replay_graph(Graph.from_graph_def(self._graph_def), inputs)


class _NoMatch(Exception):
    """Arguments that a concrete function's signature does not accept (why, for people)."""


class LoadedConcreteFunction:
    """One saved trace: call it with arguments matching `structured_input_signature`.

    Args:
        name: The function's name.
        graph_def: The GraphDef of the saved graph (data and loaded Variables only).
        args: (parameter name, JSON structure) per positional argument as traced.
        kwargs: (parameter name, JSON structure) per keyword argument as traced.
        outputs: The JSON structure of the results.
    """

    def __init__(self, name, graph_def, args, kwargs, outputs):
        self.name = name
        self._graph_def = graph_def
        graph = Graph.from_graph_def(graph_def)
        self._specs = [TensorSpec(t.node.attrs["shape"], t.dtype, t.node.name)
                       for t in graph.inputs]
        self._spec_index = {id(s): i for i, s in enumerate(self._specs)}
        self._args = [(n, decode_structure(s, self._spec, f"{name}: argument {n!r}"))
                      for n, s in args]
        self._kwargs = [(n, decode_structure(s, self._spec, f"{name}: argument {n!r}"))
                        for n, s in kwargs]
        self._outputs = outputs
        self._output_count = len(graph.outputs)
        decode_structure(outputs, self._output_leaf, f"{name}: result")  # checks the indices

        self._function = tf_function(_Replay(name, graph_def), input_signature=self._specs,
                                     autograph=False)
        self.graph = self._function.get_concrete_function().graph

    def _spec(self, tag, index):
        if tag != "tensor" or index >= len(self._specs):
            raise _bad(f"{self.name}: an argument names input {index}, which the graph lacks")
        return self._specs[index]

    def _output_leaf(self, tag, index):
        if tag != "output" or index >= self._output_count:
            raise _bad(f"{self.name}: a result names output {index}, which the graph lacks")
        return index

    @property
    def structured_input_signature(self):
        """(args, kwargs) as traced: TensorSpecs for tensors, values for everything else."""
        return tuple(s for _, s in self._args), dict(self._kwargs)

    @property
    def variables(self):
        """The Variables the graph reads or writes."""
        return tuple(_captured_variables(self.graph))

    def __call__(self, *args, **kwargs):
        """Runs the saved graph on arguments matching the saved signature.

        Raises:
            TypeError: if the arguments do not match it.
        """
        try:
            flat = self._bind(args, kwargs)
        except _NoMatch as e:
            raise TypeError(f"{self.name}: {e}") from None
        return self._run(flat)

    def _run(self, flat):
        out = self._function(*flat)
        out = [out] if isinstance(out, Tensor) else list(out)
        return decode_structure(self._outputs, lambda tag, i: out[i], self.name)

    def _bind(self, args, kwargs):
        """The flat tensor inputs for a call, or _NoMatch saying why they do not fit."""
        params = [n for n, _ in self._args] + [n for n, _ in self._kwargs]
        if len(args) > len(self._args):
            raise _NoMatch(f"takes {len(self._args)} positional arguments, got {len(args)}")
        given = dict(zip(params, args))
        for key, value in kwargs.items():
            if key not in params or key in given:
                raise _NoMatch(f"got an unexpected or repeated argument {key!r}")
            given[key] = value
        flat = [None] * len(self._specs)
        for name, traced in self._args + self._kwargs:
            if name in given:
                _match(traced, given[name], flat, self._spec_index, name)
            elif any(isinstance(v, TensorSpec) for v in _leaves(traced)):
                raise _NoMatch(f"missing the tensor argument {name!r}")
        return flat

    def __repr__(self):
        args, kwargs = self.structured_input_signature
        return f"<LoadedConcreteFunction {self.name} args={args!r} kwargs={kwargs!r}>"


def _bad(message):
    return SavedModelError(message + ".")


def _leaves(value):
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    return [value]


def _match(traced, value, flat, spec_index, path):
    """Fills `flat` with the tensors of `value`, which must fit the traced structure."""
    if isinstance(traced, TensorSpec):
        index = spec_index[id(traced)]
        try:
            tensor = value if isinstance(value, Tensor) else convert_to_tensor(value,
                                                                               traced.dtype)
        except (TypeError, ValueError) as e:
            raise _NoMatch(f"`{path}` must be a {traced.dtype.name} tensor: {e}") from None
        if tensor.dtype is not traced.dtype or not traced.is_compatible_with(tensor):
            raise _NoMatch(f"`{path}` must fit {traced}, found {tensor!r}")
        flat[index] = tensor
    elif isinstance(traced, (list, tuple, dict)):
        if type(value) is not type(traced) and not (
                isinstance(traced, tuple) and isinstance(value, tuple)) or len(value) != len(
                traced) or isinstance(traced, dict) and set(value) != set(traced):
            raise _NoMatch(f"`{path}` must be structured as {traced!r}")
        pairs = ((k, traced[k], value[k]) for k in traced) if isinstance(traced, dict) else (
            (i, t, v) for i, (t, v) in enumerate(zip(traced, value)))
        for key, t, v in pairs:
            _match(t, v, flat, spec_index, f"{path}[{key!r}]")
    elif type(value) is not type(traced) or value != traced:
        raise _NoMatch(f"`{path}` was traced with {traced!r}, found {value!r}")


class LoadedFunction:
    """A saved tf.function: its traces, called by whichever accepts the arguments.

    Attributes:
        concrete_functions: The LoadedConcreteFunctions, in the order they were traced.
    """

    def __init__(self, name, concretes):
        self.__name__ = name
        self.concrete_functions = list(concretes)

    def __call__(self, *args, **kwargs):
        """Calls the first saved trace whose signature accepts the arguments.

        Raises:
            TypeError: (listing the saved signatures) when none does.
        """
        reasons = []
        for concrete in self.concrete_functions:
            try:
                flat = concrete._bind(args, kwargs)
            except _NoMatch as e:
                reasons.append(f"  {concrete.structured_input_signature}: {e}")
                continue
            return concrete._run(flat)
        options = "\n".join(reasons) or "  (none: the function was saved before any trace)"
        raise TypeError(f"Could not find a saved trace of {self.__name__} to call with these "
                        f"arguments. The saved traces, and why each does not fit:\n{options}")

    def get_concrete_function(self, *args, **kwargs):
        """The saved trace accepting these arguments (tensors and values), or the only one."""
        if not args and not kwargs and len(self.concrete_functions) == 1:
            return self.concrete_functions[0]
        for concrete in self.concrete_functions:
            if _accepts(concrete, args, kwargs):
                return concrete
        raise ValueError(f"No saved trace of {self.__name__} accepts {args!r} {kwargs!r}.")

    @property
    def variables(self):
        """The Variables its traces read or write."""
        found = {}
        for concrete in self.concrete_functions:
            for v in concrete.variables:
                found.setdefault(id(v), v)
        return tuple(found.values())

    def __repr__(self):
        return f"<LoadedFunction {self.__name__} ({len(self.concrete_functions)} traces)>"


def _accepts(concrete, args, kwargs):
    try:
        concrete._bind(args, kwargs)
    except _NoMatch:
        return False
    return True


class LoadedModule(Module):
    """A saved tf.Module: its variables, submodules and functions as attributes."""

    def __call__(self, *args, **kwargs):
        call = vars(self).get("__call__")
        if call is None:
            raise TypeError(f"The saved module {self.name!r} had no __call__ function.")
        return call(*args, **kwargs)
