"""The corpus exported to ONNX and run by onnxruntime: equal to the runtime, or listed.

Each corpus function is traced on each of its inputs (as tests/runtime/test_graph_def.py
does: inputs whose trace raises, as plain Python does, have no graph) and exported; onnxruntime
must give the runtime's outputs exactly (values, dtypes, shapes). The functions that do not
export are `NOT_EXPORTED`, with the op that stops them; the test checks that exactly these
fail, each for its reason, and that docs/export.md's table gives these numbers.
"""
import contextlib
import io
import os
import re

import numpy as np
import onnx
import onnxruntime
import pytest

import runtime as tf
from runtime.onnx import UnsupportedOpError
from tests.checkout import ROOT
from tests.corpus.functions import CORPUS

pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")
onnxruntime.set_default_logger_severity(3)

_RAISES = "op 'check_defined'"  # a staged check that a variable is bound: ONNX cannot raise
NOT_EXPORTED = {
    "if_print": "op 'print'",
    "while_print": "op 'print'",
    "fizzbuzz_print": "op 'print'",
    "for_dict_items": "string tensors",
    "for_list_append": "returns no tensor",
    "assert_ok": "op 'assert'",
    "first_assigned_in_loop": _RAISES,
    "assigned_in_one_branch": _RAISES,
    "undefined_read_in_a_branch": _RAISES,
    "walrus_in_while_and_test": _RAISES,
    "match_values_guard_and_wildcard": _RAISES,
    "match_capture_as_and_guard_binding": _RAISES,
    "best_so_far_guarded_by_a_first_flag": _RAISES,
    "or_reads_a_variable_before_it_is_assigned": _RAISES,
    "and_reads_a_variable_only_once_assigned": _RAISES,
    "list_appended_in_staged_branch": "op 'tensor_array_new'",
    "list_extended_in_a_staged_loop": "op 'tensor_array_new'",
    "list_grown_by_plus_in_a_staged_loop": "op 'tensor_array_new'",
    "table_of_a_staged_size": "op 'tensor_array_new'",  # a list of a run-time length
    # real code (tests/corpus/real_features.py): a staged raise, and a table read's
    # IndexError or KeyError, is a py_function; ops the exporter has no rule for
    "raise_user_defined_after_a_print": "op 'print'",
    "truth_while_n_popcount": "op 'right_shift'",
    "math_and_builtins_of_numbers": "op 'isqrt'",
    "math_float_functions": "op 'log2'",
}
NOT_EXPORTED.update({name: "op 'py_function'" for name in (
    "raise_in_staged_branch", "raise_class_and_raise_from", "raise_in_staged_while",
    "raise_after_a_loop_that_returns", "raise_in_elif_chain_with_else",
    "raise_in_a_staged_loop_body", "raise_with_str_in_message", "max_and_min_of_generators",
    "table_read_at_a_staged_index", "dict_of_numbers_at_a_staged_key",
    "tuple_index_out_of_range", "for_range_indexing_a_list_staged_break",
    "table_written_at_staged_indices_in_a_loop", "table_written_in_staged_branches",
    "lcs_length_with_rows_read_at_a_staged_index",
    "grid_row_changed_through_an_alias_in_a_staged_loop",
    "searches_of_lists_of_staged_numbers", "most_common_digit",
    "table_rows_changed_through_loop_targets")})


def _traces(case):
    function = tf.function(case.fn)
    for plain in case.inputs:
        args = [tf.constant(a) if case.stageable and isinstance(a, (bool, int, float)) else a
                for a in plain]
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                concrete = function.get_concrete_function(*args)
        except Exception:  # noqa: BLE001 - tracing raises as plain Python: no graph
            continue
        yield concrete, [np.asarray(a.numpy()) for a in args if isinstance(a, tf.Tensor)]


def _export_and_compare(case):
    """None when every trace exports and equals the runtime, else the export error's text."""
    for concrete, values in _traces(case):
        try:
            model = tf.onnx.to_model(concrete)
        except (UnsupportedOpError, ValueError) as e:
            return str(e)
        onnx.checker.check_model(model)
        session = onnxruntime.InferenceSession(model.SerializeToString())
        got = session.run(None, {i.name: v for i, v in zip(session.get_inputs(), values)})
        with contextlib.redirect_stdout(io.StringIO()):
            expected = concrete(*[tf.constant(v) for v in values])
        expected = [t.numpy() for t in tf.nest.flatten(expected)]
        assert len(got) == len(expected), case.fn.__name__
        for g, e in zip(got, expected):
            assert g.dtype == np.asarray(e).dtype and g.shape == np.shape(e), case.fn.__name__
            np.testing.assert_array_equal(g, e, err_msg=case.fn.__name__)
    return None


def test_the_corpus_exports_and_matches_or_is_listed_with_its_reason():
    refused, traced = {}, 0
    for case in CORPUS:
        if next(_traces(case), None) is None:
            continue  # no input traces (each raises as plain Python does)
        traced += 1
        reason = _export_and_compare(case)
        if reason is not None:
            refused[case.fn.__name__] = reason
    assert refused.keys() == NOT_EXPORTED.keys(), refused
    for name, reason in refused.items():
        assert NOT_EXPORTED[name] in reason, (name, reason)
    doc = open(os.path.join(ROOT, "docs", "export.md"), encoding="utf-8").read()
    table = dict(re.findall(r"^\| (.+?) \| (\d+) \|$", doc, re.M))
    assert table["corpus functions"] == str(len(CORPUS))
    assert table["traced (a graph for at least one input)"] == str(traced)
    assert table["exported, onnxruntime equal to the runtime on every input"] == str(
        traced - len(refused))
    assert table["not exported (listed below)"] == str(len(refused))
    for name in NOT_EXPORTED:
        assert f"`{name}`" in doc, name
