"""Smoke test of benchmarks/scalar_loops.py (every contender's result checked against the
staged one; timings not checked), and the generated code of its loops: what the executor
drops (wrap tests of bounded ints, numpy float64 scalars) and what it keeps."""
import numpy as np
import pytest

import runtime as tf
from benchmarks import scalar_loops
from runtime.executor import codegen


def test_every_loop_is_measured_and_exact():
    records = scalar_loops.main(["--quick"])
    assert [r["name"] for r in records] == [loop.name for loop in scalar_loops.loops()]
    assert all(ns > 0 for r in records for ns in r["ns"].values())


def _body(name):
    """The generated source of benchmark loop `name`, from its loop header on."""
    loop = next(loop for loop in scalar_loops.loops() if loop.name == name)
    specs = [tf.TensorSpec((), tf.as_dtype(np.asarray(x).dtype)) for x in loop.inputs]
    graph = tf.function(loop.staged).get_concrete_function(*specs).graph
    source = codegen.generate(graph).source
    return source[source.index("    for "):] if "    for " in source else source


def test_bounded_int_loop_has_no_wrap_test():
    body = _body("int_if")
    assert "4294967295" not in body and "2147483647" not in body  # no test, no wrap
    assert "i % 7" in body and "i // 7" in body  # on Python ints


def test_unbounded_int_loop_wraps_after_each_update():
    assert _body("int_hash").count("if h > 2147483647 or h < -2147483648:") == 2


@pytest.mark.parametrize("name, kept", [("float64_if", 0), ("float32_if", 4)])
def test_float_loops_keep_numpy_scalars_only_for_float32(name, kept):
    body = _body(name).split("return")[0]
    assert body.count("_float32_") == kept  # float32 constants: numpy float32 arithmetic
    assert "_float64" not in body
