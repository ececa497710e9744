"""tf.function: `function`, `Function` and its trace cache, concrete functions, the call path.

Modules: polymorphic (Function, the decorator), tracer (tracing one ConcreteFunction),
concrete (ConcreteFunction), calls (the
generated `__call__` of a steady signature), signature (binding arguments), keys (trace-cache
keys, retrace explanations), options (TensorFlow's other arguments), tracing (frequent-retrace
detection), variable_lifting (Variables created on a first trace), gradients (a GradientTape
around an eager call).
"""
from runtime.function.polymorphic import ConcreteFunction
from runtime.function.polymorphic import Function
from runtime.function.polymorphic import FunctionRecursionError
from runtime.function.polymorphic import RetracingWarning
from runtime.function.polymorphic import function
from runtime.function.polymorphic import functions_run_eagerly
from runtime.function.polymorphic import run_functions_eagerly

# The public classes are shown where users import them from (`runtime.function.Function`).
for _cls in (Function, ConcreteFunction, RetracingWarning, FunctionRecursionError):
    _cls.__module__ = __name__
del _cls

__all__ = ["function", "Function", "ConcreteFunction", "RetracingWarning",
           "FunctionRecursionError", "run_functions_eagerly", "functions_run_eagerly"]
