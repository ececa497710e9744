"""Executors for graphs: the reference interpreter and the compiled (code-generating) one."""
from runtime.executor.interpreter import Interpreter
from runtime.executor.interpreter import interpret

try:
    from runtime.executor.codegen import compile  # noqa: A001 - the contract's name
except ModuleNotFoundError as _error:
    if _error.name != "runtime.executor.codegen":
        raise
    # runtime/executor/codegen.py is being written by another engineer; until it exists,
    # `compile` is the reference interpreter (same signature, same results).
    def compile(graph, inputs, outputs):  # noqa: A001 - the contract's name
        """Returns a callable running `graph` (interpreter fallback until codegen exists).

        Args:
            graph: The Graph.
            inputs: The placeholder tensors bound to the call arguments, in order.
            outputs: The tensors whose values the call returns, in order.

        Returns:
            A callable(*arrays) -> tuple of numpy values.
        """
        return interpret(graph, inputs, outputs)

__all__ = ["Interpreter", "interpret", "compile"]
