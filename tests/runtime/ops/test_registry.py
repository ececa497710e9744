"""Tests for runtime.ops.registry: op definitions, groups and the dispatch point."""
import pytest

import runtime as tf
from runtime import context
from runtime.graph import Graph
from runtime.ops import registry


def test_every_op_has_kernel_rule_and_kind():
    for name, opdef in registry.OPS.items():
        assert opdef.name == name
        assert callable(opdef.kernel) and callable(opdef.infer)
        assert isinstance(opdef.kind, registry.OpKind)


def test_groups():
    assert {"add", "multiply", "sqrt", "cast"} <= registry.ELEMENTWISE
    assert {"less", "equal"} <= registry.COMPARISON
    assert {"reduce_sum", "argmax"} <= registry.REDUCTION
    assert {"print", "py_function", "random_uniform", "random_normal", "assert",
            "read_variable", "assign_variable", "tensor_array_write"} <= registry.STATEFUL
    assert not {"add", "constant", "reshape"} & registry.STATEFUL


def test_tf_names():
    assert registry.get_op("add").tf_name == "AddV2"
    assert registry.tf_name("placeholder") == "Placeholder"


def test_unknown_op():
    with pytest.raises(KeyError, match="No op named 'nope' is registered"):
        registry.get_op("nope")


def test_duplicate_registration_is_rejected():
    with pytest.raises(ValueError, match="already registered"):
        registry.register("add", infer=lambda x: x)(lambda x: x)


def test_apply_eager_and_graph():
    opdef = registry.get_op("add")
    out = registry.apply(opdef, [tf.constant(1), tf.constant(2)], {})
    assert out.numpy() == 3
    graph = Graph("g")
    with context.graph_scope(graph):
        sym = registry.apply(opdef, [tf.constant(1), tf.constant(2)], {}, name="total")
    assert sym.node.name == "total" and sym.shape == () and sym.dtype is tf.int32
