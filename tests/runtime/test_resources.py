"""runtime.resources: live objects named by key in attributes, and Variable handles."""
import gc
import weakref

import numpy as np
import pytest

import runtime as tf
from runtime import dtypes
from runtime import resources
from runtime.ops.registry import OPS
from runtime.ops.registry import apply


class _Thing:
    pass


def test_an_object_has_one_key_while_it_lives_and_none_after():
    thing = _Thing()
    key = resources.register(thing, "thing")
    assert resources.register(thing) is key and key.resolve() is thing
    assert key == resources.ResourceKey(key.key, "another label") and key.label == "thing"
    other = resources.register(_Thing(), "thing")  # a new object: another key, same label
    assert other != key and other.label == "thing"
    del thing
    gc.collect()
    with pytest.raises(tf.errors.FailedPreconditionError, match="'thing'.*no longer exists"):
        key.resolve()


def test_labels_are_what_str_graph_shows():
    def double(x):
        return x * 2

    assert resources.register(double).label == "double"
    assert resources.register(_Thing()).label.startswith("<")  # its repr
    assert resources.register(_Thing(), "a b").key.startswith("_Thing_")  # a key is a name


def test_an_object_without_weak_references_is_held():
    key = resources.register(len)  # a builtin takes no weak reference
    gc.collect()
    assert key.resolve() is len and key.label == "len"


def test_a_variable_handle_is_a_resource_scalar_whose_value_is_the_variable():
    v = tf.Variable([1.0, 2.0], name="v")
    handle = v.handle
    assert isinstance(handle, tf.Tensor) and handle.dtype is dtypes.resource
    assert handle.shape == () and handle.numpy() is v
    assert handle.key.resolve() is v and handle.key.label == "v"
    # eagerly the variable ops take it as any eager tensor
    assert apply(OPS["read_variable"], [handle], {}).numpy().tolist() == [1.0, 2.0]
    assert repr(handle) == "<tf.Tensor: shape=(), dtype=resource, value=<v>>"


def test_a_handle_argument_is_keyed_by_its_variable_and_captured():
    v, w = tf.Variable(1.0), tf.Variable(5.0)
    traces = []

    @tf.function
    def read(handle, x):
        traces.append(handle)
        return apply(OPS["read_variable"], [handle], {}) + x

    x = tf.constant(1.0)
    assert read(v.handle, x).numpy() == 2.0
    assert read(w.handle, x).numpy() == 6.0  # another variable: another trace
    v.assign(3.0)
    assert read(v.handle, x).numpy() == 4.0  # the first trace, reading the variable anew
    assert len(traces) == 2 and traces[0] is v.handle and traces[1] is w.handle
    graph = read.get_concrete_function(v.handle, x).graph
    assert [t.dtype for t in graph.inputs] == [dtypes.float32]  # the handle is no input
    assert [n.op for n in graph.nodes if n.op == "var_handle"] == ["var_handle"]


def test_a_variable_is_freed_when_its_last_reference_goes():
    # The handle holds its variable weakly: a strong reference back made every Variable a
    # reference cycle, freed only when the cycle collector ran (e48f10d: alive here).
    enabled = gc.isenabled()
    gc.disable()
    try:
        v = tf.Variable(np.zeros(4, np.float32))
        handle = v.handle
        assert handle.numpy() is v  # the ops on the handle receive the variable
        ref = weakref.ref(v)
        del v
        assert ref() is None
        with pytest.raises(tf.errors.FailedPreconditionError, match="no longer exists"):
            handle.numpy()
    finally:
        if enabled:
            gc.enable()
