"""Tracing a tf.function's Python function into a graph: `Tracer`, the half of `Function`
that makes one ConcreteFunction (recursion, retrace warnings, variables created while tracing,
errors deferred to run time), and where its warnings and messages point in the user's code.
"""
import sys
import warnings

from autograph.operators import list_frames
from autograph.operators.exceptions import refuse_staged_text
from autograph.pyct import inspect_utils
from runtime import context
from runtime import nest
from runtime.data.structure import DatasetBase
from runtime.function import keys
from runtime.function import leaks
from runtime.function.concrete import ConcreteFunction
from runtime.graph import Graph
from runtime.ops.array_ops import identity
from runtime.tensor import Tensor
from runtime.tensor import TensorSpec
from runtime.tensor_array import TensorArray
from runtime.tensor_conversion import convert_to_tensor
from runtime.resources import ResourceTensor
from runtime.variables import Variable
from runtime.variables import observe_creation

# More traces than this make every further trace warn, naming the argument that changed.
RETRACE_WARNING_THRESHOLD = 5

SINGLETON_VARIABLE_MESSAGE = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure "
    "the tf.Variable is only created once or created outside tf.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")


class RetracingWarning(UserWarning):
    """A Function was traced more than RETRACE_WARNING_THRESHOLD times."""


class FunctionRecursionError(RecursionError):
    """A Function called itself, while being traced, with the same trace key."""


