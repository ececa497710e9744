"""The autograph backend for runtime values: stages control flow on tensors while tracing.

A subclass of `autograph.Backend` (autograph/backends/base.py documents the protocol),
registered when `runtime` is imported and found through the `autograph.backends` entry point. A value is staged when it is a symbolic tensor, a TensorArray of a graph being
built, or an eager tensor or Variable used while a graph is being built (as in TensorFlow,
where everything inside a tf.function is a graph value). Eagerly, tensors run as plain Python.
"""
import builtins
import contextlib
import os

from autograph.backends import Backend
from autograph.backends import register_backend
from autograph.impl import traceback_filter
from autograph.operators.exceptions import StagedMessage
from autograph.operators.exceptions import format_field

from runtime import context
from runtime import dtypes
from runtime.control_flow import cond as _cond
from runtime.control_flow import named_while_loop as _named_while_loop
from runtime import weak_types
from runtime.weak_types import weak_type
from runtime.control_flow import while_loop as _while_loop
from runtime.data.dataset import Dataset
from runtime.graph import Graph
from runtime.ops import array_ops
from runtime.ops import creation_ops
from runtime.ops import io_ops
from runtime.ops import math_ops
from runtime.tensor import EagerTensor
from runtime.tensor import SymbolicTensor
from runtime.tensor import Tensor
from runtime.tensor_conversion import constant
from runtime.tensor_conversion import constant_value
from runtime.tensor_array import TensorArray
from runtime.autograph_builtins import BUILTINS
from runtime.autograph_builtins import list_builtin
from runtime.autograph_builtins import truth
from runtime.autograph_lists import ListHooks
from runtime.autograph_lists import as_tensor as _as_tensor
from runtime.variables import Variable



