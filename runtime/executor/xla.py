"""`tf.function(jit_compile=True)`: the traced graph lowered op by op to jax.numpy/lax, run by
`jax.jit` (XLA, on the host CPU or a GPU).

This module holds the lowering table and never imports jax itself: `compile` imports it (and
the rule modules, runtime/executor/xla_rules.py and xla_structured.py) the first time a graph
is lowered, so `import runtime` stays free of jax.

`LOWER` maps an op name to its rule, `rule(ctx, node, *values) -> value` (a tuple for a
multi-output op), registered with `register_lowering` (checked against the op registry when
the rule module loads, as the interpreter's and the code generator's tables are). `ctx` is an
`xla_lowering.LoweringContext`. `CANNOT_LOWER` maps the ops that have no lowering to the
reason; lowering a graph that holds one raises `NotLowerableError` naming the op, the reason
and the node's user source line. tests/runtime/executor/test_xla.py checks that every
registered op is in exactly one of the two.

When it pays: XLA runs a whole loop as one compiled program, so a call whose time is in
loops of many iterations, or in large arrays, gets faster; a short call pays JAX's dispatch
(several microseconds, more than the generated numpy code's whole call), and the first call
pays XLA's compile (tens to hundreds of milliseconds). docs/runtime.md has the figures.
"""
import numpy as np

from runtime import errors
from runtime.ops import registry
from runtime.executor import optimize

LOWER = {}  # op name -> rule(ctx, node, *values)
_DATASETS = ("a tf.data pipeline runs Python to make its elements; pass the elements as "
             "arguments of the function instead")
# op name -> why it has no lowering (said in NotLowerableError).
CANNOT_LOWER = {
    "print": "it prints from Python each time it runs; XLA would print once, when it traces",
    "py_function": "it calls a Python function on numpy values, which XLA cannot run",
    "assert": "XLA cannot raise an error from inside a compiled program",
    "check_defined": "XLA cannot raise an error from inside a compiled program (a variable "
                     "that a path leaves unbound is read)",
    "random_normal": "it draws from numpy's random stream, which XLA does not have",
    "random_uniform": "it draws from numpy's random stream, which XLA does not have",
    "add_strings": "XLA has no string type",
    "dataset_source": _DATASETS, "dataset_build": _DATASETS, "dataset_iterator": _DATASETS,
    "iterator_source": _DATASETS, "iterator_length": _DATASETS, "iterator_get": _DATASETS,
    "iterator_next": _DATASETS,
    "where_indices": "its result's length depends on the values, and XLA needs static shapes",
    "tensor_array_concat": "it concatenates elements whose first dimensions may differ",
    "tensor_array_unstack": "only TensorArrays that are created, written, read and stacked "
                            "lower (to one fixed-size array)",
    "tensor_array_pop_back": "a staged list.pop() changes the array's size, and XLA needs "
                             "static shapes",
    "gather_grad": "gradient graphs run on the numpy executor",
    "loop_stack_new": "gradient graphs run on the numpy executor",
    "loop_stack_push": "gradient graphs run on the numpy executor",
    "loop_stack_pop": "gradient graphs run on the numpy executor",
    "loop_stack_size": "gradient graphs run on the numpy executor",
    "getitem_grad": "gradient graphs run on the numpy executor",
    "reduce_grad": "gradient graphs run on the numpy executor",
    "split_like": "gradient graphs run on the numpy executor",
    "grad_list_add": "gradient graphs run on the numpy executor",
    "grad_list_at": "gradient graphs run on the numpy executor",
    "grad_list_element": "gradient graphs run on the numpy executor",
    "grad_list_from_concat": "gradient graphs run on the numpy executor",
    "grad_list_from_rows": "gradient graphs run on the numpy executor",
    "grad_list_rows": "gradient graphs run on the numpy executor",
    "grad_list_zeros": "gradient graphs run on the numpy executor",
    "dataset_cardinality": _DATASETS,
}
# issue #34's ops run on the numpy executors; their XLA lowerings are not written yet
_NOT_YET = "it has no XLA lowering yet (it runs on the numpy executors)"
CANNOT_LOWER.update((op, _NOT_YET) for op in (
    "relu", "is_nan", "is_finite", "conv2d", "conv2d_backprop_input", "conv2d_backprop_filter",
    "max_pool", "max_pool_grad", "take_along_axis", "scatter_along_axis", "argsort",
    "top_k_indices", "tile", "tile_grad", "pad", "pad_grad", "cumsum", "cumprod", "gather_nd",
    "scatter_nd_add", "matrix_inverse", "matrix_determinant", "matrix_solve", "cholesky",
    "matrix_diag", "matrix_diag_part", "band_part", "eye"))

JAX_MISSING = (
    "tf.function(jit_compile=True) compiles the graph with XLA through JAX, which is not "
    "installed. Install it (`pip install jax`, or this project's extra: `pip install "
    "'autograph[jax]'`), or leave jit_compile unset to run the generated numpy code.")


class NotLowerableError(errors.UnimplementedError):
    """A graph holds an op that has no XLA lowering (jit_compile=True)."""


def register_lowering(op):
    """Decorator registering `rule(ctx, node, *values)` as the XLA lowering of op `op`.

    Args:
        op: A registered op's name.

    Returns:
        The decorator.

    Raises:
        KeyError: if no op `op` is registered.
        ValueError: if `op` already has a rule, or is listed in CANNOT_LOWER.
    """
    registry.get_op(op)  # KeyError: misspelt, renamed or removed

    def decorator(rule):
        if op in LOWER or op in CANNOT_LOWER:
            raise ValueError(f"Op {op!r} already has an XLA lowering or a reason it has none.")
        LOWER[op] = rule
        return rule
    return decorator


def not_lowerable(node, reason):
    """The NotLowerableError for `node` (the op, the reason, the user's source line)."""
    where = node.attrs.get("location") or ""
    return NotLowerableError(
        f"tf.function(jit_compile=True) cannot compile op '{node.op}' (node '{node.name}') "
        f"with XLA: {reason}.{where} Leave jit_compile unset to run this function on the "
        f"numpy executor.", node.op)


def is_known(value):
    """Whether a lowered value is known when the function is traced (a numpy value)."""
    return isinstance(value, (np.ndarray, np.generic))


def import_jax():
    """Imports jax and the lowering rules; ImportError with how to install jax if missing."""
    try:
        import jax  # noqa: F401 pylint: disable=import-outside-toplevel
    except ImportError as e:
        raise ImportError(JAX_MISSING) from e
    from runtime.executor import xla_lowering  # pylint: disable=import-outside-toplevel
    return xla_lowering


def compile(graph, inputs=None, outputs=None):  # noqa: A001 - the executors' contract name
    """Lowers `graph` to JAX and compiles it with `jax.jit`.

    Args:
        graph: The Graph.
        inputs: The placeholder tensors bound to the call arguments (default graph.inputs).
        outputs: The tensors the call returns (default graph.outputs).

    Returns:
        A callable(*arrays) -> tuple of numpy values, one per output. Variables the graph
        assigns hold their new values after each call.

    Raises:
        ImportError: when jax is not installed (saying how to install it).
        NotLowerableError: when the graph holds an op without a lowering.
    """
    lowering = import_jax()
    inputs = list(graph.inputs if inputs is None else inputs)
    outputs = list(graph.outputs if outputs is None else outputs)
    optimized = optimize.optimize(graph, inputs, outputs)
    return lowering.Compiled(optimized, optimized.inputs, optimized.outputs).function()
