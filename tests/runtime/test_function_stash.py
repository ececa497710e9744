"""A large trace keeps a compressed copy of its graph, rebuilt on demand (runtime/function/stash)."""
import gc

import numpy as np
import pytest

import runtime as tf
from runtime.function import stash
from runtime.graph import Graph

pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")


@pytest.fixture
def stash_every_graph(monkeypatch):
    monkeypatch.setattr(stash, "STASH_NODES", 1)


SCALE = tf.Variable(2.0)


def _steps(x, n, offset=1.0):
    total = tf.constant(0.0)
    for i in tf.range(n):
        if x[i] > 0:
            total += x[i] * SCALE
        else:
            total -= offset
    return {"total": total, "twice": [total * 2.0, None]}


def _graphs_alive():
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is Graph)


def test_a_stashed_trace_runs_without_its_graph(stash_every_graph):
    x = np.array([1.0, -2.0, 3.0], np.float32)
    before = _graphs_alive()
    f = tf.function(_steps)
    out = f(x, tf.constant(3))
    assert float(out["total"]) == 7.0 and float(out["twice"][0]) == 14.0
    assert out["twice"][1] is None
    concrete = f.get_concrete_function(x, tf.constant(3))
    assert isinstance(concrete._state, stash.Stash)
    assert _graphs_alive() <= before  # no graph, nor subgraph, stays alive
    assert float(f(x, tf.constant(2))["total"]) == 1.0  # the fast path, still without it
    assert isinstance(concrete._state, stash.Stash)


def test_the_graph_comes_back_the_same(stash_every_graph, monkeypatch):
    x = np.array([1.0, -2.0, 3.0], np.float32)
    stashed = tf.function(_steps).get_concrete_function(x, tf.constant(3))
    monkeypatch.setattr(stash, "STASH_NODES", 10 ** 9)
    kept = tf.function(_steps).get_concrete_function(x, tf.constant(3))
    assert str(stashed.graph) == str(kept.graph)
    assert str(stashed) == str(kept)  # the listing: signature, outputs, captured variables
    assert stashed.structured_input_signature == kept.structured_input_signature
    keys = [n.attrs["resource"] for n in _walk(stashed.graph) if n.op == "var_handle"]
    assert keys and all(k.resolve() is SCALE for k in keys)
    assert list(stashed.graph.resources.values()) == [SCALE]  # live objects are not copied
    assert not isinstance(stashed._state, stash.Stash)  # rebuilt once, then kept


def _walk(graph):
    for node in graph.nodes:
        yield node
        for _, sub in node.subgraphs():
            yield from _walk(sub)


def test_calls_with_python_arguments_and_gradients_after_a_stash(stash_every_graph):
    f = tf.function(_steps)
    x = tf.constant([1.0, -2.0, 3.0])
    assert float(f(x, tf.constant(3), offset=0.5)["total"]) == 7.5
    concrete = f.get_concrete_function(x, tf.constant(3), offset=0.5)
    assert float(concrete(x, tf.constant(3), offset=0.5)["total"]) == 7.5  # general binding
    with tf.GradientTape() as tape:
        tape.watch(x)
        total = f(x, tf.constant(3), offset=0.5)["total"]
    assert tape.gradient(total, x).numpy().tolist() == [2.0, 0.0, 2.0]


def test_small_graphs_are_kept_as_they_are():
    concrete = tf.function(lambda x: x + 1).get_concrete_function(tf.constant(1))
    assert isinstance(concrete._state, tuple) and isinstance(concrete.graph, Graph)
