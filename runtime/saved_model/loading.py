"""runtime.saved_model.load: a saved directory back to functions, modules and variables.

Loading reads data only. `saved_model.json` is parsed as JSON (size-limited); `arrays.npz` is
read with `allow_pickle=False` after each member's name, header and size are checked (no
object arrays, nothing larger than its member). Every op, attribute and reference is checked
(`graphs.py`, `encoding.py`) before a graph is built; nothing in the files is imported, called
or evaluated, and the files' names are fixed, so nothing outside the directory is read.
"""
import json
import math
import os
import re
import stat

import numpy as np

from runtime.saved_model import restored
from runtime.saved_model.encoding import DTYPES
from runtime.saved_model.encoding import Refs
from runtime.saved_model.encoding import SavedModelError
from runtime.saved_model.encoding import decode
from runtime.saved_model.graphs import _keys
from runtime.saved_model.graphs import _list
from runtime.saved_model.graphs import decode_graph
from runtime.saved_model.saving import ARRAYS_FILE
from runtime.saved_model.saving import FORMAT
from runtime.saved_model.saving import JSON_FILE
from runtime.saved_model.saving import VERSION
from runtime.variables import Variable

# Limits on what one load reads (raise them for larger models: they bound memory, not data).
MAX_JSON_BYTES = 256 * 2 ** 20
MAX_ARRAY_BYTES = 16 * 2 ** 30  # all of arrays.npz, uncompressed
_MEMBER = re.compile(r"^(a[0-9]{1,9})\.npy$")


def load(export_dir, tags=None, options=None):
    """Loads what `runtime.saved_model.save` wrote to `export_dir`.

    Args:
        export_dir: The directory.
        tags: Accepted for TensorFlow's signature; ignored.
        options: Accepted for TensorFlow's signature; ignored.

    Returns:
        A LoadedFunction (for a saved function) or a LoadedModule (for a saved Module), with
        the same traces, results and variables.

    Raises:
        SavedModelError: (a ValueError) if the files are missing, of another format or
            version, too large, or hold anything this format does not write.
    """
    del tags, options
    data = _read_json(os.path.join(export_dir, JSON_FILE))
    _keys(data, {"format", "version", "root", "functions", "variables"}, JSON_FILE)
    if data["format"] != FORMAT or data["version"] != VERSION:
        raise SavedModelError(
            f"{export_dir} holds format {data['format']!r} version {data['version']!r}; this "
            f"runtime reads {FORMAT!r} version {VERSION}. Save the model again with it.")
    refs = Refs(arrays=_read_arrays(os.path.join(export_dir, ARRAYS_FILE)))
    for i, item in enumerate(_list(data["variables"], "variables")):
        refs.variables.append(_variable(item, refs, f"variable {i}"))
    loader = _Loader(data["functions"], refs)
    return loader.object(data["root"], "root")


def _regular_file(path):
    try:
        info = os.lstat(path)
    except OSError as e:
        raise SavedModelError(f"Cannot read the saved model file {path}: {e}.") from None
    if not stat.S_ISREG(info.st_mode):
        raise SavedModelError(f"{path} is not a regular file (a link, say): refused.")
    return info.st_size


def _read_json(path):
    size = _regular_file(path)
    if size > MAX_JSON_BYTES:
        raise SavedModelError(f"{path} is {size} bytes, more than runtime.saved_model."
                              f"loading.MAX_JSON_BYTES ({MAX_JSON_BYTES}): refused.")
    with open(path, "rb") as f:
        text = f.read(MAX_JSON_BYTES + 1)
    try:
        return json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise SavedModelError(f"{path} is not the JSON this format writes ({type(e).__name__}: "
                              f"{str(e)[:100]}).") from None


