"""runtime.graph_def: a graph as data, and Graph.from_graph_def, which rebuilds it.

Every corpus graph and every benchmark workload's graph round-trips: the rebuilt graph prints
the same (`str(graph)`) and computes the same outputs (or raises the same error) on both
executors.
"""
import contextlib
import gc
import io

import numpy as np
import pytest

import runtime as tf
from benchmarks.workloads import WORKLOADS
from runtime import graph_def as graph_def_lib
from runtime import resources
from runtime.executor import compile as compile_graph
from runtime.executor import interpret
from tests.corpus.functions import CORPUS

# Warnings these tests trigger on purpose: each corpus function is traced for each of its inputs, and retraces.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")


def _traces():
    for case in CORPUS:
        for k, plain in enumerate(case.inputs):
            args = plain
            if case.stageable:
                args = tuple(tf.constant(a) if isinstance(a, (bool, int, float)) else a
                             for a in plain)
            yield pytest.param(case.fn, args, plain, id=f"{case.fn.__name__}-{k}")
    for workload in WORKLOADS:
        plain = tuple(workload.make_inputs())
        yield pytest.param(workload.fn, tuple(tf.constant(a) for a in plain), plain,
                           id=workload.name)


# The attributes that name live objects by ResourceKey, which a GraphDef holds by ResourceRef
# (docs/internals.md lists them). In memory, every attribute is data.
_BY_REFERENCE = {("var_handle", "resource"), ("py_function", "func"),
                 ("dataset_source", "dataset"), ("dataset_build", "builder"),
                 ("iterator_source", "state")}


def _live_attrs(graph):
    """The (op, attribute) pairs of `graph` and its subgraphs, in memory, holding no data."""
    found = set()
    stack = [graph]
    while stack:
        g = stack.pop()
        for node in g.nodes:
            for key, value in node.attrs.items():
                if isinstance(value, tf.Graph):
                    stack.append(value)
                elif not graph_def_lib._is_data(value):
                    found.add((node.op, key))
    return found


def _all_node_defs(graph_def):
    return list(graph_def.node) + [
        n for function in graph_def.library.function for n in function.node_def]


def _resource_attrs(graph_def):
    """The (op, attribute) pairs of a GraphDef whose values are ResourceRefs."""
    return {(n.op_name, key) for n in _all_node_defs(graph_def)
            for key, value in n.attr.items() if isinstance(value, graph_def_lib.ResourceRef)}


def _run(executor, graph, values):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            run = executor(graph, list(graph.inputs), list(graph.outputs))
            return [np.asarray(v) for v in run(*values)], None, out.getvalue()
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            return None, type(e), out.getvalue()


@pytest.mark.parametrize("fn, args, plain", list(_traces()))
def test_every_graph_round_trips(fn, args, plain):
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            graph = tf.function(fn).get_concrete_function(*args).graph
        except Exception as e:  # noqa: BLE001 - no graph: plain Python raises it too
            with pytest.raises(type(e)):
                fn(*plain)
            return
    assert _live_attrs(graph) == set()
    graph_def = graph.as_graph_def()
    assert graph_def.version == graph_def_lib.VERSION
    assert _resource_attrs(graph_def) <= _BY_REFERENCE
    rebuilt = tf.Graph.from_graph_def(graph_def)
    assert str(rebuilt) == str(graph)
    assert _live_attrs(rebuilt) == set()
    values = [a.numpy() for a in tf.nest.flatten(args) if isinstance(a, tf.Tensor)]
    assert len(values) == len(graph.inputs)
    expected = _run(interpret, graph, values)
    for executor in (interpret, compile_graph):
        found = _run(executor, rebuilt, values)
        assert found[1:] == expected[1:]
        if expected[0] is not None:
            assert len(found[0]) == len(expected[0])
            for a, b in zip(found[0], expected[0]):
                np.testing.assert_array_equal(a, b)


def test_attributes_are_data_and_objects_are_resources_by_key():
    v = tf.Variable(1.0, name="v")

    @tf.function
    def f(x):
        v.assign_add(x)
        return tf.py_function(lambda a: a * 2, [x], tf.float32)

    graph = f.get_concrete_function(tf.constant(1.0)).graph
    graph_def = graph.as_graph_def()
    refs = [value for node in graph_def.node for value in node.attr.values()
            if isinstance(value, graph_def_lib.ResourceRef)]
    assert len(refs) >= 2 and {r.key for r in refs} == set(graph_def.resources)
    assert _resource_attrs(graph_def) == {("var_handle", "resource"), ("py_function", "func")}
    assert v in graph_def.resources.values()
    assert str(tf.Graph.from_graph_def(graph_def)) == str(graph)


def test_print_templates_and_iterator_specs_are_data_not_resources():
    @tf.function
    def f(x):
        tf.print("x is", x, x + 1)
        total = x
        for e in tf.data.Dataset.range(3).map(lambda e: e * 2):
            total += e
        return total

    graph = f.get_concrete_function(tf.constant(2, tf.int64)).graph
    graph_def = graph.as_graph_def()
    nodes = _all_node_defs(graph_def)
    templates = [n.attr["template"] for n in nodes if n.op_name == "print"]
    specs = [n.attr["specs"] for n in nodes if "specs" in n.attr]
    assert len(templates) == 1 and isinstance(templates[0], tuple)
    assert specs and all(isinstance(s, tuple) for s in specs)
    # what is left in resources is live objects only: the dataset's builders and state
    assert not any(isinstance(v, (tuple, tf.TensorSpec)) for v in graph_def.resources.values())
    assert ("print", "template") not in _resource_attrs(graph_def)
    assert _resource_attrs(graph_def) <= _BY_REFERENCE
    assert str(tf.Graph.from_graph_def(graph_def)) == str(graph)


