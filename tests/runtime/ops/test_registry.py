"""Tests for runtime.ops.registry: op definitions, groups and the dispatch point."""
import pytest

import runtime as tf
from runtime import context
from runtime.graph import Graph
from runtime.ops import registry


def test_every_op_has_kernel_rule_and_kind():
    for name, opdef in registry.OPS.items():
        assert opdef.name == name
        assert isinstance(opdef.kind, registry.OpKind)
        if opdef.structured:
            continue
        assert callable(opdef.kernel) and callable(opdef.infer)
        assert not any(name in table for table in registry.RULE_TABLES)


def test_structured_ops_carry_their_rules():
    structured = {name for name, opdef in registry.OPS.items() if opdef.structured}
    assert {"cond", "while", "switch_case"} <= structured
    assert structured == registry.CONTROL_FLOW
    for name in structured:
        opdef = registry.get_op(name)
        assert opdef.kind is registry.OpKind.CONTROL_FLOW
        assert all(callable(table[name]) for table in registry.RULE_TABLES)
        assert opdef.vjp is None or callable(opdef.vjp)
    assert registry.get_op("cond").tf_name == "If"
    assert registry.get_op("while").stateless_tf_name == "StatelessWhile"
    assert registry.get_op("switch_case").tf_name == "Case"


def test_every_structured_op_has_a_rule_in_every_table():
    registry.check_rules()  # runtime's import ran it too
    assert [table.missing() for table in registry.RULE_TABLES] == [[], [], []]


def test_a_rule_table_refuses_a_misspelt_an_ordinary_or_a_second_rule():
    with pytest.raises(KeyError, match="No op named 'whille'"):
        registry.EMIT.register("whille", lambda ctx, node, depth: None)
    with pytest.raises(ValueError, match="has a kernel"):
        registry.EMIT.register("add", lambda ctx, node, depth: None)
    with pytest.raises(ValueError, match="already has a rule in the emit table"):
        registry.EMIT.register("while", lambda ctx, node, depth: None)
    with pytest.raises(KeyError, match="Op 'add' has no interpret rule"):
        registry.INTERPRET["add"]


def test_a_structured_op_missing_from_a_table_fails_the_check(monkeypatch):
    monkeypatch.setattr(registry, "CONTROL_FLOW", registry.CONTROL_FLOW | {"my_loop"})
    with pytest.raises(LookupError, match="interpret: my_loop; emit: my_loop; prune: my_loop"):
        registry.check_rules()


def test_structured_registration_rejects_a_rule_that_is_not_callable():
    with pytest.raises(TypeError, match="The emit rule of op 'my_op' must be callable"):
        registry.register_structured("my_op", tf_name="MyOp",
                                     interpret=print, emit=None, prune=print)
    assert "my_op" not in registry.OPS


def test_structured_registration_rejects_duplicates():
    with pytest.raises(ValueError, match="already registered"):
        registry.register_structured("cond", tf_name="If",
                                     interpret=None, emit=None, prune=None)


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
