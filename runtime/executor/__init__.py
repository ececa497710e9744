"""Executors for graphs: the reference interpreter and the compiled (code-generating) one."""
from runtime.executor.codegen import compile  # noqa: A001 - the contract's name
from runtime.executor.interpreter import Interpreter
from runtime.executor.interpreter import interpret

__all__ = ["Interpreter", "interpret", "compile"]