class RuntimeBackend(ListHooks, Backend):
    """Stages autograph control flow as runtime graph ops (tf.cond, tf.while_loop, ...)."""

    name = "runtime"
    owned_modules = ("runtime",)

    def is_staged(self, value):
        """True for values that belong to a graph being built (see the module docstring).

        Args:
            value: Any object.

        Returns:
            A Python bool.
        """
        kind = type(value)
        if kind is SymbolicTensor:
            return True
        if kind is EagerTensor or kind is Variable:
            return not context.executing_eagerly()
        if kind is TensorArray:
            return value.handle is not None
        if kind is Dataset:
            # as in TensorFlow, a dataset loop inside a graph is always staged
            return value._variant is not None or not context.executing_eagerly()
        return False

    def cond(self, pred, true_fn, false_fn, operands=()):
        """Stages `if`: runtime.cond over branches that capture their operands.

        Args:
            pred: A scalar tensor (or Variable): a number stands for `pred != 0`, as in Python.
            true_fn: Callable taking the operands, returning a tuple.
            false_fn: Callable taking the operands, returning a tuple.
            operands: A tuple of values (a runtime branch may read any tensor of an enclosing
                graph, so they are passed as they are).

        Returns:
            The tuple of branch outputs.
        """
        return tuple(_cond(truth(pred), lambda: true_fn(*operands),
                           lambda: false_fn(*operands)))

    def while_loop(self, cond_fn, body_fn, loop_vars):
        """Stages a loop: runtime.while_loop over a tuple of loop variables.

        Args:
            cond_fn: Callable taking the loop vars, returning a scalar bool.
            body_fn: Callable taking the loop vars, returning the next ones.
            loop_vars: A tuple (Python numbers become tensors).

        Returns:
            The final loop variables, as a tuple.
        """
        loop_vars = tuple(_as_tensor(v) for v in loop_vars)
        cond_fn = _truth_of(cond_fn)
        if not loop_vars:
            # runtime.while_loop needs a loop variable: thread a dummy counter.
            _while_loop(lambda _: cond_fn(), lambda i: (body_fn(), i)[1], (0,))
            return ()
        return tuple(_while_loop(cond_fn, body_fn, loop_vars))

    def staged_loop(self, cond_fn, body_fn, loop_vars, options):
        """Stages an autograph loop: a while node whose loop variables have the user's names.

        Args:
            cond_fn: Callable taking the loop vars, returning a scalar bool.
            body_fn: Callable taking the loop vars, returning the next ones.
            loop_vars: A tuple (Python numbers become tensors).
            options: autograph's LoopOptions: the names of the loop vars, and
                `maximum_iterations` (tf.while_loop's: the loop stops after that many
                iterations). The trip count of a for loop is in `cond_fn` already.

        Returns:
            The final loop variables, as a tuple.
        """
        loop_vars = tuple(_as_tensor(v) for v in loop_vars)
        cond_fn = _truth_of(cond_fn)
        bound = options.maximum_iterations
        if not loop_vars:
            # runtime.while_loop needs a loop variable: thread a dummy counter.
            _named_while_loop(lambda _: cond_fn(), lambda i: (body_fn(), i)[1], (0,),
                              ("iteration",), bound)
            return ()
        return tuple(_named_while_loop(cond_fn, body_fn, loop_vars, options.names, bound))

    def iterate(self, iterable):
        """Describes a staged for-loop over a tensor's first dimension or a TensorArray.

        Args:
            iterable: A tensor, Variable, TensorArray or tf.data.Dataset (read in order
                through an iterator made when the graph runs).

        Returns:
            (length, getitem): a scalar length and a function from index to element; or
            None when the value cannot be iterated.

        Raises:
            TypeError: for a scalar tensor.
        """
        if type(iterable) is TensorArray:
            return iterable.size(), iterable.read
        if type(iterable) is Dataset:
            return iterable._iteration()
        iterable = _as_tensor(iterable)
        if not isinstance(iterable, Tensor):
            return None
        shape = iterable.shape
        if len(shape) == 0:
            raise TypeError(f"Cannot iterate over the scalar (rank 0) tensor {iterable!r}: a "
                            f"for loop over a tensor iterates over its first dimension.")
        node = getattr(iterable, "node", None)
        if node is not None and node.op == "range" and iterable.dtype.is_integer:
            return _range_spec(iterable, node)
        length = shape[0]
        if length is None:
            length = array_ops.shape(iterable)[0]
        return length, iterable.__getitem__

    def logical_not(self, value):
        """Stages `not x` as tf.logical_not.

        Args:
            value: A bool tensor.

        Returns:
            A bool tensor.
        """
        return math_ops.logical_not(truth(value))

    def assert_(self, cond, message_fn):
        """Stages `assert cond, message` as an assert op (InvalidArgumentError at run time).

        Args:
            cond: A bool tensor.
            message_fn: Callable returning the message (a string, tensor or None).
        """
        message = message_fn()
        data = ()
        if isinstance(message, StagedMessage):
            # f"... {x} ...": the staged fields are formatted from their run-time values
            data, fields = [], []
            for piece in message.pieces:
                if isinstance(piece, str):
                    fields.append(piece)
                elif isinstance(piece[0], (Tensor, Variable, TensorArray)):
                    data.append(piece[0])
                    fields.append((len(data) - 1, piece[1], piece[2]))
                else:
                    fields.append(format_field(*piece))
            io_ops.assert_(truth(cond), message=str(message), data=data, fields=fields)
            return
        if isinstance(message, (Tensor, Variable)):
            data, message = (message,), "Assertion failed:"
        elif isinstance(message, (tuple, list)) and any(
                isinstance(part, (Tensor, Variable)) for part in message):
            # assert c, ("x is", x): the text, then the tensors' values at run time
            data = tuple(p for p in message if isinstance(p, (Tensor, Variable)))
            message = " ".join(str(p) for p in message if not isinstance(p, (Tensor, Variable)))
        elif message is None:
            message = "Assertion failed"
        io_ops.assert_(truth(cond), message=str(message), data=data)

    def print_(self, *args, sep=" ", end="\n"):
        """Handles `print(...)` of staged values.

        At the top level of a traced function, Python's print runs once, while tracing, and
        shows symbolic tensors (`Tensor("x:0", shape=(), dtype=int32)`): the tf.function
        guide relies on this to show when tracing happens. Inside a staged branch or loop
        body, a trace-time print would run once for both branches and never per iteration,
        so there it becomes tf.print, which prints the values at every execution.

        Args:
            *args: Values to print.
            sep: Separator.
            end: Line end.
        """
        graph = context.get_graph()
        if graph is None or graph.outer_graph is None:
            builtins.print(*args, sep=sep, end=end)
        else:
            io_ops.print_(*args, sep=sep, end=end, style="python")

    def check_defined(self, defined, error):
        """Stages a check raising `error` (an UnboundLocalError) when `defined` is false.

        A `check_defined` op with no outputs: stateful, so it runs where it is staged (inside a
        branch only when the branch is taken); it raises an UnboundLocalError with `error`'s
        message, as plain Python raises it.

        Args:
            defined: A bool tensor.
            error: The exception to raise (an UnboundLocalError; its message is kept).
        """
        io_ops.check_defined(_as_tensor(defined), str(error))

    def _float_range(self):
        """`range` of a float: Python's TypeError, raised when this point runs, so that a
        `raise` staged before it (`if n != int(n): raise ValueError(...)`) runs first, as in
        Python; an empty range stands for it while tracing. tf.range would count in floats
        (`range(1, 3.5)` gave 1, 2, 3: a wrong value)."""
        self.raise_unless(constant(False), [], lambda: TypeError(
            "'float' object cannot be interpreted as an integer"))
        return creation_ops.range(0)

    def raise_unless(self, ok, values, make_error):
        """Stages a `raise` as a py_function that raises `make_error(*values)` when `ok` is
        false at run time (see `check_defined`).

        Args:
            ok: A bool tensor.
            values: Tensors the exception's message shows.
            make_error: Callable taking their run-time values (numpy), returning the exception.
        """
        def check(flag, *run_values):
            if not bool(flag.numpy()):
                error = make_error(*(v.numpy() for v in run_values))
                error._runtime_node = "raise"  # the user's own error, as Python raises it
                raise error

        io_ops.py_function(check, [_as_tensor(ok)] + [_as_tensor(v) for v in values], None)

    @contextlib.contextmanager
    def scratch(self):
        """Context manager whose staged ops go to a throwaway graph.

        Autograph stages a loop body once in here to learn the type of a value that a `return`
        inside the loop gives (TensorFlow does the same in a temporary FuncGraph). The scratch
        graph is nested in the graph being built, so the body can read its tensors.

        Yields:
            None.
        """
        with context.graph_scope(Graph("scratch", outer_graph=context.get_graph())):
            yield

    def name_outputs(self, values, names):
        """Names the outputs of a cond node after the variables of the `if` it stages.

        Args:
            values: The outputs that `cond` returned.
            names: A name per output.
        """
        node = getattr(values[0], "node", None) if values else None
        if (node is not None and len(names) == len(values) == len(node.outputs)
                and all(v is out for v, out in zip(values, node.outputs))):
            node.output_names = tuple(names)

    def probe(self):
        """While a graph is being built, a throwaway graph for a while loop's first test.

        Without it, the test that autograph evaluates to decide whether the loop is staged
        would stay in the graph as a dead node (TensorFlow uses a temporary FuncGraph).
        Eagerly there is nothing to discard.

        Returns:
            A context manager, or None when executing eagerly.
        """
        graph = context.get_graph()
        if graph is None:
            return None
        return context.graph_scope(Graph("probe", outer_graph=graph))

    def zeros_like(self, value):
        """Returns a zero of `value`'s dtype and shape in the graph being built.

        Only the dtype and static shape of `value` are read (it may belong to a scratch graph);
        unknown dimensions become 0, and the loop relaxes them.

        Args:
            value: A tensor, Variable, TensorArray (a staged list) or Python number.

        Returns:
            A tensor (or a Python zero of the same type for Python numbers, an empty
            TensorArray of the same dtype for a TensorArray).

        Raises:
            UnsupportedByBackendError: for another value.
        """
        if isinstance(value, (Tensor, Variable)):
            shape = [0 if d is None else d for d in value.shape]
            return creation_ops.zeros(shape, dtype=value.dtype)
        if type(value) is TensorArray:
            array = TensorArray(value.dtype, size=0, dynamic_size=True,
                                element_shape=value.element_shape)
            array._list_name = value._list_name
            return array
        if type(value) in (int, float, bool):
            return type(value)()
        return super().zeros_like(value)

    def type_of(self, value):
        """Describes a loop variable's type: its dtype for tensors and Python numbers.

        Args:
            value: A loop variable.

        Returns:
            A hashable description: the dtype's name for tensors, the type's name for Python
            numbers ('int', 'float', 'bool'), which are weakly typed (`compatible_types`).
        """
        weak = weak_type(value)
        if weak is not None:
            return weak.__name__
        if isinstance(value, (Tensor, Variable)):
            return value.dtype.name
        if type(value) is TensorArray:
            return _ListType(value.dtype)
        return type(value).__name__

    def compatible_types(self, before, after):
        """Equal types, or a Python number and the tensor dtype it meets (weak typing).

        A Python int or bool (or a loop variable that entered as one) may become any numeric
        tensor (`i = 0` then `i = i + n`), a Python float a float tensor, a bool tensor an
        int (Python's bool is an int): the loop is staged with the dtype they meet in
        (`runtime.control_flow` widens the initial value), a branch's Python number adopts
        the other branch's dtype (runtime/ops/promotion.py has the rules).

        Args:
            before: A `type_of` description (loop entry, or one branch).
            after: A `type_of` description (after one iteration, or the other branch).

        Returns:
            A Python bool.
        """
        if before == after:
            return True
        if after in ("int", "bool", "float") and _numeric_dtype(before) is not None:
            # a Python number adopts the dtype (a float makes an int a float: see above)
            return after != "float" or _numeric_dtype(before).is_floating
        if before == "bool" and _numeric_dtype(after) is not None:
            return True  # a bool joins an int: Python's bool is one (True == 1)
        if before in ("int", "bool"):
            after_dtype = _numeric_dtype(after)
            return after_dtype is not None or after in ("int", "bool", "float")
        if before == "float":
            after_dtype = _numeric_dtype(after)
            return after_dtype is not None and after_dtype.is_floating
        before_dtype, after_dtype = _numeric_dtype(before), _numeric_dtype(after)
        # ints of two widths are one Python type, as are floats: they meet in the wider
        return (before_dtype is not None and after_dtype is not None
                and before_dtype.is_floating == after_dtype.is_floating)

    def loop_widens(self, before, after):
        """An int or bool that the body makes a float (`n /= 4`): carried as the float; a
        list built in staged control flow that the body widens (a float appended to ints)."""
        if type(before) is _ListType and type(after) is _ListType:
            return weak_types.widened(None, before.dtype, after.dtype, True) is after.dtype
        before_dtype, after_dtype = _numeric_dtype(before), _numeric_dtype(after)
        return (before_dtype is not None and after_dtype is not None
                and not before_dtype.is_floating and after_dtype.is_floating)

    def call_builtin(self, fn, args, kwargs):
        """Overloads len/range/abs/int/float/min/max/sum/any/all for staged values.

        Args:
            fn: The builtin.
            args: Positional arguments (at least one staged).
            kwargs: Keyword arguments.

        Returns:
            The staged result.

        Raises:
            NotImplementedError: when there is no overload (autograph then calls `fn`).
        """
        if len(args) == 1 and type(args[0]) is TensorArray:
            result = list_builtin(fn, args[0], kwargs)
            if result is not None:
                return result
        if fn is builtins.range and any(_is_float(a) for a in args):
            return self._float_range()
        handler = BUILTINS.get(fn)
        if handler is None or (kwargs and fn not in (builtins.range, builtins.sum)):
            raise NotImplementedError(fn)
        return handler(*[_as_tensor(a) for a in args], **kwargs)



