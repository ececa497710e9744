"""Tests for runtime.graph: node naming, captures, pretty-printing, graph_def and dot output."""
import numpy as np
import pytest

import runtime as tf
from runtime import context
from runtime import executor
from runtime.graph import Graph


def _build():
    graph = Graph("f")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.float32, (3,), name="x")
        y = graph.placeholder(tf.float32, (None,), name="y")
        a = x + y
        b = tf.add(a, 2.0)
        c = tf.reduce_sum(b * b, axis=0)
        tf.print("c:", c)
    graph.outputs = [b, c]
    return graph


def test_pretty_print_golden():
    assert str(_build()) == """\
graph f(%x: float32[3], %y: float32[?]) {
  %add = add(%x, %y) : float32[3]
  %Const = constant() {value=2.0} : float32[]
  %add_1 = add(%add, %Const) : float32[3]
  %multiply = multiply(%add_1, %add_1) : float32[3]
  %reduce_sum = reduce_sum(%multiply) {axis=0} : float32[]
  print(%reduce_sum) {template=('c:',$0), sep=' ', end='\\n', stream='stdout', summarize=3}
  return (%add_1, %reduce_sum)
}"""


def test_graph_def_names_ops_and_inputs_like_tensorflow():
    nodes = _build().as_graph_def().node
    assert [(n.name, n.op, n.input) for n in nodes] == [
        ("x", "Placeholder", []),
        ("y", "Placeholder", []),
        ("add", "AddV2", ["x", "y"]),
        ("Const", "Const", []),
        ("add_1", "AddV2", ["add", "Const"]),
        ("multiply", "Mul", ["add_1", "add_1"]),
        ("reduce_sum", "Sum", ["multiply"]),
        ("print", "PrintV2", ["reduce_sum"]),
    ]


def test_unique_names_follow_tensorflow():
    graph = Graph("g")
    assert [graph.unique_name("add") for _ in range(3)] == ["add", "add_1", "add_2"]
    assert graph.unique_name("add_1") == "add_1_1"
    assert graph.unique_name("mul") == "mul"


def test_user_names_are_made_unique():
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.int32, (), name="x")
        a = tf.add(x, 1, name="step")
        b = tf.add(a, 1, name="step")
    assert (a.node.name, b.node.name) == ("step", "step_1")


def test_stateful_nodes_are_chained_in_program_order():
    v = tf.Variable(1.0)
    graph = Graph("g")
    with context.graph_scope(graph):
        r1 = v.read_value()
        w = v.assign_add(2.0)
        r2 = v.read_value()
    assert r1.node.control_inputs == ()
    assert w.node.control_inputs == (r1.node,)
    assert r2.node.control_inputs == (w.node,)
    # the handle (TF: ReadVariableOp(resource)), then the previous stateful node
    assert graph.as_graph_def().node[-1].input == ["Variable", "^assign_add_variable"]
    assert [n.stateful for n in graph.nodes] == [False, True, False, True, True]


def test_outer_tensors_are_captured_into_subgraphs_and_eager_tensors_become_constants():
    outer = Graph("outer")
    eager = tf.constant([1.0, 2.0])
    with context.graph_scope(outer):
        x = outer.placeholder(tf.float32, (2,), name="x")
        inner = Graph("inner", outer_graph=outer)
        with context.graph_scope(inner):
            y = x + eager
            z = eager * 2.0
    assert [n.op for n in inner.nodes] == ["placeholder", "constant", "add", "constant", "multiply"]
    assert inner.captures == [(x, inner.inputs[0])]
    # one constant node per eager tensor object
    assert y.node.inputs[1] is z.node.inputs[0]


def test_to_dot():
    # The full picture is tested in test_graph_dot.py.
    dot = _build().to_dot()
    assert dot.startswith('digraph "f" {\n')
    assert '"add" [label="add", tooltip="add"];' in dot
    assert '"x" -> "add" [label="float32[3]"];' in dot
    assert dot.rstrip().endswith("}")


