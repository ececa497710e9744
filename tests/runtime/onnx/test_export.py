"""runtime.onnx.export: If and Loop for staged control flow, onnxruntime's results, errors.

Each op of the op-case table (tests/runtime/op_cases.py) is exported and run by onnxruntime:
it gives the expected value, dtype and shape, or raises UnsupportedOpError naming the op, never
another result.
"""
import os

import numpy as np
import onnx
import onnxruntime
import pytest

import runtime as tf
from runtime.onnx import UnsupportedOpError
from tests.checkout import ROOT
from tests.checkout import run_python
from tests.corpus.functions import collatz_steps
from tests.runtime.op_cases import CASES
from tests.runtime.op_cases import assert_same
from tests.runtime.op_cases import build_graph

onnxruntime.set_default_logger_severity(3)


def _run(model, *values):
    session = onnxruntime.InferenceSession(model.SerializeToString())
    feed = {i.name: np.asarray(v) for i, v in zip(session.get_inputs(), values)}
    return session.run(None, feed)


def _op_types(graph):
    found = set()
    for node in graph.node:
        found.add(node.op_type)
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                found |= _op_types(attribute.g)
    return found


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_op_case_exports_equal_or_says_which_op_it_cannot(case):
    graph, _, feeds, _ = build_graph(case)
    try:
        model = tf.onnx.graph_to_model(graph, case.id)
    except UnsupportedOpError as e:
        assert "cannot be exported to ONNX" in str(e) or "not exported to ONNX" in str(e)
        return
    onnx.checker.check_model(model)
    try:
        got = _run(model, *feeds)
    except onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented as e:
        # docs/export.md: onnxruntime 1.23, the newest for Python 3.10, has no float64
        # kernel for Cos (and Tan, Atan); the model is valid ONNX (checked above)
        assert "Could not find an implementation for Cos" in str(e), e
        pytest.xfail(f"onnxruntime {onnxruntime.__version__} has no float64 Cos kernel")
    assert_same(got if isinstance(case.expected, list) else got[0], case.expected)


def test_most_op_cases_export():
    exported = 0
    for case in CASES:
        try:
            tf.onnx.graph_to_model(build_graph(case)[0], case.id)
            exported += 1
        except UnsupportedOpError:
            pass
    assert exported >= 100, exported


def test_a_staged_while_and_if_become_loop_and_if(tmp_path):
    collatz = tf.function(collatz_steps)
    collatz(tf.constant(27))
    model = tf.onnx.export(collatz, str(tmp_path / "c.onnx"))
    assert {"Loop", "If"} <= _op_types(model.graph)
    assert [i.name for i in model.graph.input] == ["n"]
    for n in (1, 6, 27, 97):
        assert _run(onnx.load(str(tmp_path / "c.onnx")), np.int32(n))[0] == int(
            collatz(tf.constant(n))) == collatz_steps(n)


def test_switch_case_variables_and_an_input_signature():
    table = tf.Variable([10.0, 20.0, 30.0])

    @tf.function(input_signature=[tf.TensorSpec([], tf.int32), tf.TensorSpec([None],
                                                                               tf.float32)])
    def pick(i, x):
        return tf.switch_case(i, [lambda: x * table[0], lambda: x + table[1],
                                  lambda: x - table[2]])

    model = tf.onnx.graph_to_model(pick.get_concrete_function().graph, "pick")
    x = np.array([1.0, 2.0], np.float32)
    for i in (0, 1, 2, 7, -1):  # out of range: the last branch, as TensorFlow's default
        expected = pick(tf.constant(i), tf.constant(x)).numpy()
        np.testing.assert_array_equal(_run(model, np.int32(i), x)[0], expected)
    table.assign([0.0, 0.0, 0.0])  # the exported model holds the values it was exported with
    assert _run(model, np.int32(0), x)[0].tolist() == [10.0, 20.0]


def test_what_onnx_cannot_express_is_refused_naming_the_op(tmp_path):
    @tf.function
    def prints(x):
        if x > 0:
            tf.print("positive", x)
        return x + 1

    prints(tf.constant(1))
    with pytest.raises(UnsupportedOpError, match="Node 'print' \\(op 'print'\\) cannot be "
                                                 "exported to ONNX: ONNX has no op that prints"):
        tf.onnx.export(prints, str(tmp_path / "p.onnx"))
    assert not (tmp_path / "p.onnx").exists()

    @tf.function
    def two(x):
        return x

    two(tf.constant(1))
    two(tf.constant(1.0))
    with pytest.raises(ValueError, match="two has 2 traces: pass input_signature"):
        tf.onnx.export(two, str(tmp_path / "t.onnx"))
    model = tf.onnx.export(two, str(tmp_path / "t.onnx"),
                           input_signature=[tf.TensorSpec([], tf.float32)])
    assert _run(model, np.float32(2.5))[0] == 2.5


def test_the_lowering_table_names_registered_ops_only(monkeypatch):
    tf.onnx.check_rules()
    monkeypatch.setitem(tf.onnx.LOWER, "no_such_op", lambda ctx: [])
    with pytest.raises(LookupError, match="unregistered ops: \\['no_such_op'\\]"):
        tf.onnx.check_rules()


def test_the_example_exports_a_data_dependent_while_and_runs_it_with_onnxruntime():
    proc = run_python([os.path.join(ROOT, "examples", "onnx_export.py")], timeout=300, cwd=ROOT)
    assert "Loop" in proc.stdout and "Loop body ops:" in proc.stdout
    assert "sqrt(12345.0) = 111.1081 after 10 steps (onnxruntime, equal to the runtime)" in \
        proc.stdout
