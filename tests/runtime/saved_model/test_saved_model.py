"""runtime.saved_model: what save writes and load gives back, in this process and a fresh one.

The fresh-process test writes a module's source to a scratch file, imports it, trains and saves
the module, deletes the source, then loads the directory in a subprocess that keeps training:
its losses and variables must equal the original module's, trained the same steps here.
"""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import runtime as tf

ROOT = pathlib.Path(__file__).resolve().parents[3]

_MODEL = """
import runtime as tf

class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[0.5], [-0.25]], name="w")
        self.b = tf.Variable(0.0, name="b")
        self.steps = tf.Variable(0, name="steps", trainable=False)

    @tf.function
    def __call__(self, x):
        y = tf.matmul(x, self.w) + self.b
        i = 0
        while tf.reduce_sum(y) > 10.0 and i < 5:  # a data-dependent loop
            y = y * 0.5
            i += 1
        return y

    @tf.function
    def train(self, x, target):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((self(x) - target) ** 2)
        gw, gb = tape.gradient(loss, [self.w, self.b])
        self.w.assign_sub(0.1 * gw)
        self.b.assign_sub(0.1 * gb)
        self.steps.assign_add(1)
        return loss
"""

# What both the original module (here) and the loaded one (in the subprocess) go through.
_TRAINING = """
x = tf.constant([[1.0, 2.0], [3.0, -1.0]])
t = tf.constant([[1.0], [2.0]])
out = {"call": model(x).numpy().tolist(), "losses": []}
for _ in range(3):
    out["losses"].append(float(model.train(x, t)))
opt = tf.optimizers.SGD(0.05)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean((model(x) - t) ** 2)
grads = tape.gradient(loss, model.trainable_variables)
opt.apply_gradients(zip(grads, model.trainable_variables))
out["eager_loss"] = float(loss)
out["variables"] = {v.name: v.numpy().tolist() for v in model.variables}
out["trainable"] = sorted(v.name for v in model.trainable_variables)
"""

_CHILD = """
import importlib.util, json
import runtime as tf
assert importlib.util.find_spec("model_source") is None
model = tf.saved_model.load("saved")
""" + _TRAINING + """
print(json.dumps(out))
"""


def _expected_training(model):
    namespace = {"tf": tf, "model": model}
    exec(_TRAINING, namespace)  # noqa: S102 - this file's own text
    return namespace["out"]


