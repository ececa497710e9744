"""runtime.onnx: a traced function as an ONNX model (needs the `onnx` extra).

`export(fn, path)` writes the graph of a tf.function's trace as ONNX, staged `cond` and `while`
becoming ONNX `If` and `Loop`, so onnxruntime can serve a Python function with data-dependent
control flow. The rules are a table keyed by op (`lowering.LOWER`, checked at import);
docs/export.md lists what exports.
"""
from runtime.graph import CONSTANT
from runtime.onnx import array_rules  # noqa: F401 - registers its rules
from runtime.onnx import control_rules  # noqa: F401 - registers its rules
from runtime.onnx.context import UnsupportedOpError
from runtime.onnx.exporter import export
from runtime.onnx.exporter import graph_to_model
from runtime.onnx.exporter import to_model
from runtime.onnx.lowering import LOWER
from runtime.onnx.lowering import NO_LOWERING
from runtime.onnx.lowering import OPSET
from runtime.ops import registry


def check_rules():
    """Raises LookupError if a rule or a reason names an op that is not registered, or an op
    has both."""
    unknown = sorted((set(LOWER) | set(NO_LOWERING)) - set(registry.OPS) - {CONSTANT})
    both = sorted(set(LOWER) & set(NO_LOWERING))
    if unknown or both:
        raise LookupError(f"ONNX lowering rules for unregistered ops: {unknown}; ops both "
                          f"lowered and listed as not lowered: {both}.")


check_rules()

__all__ = ["LOWER", "NO_LOWERING", "OPSET", "UnsupportedOpError", "check_rules", "export",
           "graph_to_model", "to_model"]
