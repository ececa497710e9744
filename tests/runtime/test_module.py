"""Tests for runtime.module (tf.Module)."""
import pytest

import runtime as tf


class Dense(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.w = tf.Variable([1.0], name="w")
        self.b = tf.Variable([0.0], name="b", trainable=False)


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(), Dense("second")]
        self.extra = {"scale": tf.Variable(2.0, name="scale")}


def test_default_name_is_snake_case_class_name():
    assert Model().name == "model"
    assert Dense("d").name == "d"


def test_variable_tracking_through_submodules_and_containers():
    model = Model()
    names = [v.name for v in model.variables]
    assert names == ["scale:0", "b:0", "w:0", "b:0", "w:0"]
    assert [v.name for v in model.trainable_variables] == ["scale:0", "w:0", "w:0"]
    assert [m.name for m in model.submodules] == ["dense", "second"]


def test_shared_variables_are_listed_once():
    module = tf.Module()
    v = tf.Variable(1)
    module.a = v
    module.b = [v]
    assert module.variables == (v,)


def test_invalid_name():
    with pytest.raises(ValueError, match="not a valid module name"):
        tf.Module(name="1bad name")