class Tracer:
    """Mixin of `Function` (runtime.function.polymorphic): traces its Python function.

    Reads the Function's `_name`, `_arg_spec`, `_executor`, `_detector`, `_active_keys`,
    `_trace_count`, `_last_leaves` and `_call_python`.
    """

    def _forbid(self, variable):
        raise ValueError(f"in user code:\n\n    {_user_location()}\n    function "
                         f"`{self._name}` created the Variable '{variable.name}'.\n\n"
                         f"    ValueError: {SINGLETON_VARIABLE_MESSAGE}")

    def _trace_once(self, call, leaves, key, on_variable, defer_errors=False):
        """Traces the Python function once into a new graph; returns the ConcreteFunction.

        `call` is (positional arguments, their parameter names, keyword arguments).

        With `defer_errors` (a call, not get_concrete_function): when the Python function
        raises a Python exception while tracing after staging side effects (a print or assert
        inside staged control flow, a variable update), the trace becomes a function that runs
        those side effects and then raises the exception: plain Python runs them before the
        error too, and a staged assert that fails first raises its own error instead. This goes
        beyond TensorFlow, which raises at trace time and runs nothing.
        """
        positional, names, keywords = call
        self._check_recursion(key, leaves)
        self._trace_count += 1
        self._maybe_warn_retrace(leaves)
        message = self._detector.traced(self._trace_count == 1, self.python_function)
        if message is not None:
            warnings.warn(message, RetracingWarning, stacklevel=_user_stacklevel())
        self._last_leaves = leaves
        graph = Graph(self._name)
        self._active_keys.append(key)
        try:
            with observe_creation(on_variable), context.graph_scope(graph):
                specs = iter(leaf for leaf in leaves if leaf.kind == keys.TENSOR)
                placeholders = []

                def feed(value):
                    if type(value) is ResourceTensor:  # a handle is captured, not fed
                        return value
                    if isinstance(value, (Tensor, TensorSpec, DatasetBase)):
                        leaf = next(specs)
                        spec = leaf.payload
                        placeholders.append(graph.placeholder(spec.dtype, spec.shape,
                                                              name=leaf.name))
                        if isinstance(value, DatasetBase):
                            return value._from_placeholder(placeholders[-1])
                        return placeholders[-1]
                    return value

                args = [nest.map_structure(feed, v) for v in positional]
                kwargs = {k: nest.map_structure(feed, v) for k, v in keywords.items()}
                result, error = self._traced_call((args, names, kwargs), graph, defer_errors)
                outputs = nest.map_structure(self._to_output, result)
        finally:
            self._active_keys.pop()
        leaks.warn_leaked(self.python_function, args, kwargs)  # (a bound method's self too)
        structure = (keys.strip_objects(args, leaves), names, keys.strip_objects_kw(kwargs, leaves))
        concrete = ConcreteFunction(graph, self._arg_spec, leaves, structure, outputs,
                                    self._executor)
        if error is not None:
            concrete._raise_after_run(error)
        return concrete

    def _traced_call(self, call, graph, defer_errors):
        """(result, None), or (None, the deferred error) of the Python function's call on the
        traced arguments `call` (positional, their names, keywords); warns for each list or
        dict argument it changed in place (`leaks.changed_arguments`)."""
        args, names, kwargs = call
        before = leaks.containers(names, args, kwargs)
        result, error = None, None
        try:
            with list_frames.replaced_lists() as replaced:
                result = self._call_python(args, kwargs)
        except Exception as e:  # noqa: BLE001 - re-raised unless deferred
            if not (defer_errors and _deferrable(e, graph)):
                raise
            error = e
        for message in leaks.changed_arguments(self.python_function, before, replaced):
            warnings.warn(message, leaks.ChangedArgumentWarning,
                          stacklevel=_user_stacklevel())
        return result, error

    def _to_output(self, value):
        if value is None:
            return None
        if type(value) is TensorArray and value._list_name is not None:
            # a Python list that a staged loop appended to: its elements, stacked (the list
            # of numbers or arrays it holds in plain Python, as one tensor)
            value = value.stack()
        if not isinstance(value, (Tensor, Variable)):
            refuse_staged_text((value,), self.python_function)  # str() of a staged value
            try:
                value = convert_to_tensor(value)
            except (TypeError, ValueError) as e:
                raise TypeError(
                    f"To be compatible with tf.function, Python functions must return zero or "
                    f"more Tensors or None values; `{self._name}` returned a "
                    f"value of type {type(value).__name__} ({value!r}), which is not "
                    f"convertible to a tensor: {e}") from None
        return identity(value, name="Identity")

    def _check_recursion(self, key, leaves):
        if key in self._active_keys:
            args = ", ".join(f"{leaf.path}: {keys.leaf_text(leaf)}" for leaf in leaves)
            raise FunctionRecursionError(
                f"Function `{self._name}` calls itself while being traced with the same trace "
                f"key ({args}), so tracing it would recurse forever. Recursive tf.functions "
                f"are not supported on tensor arguments: write the recursion as a loop "
                f"(`while` or `for i in tf.range(n)` in the function), or recurse on Python "
                f"values so that each level is a different trace.")

    def _maybe_warn_retrace(self, leaves):
        if self._trace_count <= RETRACE_WARNING_THRESHOLD or self._last_leaves is None:
            return
        reasons = keys.explain_change(self._last_leaves, leaves) or [
            "the arguments match an earlier trace's (a Variable was created, or the cache "
            "entry was dropped)"]
        warnings.warn(
            f"Function `{self._name}` has been traced {self._trace_count} times (tracing is "
            f"expensive): " + "; and ".join(reasons) + ".", RetracingWarning,
            stacklevel=_user_stacklevel())


# -- helpers ----------------------------------------------------------------------------------

def _deferrable(error, graph):
    """Whether a trace-time exception is raised when the trace runs (see `_trace_once`).

    Only Python's own exceptions (what plain Python raises too: UnboundLocalError,
    ZeroDivisionError, ...) after the trace staged a side effect. Autograph's staging errors
    and the runtime's own errors are about the trace itself and are raised at once.
    """
    return type(error).__module__ == "builtins" and graph.is_stateful()


def _user_stacklevel():
    """Returns the warnings stacklevel of the innermost caller outside the library (the user)."""
    _, hops = inspect_utils.first_user_frame(sys._getframe(1))  # from warnings.warn's caller
    return hops + 1


def _user_location():
    """Returns 'File "...", line N, in fn' for the innermost user frame with a source file."""
    frame, _ = inspect_utils.first_user_frame(sys._getframe(1), with_source=True)
    if frame is None:
        return "(location unknown)"
    return f'File "{frame.f_code.co_filename}", line {frame.f_lineno}, in {frame.f_code.co_name}'