def _is_float(value):
    """Whether `value` is a Python float or a float tensor (which Python's range refuses)."""
    return type(value) is float or isinstance(value, Tensor) and value.dtype.is_floating

def _range_spec(tensor, node):
    """Iterates a tf.range without materialising it: element i is start + i * delta."""
    start, limit, delta = node.inputs
    length = tensor.shape[0]
    first, step = constant_value(start), constant_value(delta)
    unit = step is not None and step.ndim == 0 and step == 1
    from_zero = unit and first is not None and first.ndim == 0 and first == 0
    if length is None:
        if unit:
            # range(n) and range(a, n): the count is limit - start, clamped at 0.
            count = limit if from_zero else limit - start
        else:
            # ceil((limit - start) / delta) with floor division, clamped at 0.
            count = -((start - limit) // delta)
        length = math_ops.maximum(math_ops.cast(count, dtypes.int32), 0)
    dtype = tensor.dtype

    if from_zero:
        return length, lambda i: math_ops.cast(i, dtype)
    if unit:
        return length, lambda i: start + math_ops.cast(i, dtype)

    def getitem(i):
        return start + math_ops.cast(i, dtype) * delta

    return length, getitem


class _ListType(str):
    """`type_of` a TensorArray: its text ("TensorArray[int32]"), and its element dtype."""

    def __new__(cls, dtype):
        text = super().__new__(cls, f"TensorArray[{dtype.name}]")
        text.dtype = dtype
        return text


def _numeric_dtype(description):
    """The numeric DType a `type_of` description names, or None."""
    try:
        dtype = dtypes.as_dtype(description)
    except (TypeError, ValueError, KeyError):
        return None
    return dtype if dtype.is_numeric else None


def _truth_of(cond_fn):
    """A loop test giving Python's truth value of a staged number (`while n:`)."""
    return lambda *loop_vars: truth(cond_fn(*loop_vars))


BACKEND = RuntimeBackend()


# Installed, autograph finds BACKEND through the `autograph.backends` entry point (pyproject);
# registering on import as well serves a checkout that is not installed (the tests).
REGISTERED = register_backend(BACKEND) is BACKEND
# Errors reach the user without the runtime's frames, nor those of the code it generates.
traceback_filter.hide_frames_of(os.path.dirname(os.path.abspath(__file__)), "<runtime-")
