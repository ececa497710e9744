"""Loading a crafted saved model runs nothing and is refused with a clear error.

Each test starts from a real saved model, tampers with it as an attacker would (a pickle
payload, an op or an attribute naming Python code, a name that is code, paths out of the
directory, oversize data, cycles), and checks that `load` raises SavedModelError saying what is
wrong, and that the payload's marker file was never created.
"""
import io
import json
import os
import zipfile

import numpy as np
import pytest

import runtime as tf
from runtime.saved_model import SavedModelError
from runtime.saved_model import loading


class _Payload:
    """Unpickling this creates the marker file (what a pickle payload could do, harmlessly)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.fixture
def saved(tmp_path):
    v = tf.Variable([1.0, 2.0], name="v")

    @tf.function
    def f(x):
        if tf.reduce_sum(x) > 0:
            x = x * v
        else:
            x = x - 1.0
        return x

    f(tf.constant([1.0, 1.0]))
    module = tf.Module()
    module.v, module.f = v, f
    path = tmp_path / "model"
    tf.saved_model.save(module, str(path))
    assert tf.saved_model.load(str(path)).f(tf.constant([1.0, 1.0])).numpy().tolist() == [
        1.0, 2.0]
    return path


def _edit(path, change):
    data = json.loads((path / "saved_model.json").read_text())
    change(data)
    (path / "saved_model.json").write_text(json.dumps(data))


def _graph(data):
    return data["functions"][0]["graph"]


def _refused(path, match, marker=None):
    with pytest.raises(SavedModelError, match=match):
        tf.saved_model.load(str(path))
    if marker is not None:
        assert not os.path.exists(marker)


def test_a_pickled_object_array_is_refused_unread(saved, tmp_path):
    marker = tmp_path / "ran"
    buffer = io.BytesIO()
    np.savez(buffer, a0=np.array([_Payload(marker)], dtype=object))
    (saved / "arrays.npz").write_bytes(buffer.getvalue())
    _refused(saved, "holds Python objects \\(a pickle\\)", marker)


def test_a_pickle_in_place_of_the_json_is_refused(saved, tmp_path):
    import pickle
    marker = tmp_path / "ran"
    (saved / "saved_model.json").write_bytes(pickle.dumps(_Payload(marker)))
    _refused(saved, "is not the JSON this format writes", marker)


def test_an_op_that_is_not_registered_is_refused(saved):
    _edit(saved, lambda d: _graph(d)["nodes"][-1].update(op="os.system"))
    _refused(saved, "op 'os.system' is not an op of this runtime")


def test_a_py_function_node_is_refused(saved):
    def change(data):
        node = _graph(data)["nodes"][-1]
        node.update(op="py_function", attrs={"func": "os.system", "Tout": {"tuple": []}})
    _edit(saved, change)
    _refused(saved, "op 'py_function' cannot be loaded: it calls a Python function")


@pytest.mark.parametrize("value", [
    {"callable": "os.system"},
    {"py/object": "subprocess.Popen"},
    {"function": "builtins.eval"},
    {"variable": 7},
    {"tuple": [{"__reduce__": ["os.system", ["echo"]]}]},
], ids=["callable", "py-object", "unknown-function", "missing-variable", "nested"])
def test_an_attribute_naming_python_code_is_refused(saved, value):
    _edit(saved, lambda d: _graph(d)["nodes"][-1]["attrs"].update(extra=value))
    _refused(saved, "is not a value this format writes")


def _nodes(data):
    return [n for g in [_graph(data)] + _graph(data)["functions"] for n in g["nodes"]]


def test_a_variable_handle_that_names_no_variable_is_refused(saved):
    def change(data):
        handle, = [n for n in _nodes(data) if n["op"] == "var_handle"]
        handle["attrs"]["resource"] = "os.system"
    _edit(saved, change)
    _refused(saved, "a var_handle names a variable of the file")


@pytest.mark.parametrize("reader", ["read_variable", "multiply"])
def test_a_handle_read_by_another_op_or_a_read_of_another_tensor_is_refused(saved, reader):
    def change(data):
        graph, = [g for g in _graph(data)["functions"] if any(
            n["op"] == "var_handle" for n in g["nodes"])]
        nodes = {n["op"]: n for n in graph["nodes"]}
        handle, read = nodes["var_handle"]["name"], nodes["read_variable"]["name"]
        if reader == "multiply":  # the handle in place of the value read
            inputs = nodes["multiply"]["inputs"]
            inputs[inputs.index(read)] = handle
        else:  # a constant in place of the handle
            const = next(n for n in _nodes(data) if n["op"] == "constant")
            graph["nodes"].insert(0, dict(const, name="c"))
            nodes["read_variable"]["inputs"][0] = "c"
    _edit(saved, change)
    _refused(saved, "only the variable ops read a variable's handle")


def test_a_resource_tensor_made_by_another_op_is_refused(saved):
    def change(data):
        node = [n for n in _graph(data)["nodes"] if n["op"] not in (
            "placeholder", "var_handle")][0]
        node["outputs"] = [[[], "resource"]]
    _edit(saved, change)
    _refused(saved, "only a var_handle makes a resource tensor")


def test_an_attribute_name_that_is_code_is_refused(saved, tmp_path):
    marker = tmp_path / "ran"
    key = f"x=open({str(marker)!r}, 'w'), y"  # the code generator writes names as keywords
    _edit(saved, lambda d: _graph(d)["nodes"][-1]["attrs"].update({key: 1}))
    _refused(saved, "attribute name .* is not an identifier", marker)


def test_a_node_name_that_is_code_is_refused(saved):
    _edit(saved, lambda d: _graph(d)["nodes"][-1].update(name="a = __import__('os')"))
    _refused(saved, "is not a valid name")


def test_paths_out_of_the_directory_are_refused(saved, tmp_path):
    _edit(saved, lambda d: d["variables"][0].update(value={"array": "../../etc/passwd"}))
    _refused(saved, "names array '../../etc/passwd', which arrays.npz does not hold")
    with zipfile.ZipFile(saved / "arrays.npz", "a") as archive:
        archive.writestr("../evil.npy", b"")
    _refused(saved, "member '../evil.npy' is not an array this format writes")


@pytest.mark.parametrize("name", ["variables", "__class__", "_name", "a b"])
def test_an_attribute_that_would_replace_the_modules_own_is_refused(saved, name):
    _edit(saved, lambda d: d["root"]["module"]["attributes"].update({name: {"variable": 0}}))
    _refused(saved, "is not an attribute a module may be given")


def test_a_link_in_place_of_a_file_is_refused(saved, tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    os.remove(saved / "saved_model.json")
    os.symlink(outside, saved / "saved_model.json")
    _refused(saved, "is not a regular file")


def test_oversize_files_and_arrays_are_refused(saved, monkeypatch):
    monkeypatch.setattr(loading, "MAX_JSON_BYTES", 100)
    _refused(saved, "more than runtime.saved_model.loading.MAX_JSON_BYTES")
    monkeypatch.undo()
    monkeypatch.setattr(loading, "MAX_ARRAY_BYTES", 4)
    _refused(saved, "exceed MAX_ARRAY_BYTES")


def test_an_array_declaring_more_data_than_it_holds_is_refused(saved):
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (2 ** 40,)})
    with zipfile.ZipFile(saved / "arrays.npz", "w") as archive:
        archive.writestr("a0.npy", header.getvalue() + b"\x00" * 16)
    _refused(saved, "declares more data than it holds")


def test_cycles_and_dangling_references_are_refused(saved):
    original = (saved / "saved_model.json").read_text()

    def cycle(data):
        first = _graph(data)["functions"][0]
        first["nodes"].append(dict(first["nodes"][-1], name="loop", op="cond", attrs={
            "true_graph": {"function": first["name"]}}))
    _edit(saved, cycle)
    _refused(saved, "is not a value this format writes")
    (saved / "saved_model.json").write_text(original)

    def dangling(data):
        _graph(data)["nodes"][-1]["inputs"] = ["nowhere"]
    _edit(saved, dangling)
    _refused(saved, "reads 'nowhere', which is not an output of an earlier node")


def test_another_format_or_version_and_deep_nesting_are_refused(saved):
    _edit(saved, lambda d: d.update(version=99))
    _refused(saved, "holds format 'runtime-saved-model' version 99; this runtime reads")
    (saved / "saved_model.json").write_text("[" * 100000 + "]" * 100000)
    _refused(saved, "is not the JSON this format writes")
