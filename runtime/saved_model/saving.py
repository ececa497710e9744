"""runtime.saved_model.save: a tf.function, a ConcreteFunction or a tf.Module to a directory.

What is written (docs/saved_model.md): `saved_model.json` (the format name and version, the
object tree, each traced function's graph and signature, each variable's name, dtype, shape
and trainability) and `arrays.npz` (variable values and array constants, numeric arrays only,
read back with `allow_pickle=False`).
"""
import io
import json
import os

import numpy as np

from runtime.function import ConcreteFunction
from runtime.function import Function
from runtime.module import Module
from runtime.saved_model.encoding import Refs
from runtime.saved_model.encoding import SavedModelError
from runtime.saved_model.encoding import encode
from runtime.saved_model.graphs import encode_graph
from runtime.saved_model.structures import encode_structure
from runtime.tensor import SymbolicTensor
from runtime.variables import Variable

FORMAT = "runtime-saved-model"
VERSION = 2  # the layout in docs/saved_model.md; a change old files cannot follow increments it
JSON_FILE = "saved_model.json"
ARRAYS_FILE = "arrays.npz"


def save(obj, export_dir, signatures=None, options=None):
    """Saves `obj` (its traced functions and variables) to the directory `export_dir`.

    As TensorFlow's `tf.saved_model.save`: a function is saved with the traces it has (and
    its input_signature's trace when it has one and none yet); a Module with its Variables,
    submodules and tf.function attributes and methods. Only `saved_model.json` and
    `arrays.npz` in `export_dir` are written (created or replaced).

    Args:
        obj: A runtime.function Function, a ConcreteFunction, or a runtime.Module.
        export_dir: The directory (created if missing).
        signatures: Accepted for TensorFlow's signature; must be None.
        options: Accepted for TensorFlow's signature; ignored.

    Raises:
        SavedModelError: (a ValueError) if a graph holds something that is not data (a
            py_function, an object argument) or a function raised while being traced.
        TypeError: if `obj` is none of the above.
    """
    del options
    if signatures is not None:
        raise NotImplementedError("save(signatures=...) is not supported: the functions are "
                                  "saved with all their traces; call them by name.")
    saver = _Saver()
    root = saver.object(obj, "the saved object")
    if root is None:
        raise TypeError(f"runtime.saved_model.save saves a tf.function, a ConcreteFunction or "
                        f"a tf.Module, found {type(obj).__name__}.")
    variables = [_variable_json(v, saver.refs) for v in saver.refs.variables]
    data = {"format": FORMAT, "version": VERSION, "root": root,
            "functions": saver.concretes, "variables": variables}
    os.makedirs(export_dir, exist_ok=True)
    _write(os.path.join(export_dir, JSON_FILE),
           json.dumps(data, indent=1, allow_nan=True).encode("utf-8"))
    buffer = io.BytesIO()
    np.savez(buffer, **saver.refs.arrays)
    _write(os.path.join(export_dir, ARRAYS_FILE), buffer.getvalue())


def _write(path, data):
    """Writes `data` to `path` through a temporary file beside it, replaced in one step."""
    temporary = path + ".tmp"
    with open(temporary, "wb") as f:
        f.write(data)
    os.replace(temporary, path)


def _variable_json(variable, refs):
    value = variable._value
    if value is None:
        raise SavedModelError(f"Variable {variable.name!r} has no value yet (its initial value "
                              f"is computed at the first call): call the function first.")
    return {"name": variable._name, "dtype": variable.dtype.name,
            "shape": list(value.shape), "trainable": bool(variable.trainable),
            "value": encode(np.asarray(value), refs, f"Variable {variable.name!r}")}


class _Saver:
    """The state of one save: the Refs, the concrete functions written, each once."""

    def __init__(self):
        self.refs = Refs()
        self.concretes = []
        self._concrete_index = {}  # id(ConcreteFunction) -> index in `concretes`

    def object(self, obj, where):
        """The JSON of one object of the tree, or None for what a saved model does not hold."""
        if isinstance(obj, Variable):
            return {"variable": self.refs.variable_index(obj)}
        if isinstance(obj, Function):
            return {"function": self.function(obj._name, _traces(obj), where)}
        if isinstance(obj, ConcreteFunction):
            return {"function": self.function(obj.name, [obj], where)}
        if isinstance(obj, Module):
            return {"module": self.module(obj, where)}
        if isinstance(obj, (list, tuple)):  # kept when it holds something saved
            items = [self.object(v, f"{where}[{i}]") for i, v in enumerate(obj)]
            if any(item is not None for item in items):
                return {"list" if isinstance(obj, list) else "tuple": items}
        elif isinstance(obj, dict) and all(isinstance(k, str) for k in obj):
            items = {k: self.object(v, f"{where}[{k!r}]") for k, v in obj.items()}
            if any(item is not None for item in items.values()):
                return {"dict": items}
        return None

    def module(self, module, where):
        attributes = {}
        names = set(vars(module)) | {n for n in dir(type(module))
                                     if isinstance(getattr(type(module), n, None), Function)}
        for name in sorted(names):
            saved = self.object(getattr(module, name), f"{where}.{name}")
            if saved is not None:
                attributes[name] = saved
        return {"name": module.name, "attributes": attributes}

    def function(self, name, concretes, where):
        indices = []
        for concrete in concretes:
            index = self._concrete_index.get(id(concrete))
            if index is None:
                index = self._concrete_index[id(concrete)] = len(self.concretes)
                self.concretes.append(self.concrete(concrete, f"{where} ({name})"))
            indices.append(index)
        return {"name": name, "concretes": indices}

    def concrete(self, concrete, where):
        """The JSON of one trace: its graph, argument structure and result structure."""
        if getattr(concrete, "deferred_error", None) is not None:
            raise SavedModelError(f"{where} raised {type(concrete.deferred_error).__name__} "
                                  f"while being traced, so it has no graph to save.")
        graph = concrete.graph
        inputs = {id(t): i for i, t in enumerate(graph.inputs)}
        outputs = {id(t): i for i, t in enumerate(graph.outputs)}

        def argument(value):
            if isinstance(value, SymbolicTensor):
                return {"tensor": inputs[id(value)]}
            return None

        def result(value):
            if isinstance(value, SymbolicTensor):
                return {"output": outputs[id(value)]}
            return None

        args = [[name, encode_structure(value, argument, f"{where}, argument {name!r}")]
                for name, value in zip(concrete._names, concrete._positional)]
        kwargs = [[name, encode_structure(value, argument, f"{where}, argument {name!r}")]
                  for name, value in concrete._keywords.items()]
        return {"name": concrete.name, "graph": encode_graph(graph, self.refs),
                "args": args, "kwargs": kwargs,
                "outputs": encode_structure(concrete.structured_outputs, result,
                                            f"{where}, result")}


def _traces(function):
    """The traces of a Function to save: those it has, or its input_signature's."""
    concretes = function._concretes()
    if not concretes and function.input_signature is not None:
        concretes = [function.get_concrete_function()]
    return concretes
