"""A GradientTape around an eager call of a tf.function.

The call is recorded on the tape as one op whose inputs are the call's tensors and the trainable
Variables its graph reads, and whose outputs are its floating-point result tensors (TensorFlow
records a function call op the same way). Its gradient rule runs a second traced function,
cached per concrete function: the Python function again under a tape, then the
vector-Jacobian product with the upstream gradients. The forward pass thus runs twice when a
gradient is taken, once as the call and once inside the backward function.
"""
import weakref

from runtime import context
from runtime import nest
from runtime.tensor import EagerTensor
from runtime.tensor import Tensor
from runtime import gradients
from runtime.gradients import GradientTape
from runtime.gradients import UnconnectedGradients
from runtime.control_flow_grad import variables_read
from runtime.ops.creation_ops import zeros_like

_BACKWARD = weakref.WeakKeyDictionary()  # ConcreteFunction -> its backward Function


def record_call(function, args, kwargs, concrete, result):
    """Records an eager call of `function` (traced as `concrete`) on the active tapes.

    Args:
        function: The runtime.function.Function called.
        args: The positional arguments of the call.
        kwargs: The keyword arguments of the call.
        concrete: The ConcreteFunction that ran.
        result: What the call returned.
    """
    structure = (tuple(args), dict(kwargs))
    leaves = nest.flatten(structure)
    positions = [i for i, v in enumerate(leaves) if isinstance(v, EagerTensor)]
    inputs = [leaves[i] for i in positions]
    variables = [v for v in variables_read([concrete.graph])
                 if v.trainable and v.dtype.is_floating]
    for variable in variables:
        gradients.note_variable_access(variable)
    outputs = [t for t in nest.flatten(result)
               if isinstance(t, EagerTensor) and t.dtype.is_floating]
    if not outputs:
        return

    def vjp(op, *dys):
        dys = [zeros_like(o) if d is None else d for d, o in zip(dys, outputs)]
        backward = _BACKWARD.get(concrete)
        if backward is None:
            backward = _BACKWARD[concrete] = _backward_function(
                function, structure, leaves, positions, variables)
        return list(backward(list(inputs), dys))

    gradients.record(vjp, inputs + variables, outputs, {})


def _backward_function(function, structure, leaves, positions, variables):
    # late: function imports this module as it loads through function.polymorphic
    from runtime.function import function as tf_function

    def backward(xs, dys):
        full = list(leaves)
        for position, x in zip(positions, xs):
            full[position] = x
        args, kwargs = nest.pack_sequence_as(structure, full)
        with GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(xs)
            tape.watch(variables)
            out = function._call_python(args, kwargs)  # converted, as the call was traced
        targets = [t for t in nest.flatten(out) if isinstance(t, Tensor) and t.dtype.is_floating]
        return tape.gradient(targets, list(xs) + list(variables), output_gradients=dys,
                             unconnected_gradients=UnconnectedGradients.ZERO)

    name = getattr(function.python_function, "__name__", "function")
    backward.__name__ = f"{name}_backward"
    return tf_function(backward)