def test_a_variable_is_a_resource_input_not_an_attribute():
    v = tf.Variable([1.0, 2.0], name="v")

    @tf.function
    def f(x):
        v.assign_add(x)
        return tf.cond(x[0] > 0, lambda: v.read_value() * 2, lambda: x)

    graph = f.get_concrete_function(tf.constant([1.0, 2.0])).graph
    assert _live_attrs(graph) == set()
    assert str(graph) == """graph f(%x: float32[2]) {
  %v = var_handle() {resource=v} : resource[]
  %assign_add_variable = assign_add_variable(%v, %x) : float32[2]
  %getitem = getitem(%x) {spec=(0)} : float32[]
  %Const = constant() {value=0.0} : float32[]
  %greater = greater(%getitem, %Const) : bool[]
  %cond = cond(%greater, %x) : float32[2]
    true_graph cond_true(%x: float32[2]) {
      %v = var_handle() {resource=v} : resource[]
      %read_variable = read_variable(%v) : float32[2]
      %Const = constant() {value=2.0} : float32[]
      %multiply = multiply(%read_variable, %Const) : float32[2]
      return (%multiply)
    }
    false_graph cond_false(%x: float32[2]) {
      return (%x)
    }
  %Identity = identity(%cond) : float32[2]
  return (%Identity)
}"""
    assert graph.resources == {v.handle.key.key: v}  # the graph keeps the variable alive
    for executor in (interpret, compile_graph):
        out, = executor(graph, list(graph.inputs), list(graph.outputs))(
            np.array([1.0, 2.0], np.float32))
        assert v.numpy().tolist() == [2.0, 4.0] and out.tolist() == [4.0, 8.0]
        v.assign([1.0, 2.0])
    # a GraphDef holds the Variable by reference; the rebuilt graph names the one given
    w = tf.Variable([5.0, 5.0], name="w")
    graph_def = graph.as_graph_def()
    key, = [k for k, value in graph_def.resources.items() if value is v]
    rebuilt = tf.Graph.from_graph_def(graph_def, resources={key: w})
    assert _live_attrs(rebuilt) == set()
    interpret(rebuilt, list(rebuilt.inputs), list(rebuilt.outputs))(
        np.array([1.0, 1.0], np.float32))
    assert w.numpy().tolist() == [6.0, 6.0] and v.numpy().tolist() == [1.0, 2.0]


def test_callables_datasets_and_iterators_are_attributes_by_key():
    iterator = iter(tf.data.Dataset.range(10))
    dataset = tf.data.Dataset.range(3)

    @tf.function
    def f(x):
        y = tf.py_function(lambda a: a * 2, [x[0]], tf.int64)
        for e in dataset:  # made outside: a dataset_source
            y += e
        for e in tf.data.Dataset.from_tensor_slices(x).map(lambda e: e * 2):  # a dataset_build
            y += e
        return y + next(iterator)

    graph = f.get_concrete_function(tf.constant([1, 2], tf.int64)).graph
    assert _live_attrs(graph) == set()
    keys = [(n.op, key, value) for n in _walk(graph) for key, value in n.attrs.items()
            if isinstance(value, resources.ResourceKey)]
    assert {k[:2] for k in keys} == {("py_function", "func"), ("dataset_source", "dataset"),
                                     ("dataset_build", "builder"), ("iterator_source", "state")}
    # the outermost graph keeps the objects alive: the lambda has no other reference
    assert {k.key for _, _, k in keys} == set(graph.resources)
    func, = [k for op, _, k in keys if op == "py_function"]
    assert func.resolve()(tf.constant(3)).numpy() == 6
    gc.collect()
    run = compile_graph(graph, list(graph.inputs), list(graph.outputs))
    x = np.array([1, 2], np.int64)
    assert [int(v) for v in run(x)] == [2 + (0 + 1 + 2) + (2 + 4) + 0]
    assert [int(v) for v in run(x)] == [2 + (0 + 1 + 2) + (2 + 4) + 1]  # the iterator moved on


def test_a_key_whose_object_died_says_so():
    key = resources.register(tf.Variable(1.0, name="gone"), "gone")
    gc.collect()
    with pytest.raises(tf.errors.FailedPreconditionError, match="resource 'gone'.*no longer "
                                                                "exists"):
        key.resolve()


def _walk(graph):
    for node in graph.nodes:
        yield node
        for _, sub in node.subgraphs():
            yield from _walk(sub)


def test_a_subgraph_is_a_function_of_the_library():
    @tf.function
    def f(x):
        return tf.cond(x > 0, lambda: x + 1, lambda: x - 1)

    graph_def = f.get_concrete_function(tf.constant(1)).graph.as_graph_def()
    cond = next(n for n in graph_def.node if n.op_name == "cond")
    assert isinstance(cond.attr["true_graph"], graph_def_lib.FunctionRef)
    assert cond.attr["true_graph_name"] == cond.attr["true_graph"].key
    assert {f.signature.name for f in graph_def.library.function} == {
        cond.attr["true_graph"].key, cond.attr["false_graph"].key}


def test_another_version_or_a_missing_resource_is_refused():
    v = tf.Variable(1.0)

    @tf.function
    def f():
        return v.read_value()

    graph_def = f.get_concrete_function().graph.as_graph_def()
    with pytest.raises(ValueError, match="needs resource 'resource_0'"):
        tf.Graph.from_graph_def(graph_def, resources={})
    graph_def.version = graph_def_lib.VERSION + 1
    with pytest.raises(ValueError, match="reads GraphDef version 2, found version 3"):
        tf.Graph.from_graph_def(graph_def)