def test_cond_pretty_print_nests_subgraphs():
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.int32, (), name="x")
        out = tf.cond(x > 0, lambda: x + 1, lambda: tf.constant(0))
    graph.outputs = [out]
    assert str(graph) == """\
graph g(%x: int32[]) {
  %Const = constant() {value=0} : int32[]
  %greater = greater(%x, %Const) : bool[]
  %cond = cond(%greater, %x) : int32[]
    true_graph cond_true(%x: int32[]) {
      %Const = constant() {value=1} : int32[]
      %add = add(%x, %Const) : int32[]
      return (%add)
    }
    false_graph cond_false(%x: int32[]) {
      %Const = constant() {value=0} : int32[]
      return (%Const)
    }
  return (%cond)
}"""
    assert graph.as_graph_def().node[-1].op == "StatelessIf"


def test_node_format_and_short_form():
    graph = _build()
    node = graph.nodes[2]
    assert node.format() == "%add = add(%x, %y) : float32[3]"
    assert node.short() == "add = add(x, y)"


def test_constant_attr_printing_summarises_big_arrays():
    graph = Graph("g")
    graph.constant(np.arange(20, dtype=np.int32))
    assert str(graph).splitlines()[1] == (
        "  %Const = constant() {value=[ 0, 1, 2,...,17,18,19]} : int32[20]")


def test_capture_rejects_non_tensors():
    with pytest.raises(TypeError, match="Expected a Tensor, found int"):
        Graph("g").capture(3)


def test_building_resumes_after_the_build_state_is_released():
    outer = Graph("outer")
    with context.graph_scope(outer):
        x = tf.constant(np.float32(2.0)) + 1.0
    inner = Graph("inner", outer_graph=outer)
    with context.graph_scope(inner):
        a = inner.capture(x) * 2.0
    names = [n.name for n in inner.nodes]
    outer.release_build_state()
    inner.release_build_state()
    with context.graph_scope(inner):
        b = inner.capture(x) * 2.0  # captured again: a new placeholder, same value
    new_names = [n.name for n in inner.nodes[len(names):]]
    assert not set(new_names) & set(names) and len(set(new_names)) == len(new_names)
    run = executor.compile(inner, [p for _, p in inner.captures], [a, b])
    assert len(inner.captures) == 2
    assert [float(v) for v in run(np.float32(3.0), np.float32(3.0))] == [6.0, 6.0]


def test_names_after_the_build_state_is_released_are_those_of_an_unreleased_graph():
    def build(release):
        graph = Graph("g")
        graph.constant(np.int32(1))
        graph.constant(np.int32(2), name="Const_2")
        graph.placeholder(tf.int32, (), name="x")
        if release:
            graph.release_build_state()
        for _ in range(3):
            graph.constant(np.int32(3))
        graph.placeholder(tf.int32, (), name="x")
        return [node.name for node in graph.nodes]

    assert build(release=True) == build(release=False) == [
        "Const", "Const_2", "x", "Const_1", "Const_3", "Const_4", "x_1"]


def test_placeholder_and_constant_attrs_are_independent_plain_dicts():
    graph = Graph("g")
    x = graph.placeholder(tf.int32, (None, 2), name="x")
    y = graph.placeholder(tf.float32, (), name="y")
    c = graph.constant(np.int32(7))
    d = graph.constant(np.int32(8))
    assert type(x.node.attrs) is dict and x.node.attrs == {"dtype": tf.int32, "shape": (None, 2)}
    assert list(y.node.attrs) == ["dtype", "shape"] and y.node.attrs["dtype"] == tf.float32
    assert type(c.node.attrs) is dict and list(c.node.attrs.items()) == [("value", np.int32(7))]
    c.node.attrs["note"] = "added"
    c.node.attrs["value"] = np.int32(9)
    x.node.attrs["shape"] = (1, 2)
    assert d.node.attrs == {"value": np.int32(8)}
    assert c.node.attrs == {"value": np.int32(9), "note": "added"}
    assert y.node.attrs["shape"] == () and x.node.attrs["shape"] == (1, 2)
    assert dict(c.node.attrs) == c.node.attrs and c.node.attrs.copy() == c.node.attrs


def test_node_inputs_and_outputs_are_tuples_and_graph_def_inputs_lists():
    graph = _build()
    add = graph.nodes[2]
    x, y = graph.inputs
    assert add.inputs == (x, y) and type(add.inputs) is tuple
    assert type(add.outputs) is tuple and len(add.outputs) == 1 and add.outputs[0].node is add
    assert graph.inputs[0].node.inputs == () and graph.inputs[0].node.outputs == (x,)
    node_def = graph.as_graph_def().node[2]
    assert node_def.input == ["x", "y"] and type(node_def.input) is list
