"""export / to_model: a trace of a tf.function as an ONNX ModelProto, and its file."""
from runtime.function import ConcreteFunction
from runtime.function import Function
from runtime.onnx.context import Builder
from runtime.onnx.context import onnx_dtype
from runtime.onnx.lowering import LOWER
from runtime.onnx.lowering import OPSET


def export(fn_or_concrete, path, input_signature=None):
    """Writes the ONNX model of a traced function to `path`.

    The model's inputs are the trace's tensor arguments, named as its placeholders (the
    parameter names), and its outputs the returned tensors, flattened (`output_0`, ...).
    Variables are read when exporting and held as constants.

    Args:
        fn_or_concrete: A ConcreteFunction, or a tf.function with exactly one trace, an
            input_signature, or `input_signature` given here.
        path: The file to write (`.onnx`).
        input_signature: Optional TensorSpecs to trace `fn_or_concrete` for.

    Returns:
        The onnx.ModelProto written.

    Raises:
        UnsupportedOpError: (a NotImplementedError) naming the first op ONNX cannot express.
        ValueError: if the function has several traces and no signature says which, or
            returns no tensor.
        ImportError: if the `onnx` extra is not installed.
    """
    import onnx
    model = to_model(_concrete(fn_or_concrete, input_signature))
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return model


def _concrete(fn, input_signature):
    if isinstance(fn, ConcreteFunction):
        return fn
    if not isinstance(fn, Function):
        raise TypeError(f"runtime.onnx.export exports a tf.function or a ConcreteFunction, "
                        f"found {type(fn).__name__}.")
    if input_signature is not None:
        return fn.get_concrete_function(*input_signature)
    if fn.input_signature is not None:
        return fn.get_concrete_function()
    traces = fn._concretes()
    if len(traces) != 1:
        raise ValueError(f"{fn._name} has {len(traces)} traces: pass input_signature=[...] or "
                         f"one ConcreteFunction (fn.get_concrete_function(...)) to export.")
    return traces[0]


def to_model(concrete):
    """The onnx.ModelProto of a ConcreteFunction (see `export`)."""
    return graph_to_model(concrete.graph, concrete.name)


def graph_to_model(graph, name):
    """The onnx.ModelProto computing `graph.outputs` from `graph.inputs`.

    Raises:
        UnsupportedOpError: naming the first op ONNX cannot express.
        ValueError: if the graph has no output.
    """
    from onnx import helper
    if not graph.outputs:
        raise ValueError(f"{name} returns no tensor, and an ONNX model computes at least one "
                         f"output: return what the model should compute.")
    builder = Builder(LOWER, set())
    where = f"function {name!r}"
    inputs, bindings = [], []
    for placeholder in graph.inputs:
        binding = builder.fresh(placeholder.node.name)
        shape = placeholder.node.attrs.get("shape", placeholder.shape)
        inputs.append(helper.make_tensor_value_info(
            binding, onnx_dtype(placeholder.dtype, where),
            None if shape is None else list(shape)))
        bindings.append(binding)
    results = builder.inline(graph, bindings)
    outputs = []
    for i, (value, tensor) in enumerate(zip(results, graph.outputs)):
        out = builder.fresh(f"output_{i}")
        builder.nodes.append(helper.make_node("Identity", [value], [out],
                                              name=builder.fresh(f"n_output_{i}")))
        outputs.append(helper.make_tensor_value_info(
            out, onnx_dtype(tensor.dtype, where),
            None if tensor.shape is None else list(tensor.shape)))
    onnx_graph = helper.make_graph(builder.nodes, name, inputs, outputs)
    opsets = [helper.make_opsetid("", OPSET)]
    # The oldest IR version that holds the opset, not the newest that this onnx writes:
    # an older onnxruntime refuses a model of a newer IR version ("Unsupported model IR
    # version: 14, max supported IR version: 11", onnx 1.23 with onnxruntime 1.23).
    return helper.make_model(onnx_graph, producer_name="runtime.onnx", opset_imports=opsets,
                             ir_version=helper.find_min_ir_version_for(opsets))
