"""The user functions of tf.data (map, filter, reduce), traced as tf.functions.

As in TensorFlow, a function given to `map` or `filter` is traced once for the dataset's
element_spec, with autograph; each element then runs the traced graph. An element that is a
tuple is passed as separate arguments (`map(lambda x, y: ...)`), anything else as one.
"""
import autograph

from runtime import context
from runtime import dtypes
from runtime.control_flow import while_loop
from runtime.data import structure
from runtime.data.structure import flat_leaves
from runtime.data.structure import pack
from runtime.function import function
from runtime.tensor import Tensor
from runtime.tensor import TensorSpec


def _arguments(spec, element):
    """The positional arguments an element gives a user function (a tuple is unpacked)."""
    return tuple(element) if type(spec) is tuple else (element,)


def _output_spec(value):
    def spec(leaf):
        tensor = leaf if isinstance(leaf, Tensor) else structure.to_tensors(leaf)
        return TensorSpec(tensor.shape, tensor.dtype)
    return pack(value, [spec(v) for v in flat_leaves(value)])


def _traced(fn):
    """`fn` as a tf.function; converted_call converts it as code in a converted function
    (a lambda inside converted code is converted already), as tf.map_fn does."""
    def element_fn(*args):
        return autograph.converted_call(fn, args, None)

    element_fn.__name__ = getattr(fn, "__name__", "element_fn").replace("<lambda>", "lambda")
    # a code object of its own: tf.function's detector of functions made anew in a loop keys
    # on the code, and dataset functions are traced once per dataset, as in TensorFlow
    element_fn.__code__ = element_fn.__code__.replace()
    return function(element_fn, autograph=False)


def element_function(fn, spec, what):
    """Traces `fn` for elements of `spec`.

    Args:
        fn: The user's function.
        spec: The element_spec.
        what: 'map' or 'filter', for messages.

    Returns:
        (step, output spec): step(flat element) runs the traced function on eager tensors
        and returns its result structure.
    """
    traced = _traced(fn)
    with context.init_scope():
        concrete = traced.get_concrete_function(*_arguments(spec, spec))
    out_spec = _output_spec(concrete.structured_outputs)

    def step(flat):
        return concrete(*_arguments(spec, structure.to_eager(spec, flat)))

    return step, out_spec


def predicate(fn, spec):
    """Traces a filter predicate; returns test(flat element) -> Python bool.

    Raises:
        ValueError: when the predicate does not return a scalar bool.
    """
    step, out = element_function(fn, spec, "filter")
    if not (isinstance(out, TensorSpec) and out.dtype is dtypes.bool and out.shape == ()):
        raise ValueError(f"Dataset.filter's predicate must return a scalar bool tensor; "
                         f"{getattr(fn, '__name__', fn)} returns {structure.describe(out)}.")
    return lambda flat: bool(step(flat).numpy())


def reduce(dataset, initial_state, reduce_func):
    """Dataset.reduce: eagerly a Python loop, in a graph a while_loop over the elements."""
    step = _traced(reduce_func)
    state = structure.to_tensors(initial_state)
    if dataset._variant is None and context.executing_eagerly():
        for element in dataset:
            state = structure.to_tensors(step(state, element))
        return state
    length, getitem = dataset._iteration()

    def body(index, *flat):
        new = structure.to_tensors(step(pack(state, flat), getitem(index)))
        return (index + 1,) + tuple(flat_leaves(new))

    final = while_loop(lambda index, *flat: index < length, body,
                       (0,) + tuple(flat_leaves(state)))
    return pack(state, final[1:])