def _read_arrays(path):
    """The arrays of arrays.npz, each member's header checked before anything is read."""
    # On first use: zipfile (with the pathlib, shutil, bz2 and lzma it imports) was 5 ms of
    # `import runtime`, a sixth of it, for a module only loading reads.
    import zipfile  # pylint: disable=import-outside-toplevel
    _regular_file(path)
    try:
        with zipfile.ZipFile(path) as archive:
            total = 0
            for info in archive.infolist():
                total += info.file_size
                if not _MEMBER.match(info.filename) or total > MAX_ARRAY_BYTES:
                    raise SavedModelError(
                        f"{path}: member {info.filename[:60]!r} is not an array this format "
                        f"writes, or the arrays exceed MAX_ARRAY_BYTES ({MAX_ARRAY_BYTES}).")
                with archive.open(info) as member:
                    _check_header(member, info, path)
        with np.load(path, allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
        if isinstance(e, SavedModelError):
            raise
        raise SavedModelError(f"{path} is not the array file this format writes "
                              f"({type(e).__name__}: {str(e)[:100]}).") from None


def _check_header(member, info, path):
    version = np.lib.format.read_magic(member)
    read = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
        np.lib.format.read_array_header_2_0
    shape, _, dtype = read(member)
    if dtype.hasobject:
        raise SavedModelError(f"{path}: {info.filename} holds Python objects (a pickle), "
                              f"which this format never writes: refused.")
    if math.prod(shape) * dtype.itemsize > info.file_size:
        raise SavedModelError(f"{path}: {info.filename} declares more data than it holds.")


def _variable(item, refs, where):
    _keys(item, {"name", "dtype", "shape", "trainable", "value"}, where)
    value = decode(item["value"], refs, where)
    if not isinstance(value, np.ndarray) or item["dtype"] not in DTYPES or \
            DTYPES[item["dtype"]].np_dtype != value.dtype or list(value.shape) != item["shape"] \
            or not isinstance(item["trainable"], bool) or not isinstance(item["name"], str):
        raise SavedModelError(f"{where}: its value, dtype, shape, name or trainable flag is "
                              f"not what this format writes.")
    return Variable(value, trainable=item["trainable"], name=item["name"],
                    dtype=DTYPES[item["dtype"]])


class _Loader:
    """Rebuilds the object tree; each saved trace is rebuilt once, when first named."""

    def __init__(self, functions, refs):
        self.functions = _list(functions, "functions")
        self.refs = refs
        self.built = {}  # index -> LoadedConcreteFunction

    def object(self, data, where):
        if data is None:
            return None
        if not isinstance(data, dict) or len(data) != 1:
            raise SavedModelError(f"{where}: not an object this format writes.")
        (kind, payload), = data.items()
        if kind == "variable" and type(payload) is int and 0 <= payload < len(
                self.refs.variables):
            return self.refs.variables[payload]
        if kind == "function" and isinstance(payload, dict):
            _keys(payload, {"name", "concretes"}, where)
            return restored.LoadedFunction(
                str(payload["name"]), [self.concrete(i, where)
                                       for i in _list(payload["concretes"], where)])
        if kind == "module" and isinstance(payload, dict):
            return self.module(payload, where)
        if kind in ("list", "tuple") and isinstance(payload, list):
            items = [self.object(v, f"{where}[{i}]") for i, v in enumerate(payload)]
            return items if kind == "list" else tuple(items)
        if kind == "dict" and isinstance(payload, dict):
            return {k: self.object(v, f"{where}[{k!r}]") for k, v in payload.items()}
        raise SavedModelError(f"{where}: {kind!r} is not an object this format writes.")

    def module(self, payload, where):
        _keys(payload, {"name", "attributes"}, where)
        try:
            module = restored.LoadedModule(name=payload["name"])
        except (ValueError, TypeError):
            raise SavedModelError(f"{where}: {payload['name']!r} is not a module name.") from None
        attributes = payload["attributes"]
        if not isinstance(attributes, dict):
            raise SavedModelError(f"{where}: attributes must be an object.")
        for name, value in attributes.items():
            if not name.isidentifier() or name in vars(module) or (
                    hasattr(type(module), name) and name != "__call__"):
                raise SavedModelError(f"{where}: {name!r} is not an attribute a module may "
                                      f"be given.")
            setattr(module, name, self.object(value, f"{where}.{name}"))
        return module

    def concrete(self, index, where):
        if type(index) is not int or not 0 <= index < len(self.functions):
            raise SavedModelError(f"{where}: names function {index!r}, which is not saved.")
        if index not in self.built:
            item = self.functions[index]
            place = f"function {index}"
            _keys(item, {"name", "graph", "args", "kwargs", "outputs"}, place)
            graph_def = decode_graph(item["graph"], self.refs, place)
            try:
                self.built[index] = restored.LoadedConcreteFunction(
                    graph_def.name, graph_def, _pairs(item["args"], place),
                    _pairs(item["kwargs"], place), item["outputs"])
            except SavedModelError:
                raise
            except Exception as e:  # noqa: BLE001 - a checked graph that still fails to build
                raise SavedModelError(f"{place} ({graph_def.name}) could not be rebuilt: "
                                      f"{type(e).__name__}: {str(e)[:200]}") from None
        return self.built[index]


def _pairs(value, where):
    pairs = _list(value, where)
    if not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and
               p[0].isidentifier() for p in pairs):
        raise SavedModelError(f"{where}: arguments must be [name, structure] pairs.")
    return [tuple(p) for p in pairs]
