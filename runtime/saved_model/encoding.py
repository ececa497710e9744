"""Attribute values as JSON, and back, for the saved-model format (see docs/saved_model.md).

Every value is a JSON native (None, bool, int, float, str, list) or an object with exactly one
tag naming its kind: `{"tuple": [...]}`, `{"array": "a3"}` (a key of arrays.npz), ... Decoding
accepts only these tags and checks each payload's type, so what a file holds can only ever
become data: numbers, strings, numpy arrays, dtypes, slices, index and print-slot markers,
the file's own Variables and subgraph references. Nothing names a Python object to import or
call.
"""
import base64
import re

import numpy as np

from runtime import dtypes
from runtime.ops.io_ops import Slot
from runtime.ops.slicing import TensorIndex
from runtime.graph_def import FunctionRef
from runtime.variables import Variable


class SavedModelError(ValueError):
    """A saved model that this runtime cannot write or will not read (the message says why)."""


# dtype names a file may use (variant: TensorArray storage, made at run time, never saved)
DTYPES = dict(dtypes._BY_NAME)
ARRAY_KEY = re.compile(r"^a[0-9]{1,9}$")  # names of the arrays in arrays.npz


class Refs:
    """What tagged values refer to outside themselves, in one save or one load.

    Attributes:
        arrays: array key -> numpy array (the contents of arrays.npz).
        variables: The Variables, in file order (on save, as they are met).
        functions: On load, the names of the subgraphs a `{"function": name}` may name.
    """

    def __init__(self, arrays=None, variables=None, functions=()):
        self.arrays = {} if arrays is None else arrays
        self.variables = [] if variables is None else variables
        self.functions = functions
        self._variable_index = {}  # id(Variable) -> its index in `variables` (on save)

    def variable_index(self, variable):
        """The file index of a Variable met on save."""
        index = self._variable_index.get(id(variable))
        if index is None:
            index = self._variable_index[id(variable)] = len(self.variables)
            self.variables.append(variable)
        return index

    def add_array(self, value):
        """Stores a numpy array; returns its key."""
        key = f"a{len(self.arrays)}"
        self.arrays[key] = value
        return key


def encode(value, refs, where):
    """The JSON form of one attribute value.

    Args:
        value: The value (data, a Variable, a FunctionRef, a print Slot...).
        refs: The Refs of this save (arrays and variables are added to it).
        where: Text naming the value for errors, e.g. "attribute 'x' of node 'add'".

    Returns:
        A JSON-serialisable value.

    Raises:
        SavedModelError: for a value that is not data (a Python callable, say).
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        return _encode_array(value, refs)
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, bytes):
        return {"bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, dtypes.DType):
        return {"dtype": value.name}
    if isinstance(value, list):
        return [encode(v, refs, where) for v in value]
    if isinstance(value, tuple):
        return {"tuple": [encode(v, refs, where) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[encode(k, refs, where), encode(v, refs, where)]
                         for k, v in value.items()]}
    if isinstance(value, slice):
        return {"slice": [encode(v, refs, where) for v in (value.start, value.stop, value.step)]}
    if value is Ellipsis:
        return {"ellipsis": None}
    if isinstance(value, TensorIndex):
        return {"tensor_index": value.position}
    if isinstance(value, Slot):
        return {"slot": value.index}
    if isinstance(value, FunctionRef):
        return {"function": value.key}
    if isinstance(value, Variable):
        return {"variable": refs.variable_index(value)}
    raise SavedModelError(
        f"{where} holds {type(value).__name__} {_short(value)}, which is not data: a saved "
        f"model holds graphs and values only, never Python objects. Compute it with "
        f"tensor ops instead (a tf.py_function, for example, cannot be saved).")


def _encode_array(value, refs):
    scalar = isinstance(value, np.generic)
    array = np.asarray(value)
    if array.dtype == object:  # strings: bytes objects, written as base64 text
        items = [base64.b64encode(bytes(v)).decode("ascii") for v in array.reshape(-1)]
        return {"strings": items, "shape": list(array.shape), "scalar": scalar}
    return {"scalar" if scalar else "array": refs.add_array(array)}


def _short(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def decode(value, refs, where):
    """The attribute value a JSON form stands for (the inverse of `encode`), checked.

    Args:
        value: A value parsed from saved_model.json.
        refs: The Refs of this load: arrays read from arrays.npz, the loaded Variables, the
            subgraph names.
        where: Text naming the value for errors.

    Returns:
        The value.

    Raises:
        SavedModelError: for anything but the tags `encode` writes, with payloads of the
            types it writes.
    """
    if value is None or isinstance(value, (bool, str, int, float)):
        return value
    if isinstance(value, list):
        return [decode(v, refs, where) for v in value]
    if isinstance(value, dict) and "strings" in value:
        return _decode_strings(value, where)
    if not isinstance(value, dict) or len(value) != 1:
        raise SavedModelError(f"{where}: {_short(value)} is not a value this format writes.")
    (tag, payload), = list(value.items())[:1]
    if tag == "tuple" and isinstance(payload, list):
        return tuple(decode(v, refs, where) for v in payload)
    if tag == "dict" and isinstance(payload, list) and all(
            isinstance(p, list) and len(p) == 2 for p in payload):
        return {_hashable(decode(k, refs, where), where): decode(v, refs, where)
                for k, v in payload}
    if tag in ("array", "scalar"):
        array = refs.arrays.get(payload) if isinstance(payload, str) else None
        if array is None:
            raise SavedModelError(f"{where} names array {_short(payload)}, which arrays.npz "
                                  f"does not hold.")
        return array[()] if tag == "scalar" else array
    if tag == "bytes" and isinstance(payload, str):
        return _b64(payload, where)
    if tag == "dtype" and payload in DTYPES:
        return DTYPES[payload]
    if tag == "slice" and isinstance(payload, list) and len(payload) == 3:
        return slice(*(decode(v, refs, where) for v in payload))
    if tag == "ellipsis" and payload is None:
        return Ellipsis
    if tag in ("tensor_index", "slot", "variable") and _is_index(payload):
        if tag == "tensor_index":
            return TensorIndex(payload)
        if tag == "slot":
            return Slot(payload)
        if payload < len(refs.variables):  # the loaded Variable, named by its key
            return refs.variables[payload].handle.key
    if tag == "function" and payload in refs.functions:
        return FunctionRef(payload)
    raise SavedModelError(f"{where}: {_short(value)} is not a value this format writes (or "
                          f"refers to something the file does not hold).")


def _is_index(value):
    return type(value) is int and 0 <= value < 2 ** 31


def _hashable(key, where):
    try:
        hash(key)
    except TypeError:
        raise SavedModelError(f"{where}: a dict key must be a plain value, found "
                              f"{_short(key)}.") from None
    return key


def _b64(text, where):
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise SavedModelError(f"{where}: {_short(text)} is not base64 text.") from None


def _decode_strings(value, where):
    items, shape = value.get("strings"), value.get("shape")
    if set(value) != {"strings", "shape", "scalar"} or not isinstance(items, list) or not (
            isinstance(shape, list) and all(_is_index(d) for d in shape)) or \
            int(np.prod(shape)) != len(items) or not all(isinstance(s, str) for s in items):
        raise SavedModelError(f"{where}: {_short(value)} is not a string array this format "
                              f"writes.")
    array = np.empty(len(items), dtype=object)
    for i, text in enumerate(items):
        array[i] = _b64(text, where)
    array = array.reshape(shape)
    return array[()] if value["scalar"] is True else array