def test_a_module_keeps_training_in_a_fresh_process_without_its_source(tmp_path):
    source = tmp_path / "model_source.py"
    source.write_text(_MODEL)
    sys.path.insert(0, str(tmp_path))
    try:
        import model_source
        model = model_source.Model()
        x = tf.constant([[1.0, 2.0], [3.0, -1.0]])
        t = tf.constant([[1.0], [2.0]])
        model.train(x, t)  # traces train and __call__ (a trace of its own, called eagerly)
        model(x)
        tf.saved_model.save(model, str(tmp_path / "saved"))
        expected = _expected_training(model)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("model_source", None)
    source.unlink()
    assert sorted(os.listdir(tmp_path)) in (["saved"], ["__pycache__", "saved"])
    if (tmp_path / "__pycache__").exists():
        for cached in (tmp_path / "__pycache__").iterdir():
            cached.unlink()
    child = subprocess.run([sys.executable, "-c", _CHILD], cwd=tmp_path, capture_output=True,
                           text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert child.returncode == 0, child.stderr[-3000:]
    found = json.loads(child.stdout.splitlines()[-1])
    assert found["trainable"] == ["b:0", "w:0"]
    assert found["losses"][0] > found["losses"][-1]  # it trains
    np.testing.assert_allclose(found["call"], expected["call"], rtol=1e-6)
    np.testing.assert_allclose(found["losses"], expected["losses"], rtol=1e-5)
    np.testing.assert_allclose(found["eager_loss"], expected["eager_loss"], rtol=1e-5)
    assert found["variables"].keys() == expected["variables"].keys()
    for name, value in expected["variables"].items():
        np.testing.assert_allclose(found["variables"][name], value, rtol=1e-5)
    assert found["variables"]["steps:0"] == 4  # 1 step before saving, 3 after loading


def _save_load(obj, tmp_path):
    tf.saved_model.save(obj, str(tmp_path / "m"))
    return tf.saved_model.load(str(tmp_path / "m"))


def test_each_trace_is_called_by_its_signature_python_values_included(tmp_path):
    @tf.function
    def f(x, training=False, extra=None):
        if training:
            return {"y": x * 2.0, "n": tf.size(x)}
        return {"y": x + extra["a"], "n": tf.size(x)}

    f(tf.constant([1.0]), True)
    f(tf.constant([1.0, 2.0]), False, {"a": tf.constant(3.0)})
    loaded = _save_load(f, tmp_path)
    assert [c.structured_input_signature for c in loaded.concrete_functions] == [
        c.structured_input_signature for c in f._concretes()]
    out = loaded(tf.constant([4.0]), True)
    assert out["y"].numpy().tolist() == [8.0] and int(out["n"]) == 1
    out = loaded(tf.constant([1.0, 5.0]), extra={"a": tf.constant(1.0)})
    assert out["y"].numpy().tolist() == [2.0, 6.0] and int(out["n"]) == 2
    with pytest.raises(TypeError, match=r"(?s)saved trace of f.*`training` was traced with "
                                        r"False, found True"):
        loaded(tf.constant([1.0, 2.0]), True)


def test_an_input_signature_is_saved_and_a_loaded_function_is_differentiable(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def grow(x):
        while tf.reduce_sum(x) < 100.0:
            x = x * 2.0
        return x

    loaded = _save_load(grow, tmp_path)  # never called: its signature's trace is saved
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(loaded(x))
    assert loaded(x).numpy().tolist() == grow(x).numpy().tolist() == [32.0, 64.0, 96.0]
    assert tape.gradient(y, x).numpy().tolist() == [32.0, 32.0, 32.0]
    assert loaded(tf.constant([60.0])).numpy().tolist() == [120.0]  # any length


def test_a_concrete_function_and_a_loaded_function_called_from_a_tf_function(tmp_path):
    @tf.function
    def double(x):
        return x * 2

    loaded = _save_load(double.get_concrete_function(tf.constant(1)), tmp_path)

    @tf.function
    def outer(x):
        return loaded(x) + 1

    assert int(outer(tf.constant(20))) == 41
    assert int(loaded(20)) == 40  # a Python number converts to the traced dtype


def test_variables_keep_names_dtypes_and_trainability(tmp_path):
    module = tf.Module()
    module.table = [tf.Variable([1, 2], name="ids"),
                    tf.Variable(0.5, name="rate", trainable=False)]
    module.words = tf.Variable(np.array([b"a", b"b\x00"], dtype=object), name="words")
    module.sizes = [3, 4]  # Python values are not saved (TensorFlow saves trackables only)
    loaded = _save_load(module, tmp_path)
    assert not hasattr(loaded, "sizes")
    ids, rate = loaded.table
    assert (ids.name, ids.dtype, ids.trainable, ids.numpy().tolist()) == (
        "ids:0", tf.int32, True, [1, 2])
    assert (rate.name, rate.trainable, float(rate.numpy())) == ("rate:0", False, 0.5)
    assert loaded.words.numpy().tolist() == [b"a", b"b\x00"]


def test_what_is_not_data_is_refused_when_saving(tmp_path):
    @tf.function
    def calls_python(x):
        return tf.py_function(lambda a: a * 2, [x], tf.float32)

    calls_python(tf.constant(1.0))
    with pytest.raises(tf.saved_model.SavedModelError,
                       match="Node 'py_function' .* cannot be saved: it calls a Python"):
        tf.saved_model.save(calls_python, str(tmp_path / "m"))
    assert not (tmp_path / "m").exists()
    with pytest.raises(TypeError, match="saves a tf.function, a ConcreteFunction or a "
                                        "tf.Module, found int"):
        tf.saved_model.save(3, str(tmp_path / "m"))


def test_a_function_saved_without_traces_says_so_when_called(tmp_path):
    loaded = _save_load(tf.function(lambda x: x), tmp_path)
    with pytest.raises(TypeError, match="saved before any trace"):
        loaded(1)


def test_the_format_is_json_and_npy_and_documented(tmp_path):
    module = tf.Module()
    module.v = tf.Variable([1.0, 2.0], name="v")
    tf.saved_model.save(module, str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["arrays.npz", "saved_model.json"]
    data = json.loads((tmp_path / "saved_model.json").read_text())
    assert (data["format"], data["version"]) == ("runtime-saved-model", tf.saved_model.VERSION)
    assert data["root"] == {"module": {"name": "module", "attributes": {"v": {"variable": 0}}}}
    assert data["variables"] == [{"name": "v", "dtype": "float32", "shape": [2],
                                  "trainable": True, "value": {"array": "a0"}}]
    with np.load(tmp_path / "arrays.npz", allow_pickle=False) as arrays:
        assert arrays["a0"].tolist() == [1.0, 2.0]
    doc = (ROOT / "docs" / "saved_model.md").read_text()
    assert "runtime-saved-model" in doc and "allow_pickle=False" in doc


def test_switch_case_and_tensor_arrays_round_trip_with_their_gradients(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([], tf.int32), tf.TensorSpec([3], tf.float32)])
    def f(i, x):
        y = tf.switch_case(i, [lambda: x * 2.0, lambda: x * x, lambda: -x])
        squares = tf.TensorArray(tf.float32, size=3)
        for k in tf.range(3):
            squares = squares.write(k, y[k] * y[k])
        return tf.reduce_sum(squares.stack())

    loaded = _save_load(f, tmp_path)
    x = tf.constant([1.0, 2.0, 3.0])
    for i in (0, 1, 2, 5):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            want, got = f(tf.constant(i), x), loaded(tf.constant(i), x)
        assert float(got) == float(want)
        np.testing.assert_allclose(tape.gradient(got, x).numpy(),
                                   tape.gradient(want, x).numpy())
