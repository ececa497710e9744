"""Every corpus function traced, saved, and loaded in a fresh process without its source.

The corpus module is copied to a scratch directory and imported from there; each function is
traced on each of its inputs (as tests/runtime/test_graph_def.py does), run, and saved; the
copy is deleted; then one subprocess, started in the directory of saved models with no Python
source in reach, loads each and calls it on the same inputs. Results, printed text and
exception types must equal the original traces'. The functions that cannot be saved are listed
in `NOT_SAVED` with the reason, and the test checks that exactly those fail, so the list
cannot go stale.
"""
import contextlib
import importlib.util
import io
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import runtime as tf
from tests.corpus import real_features
from tests.corpus import registry
from tests.corpus.harness import assert_same
from tests.corpus.harness import numpy_to_python
from tests.corpus.harness import run_plain

pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")

ROOT = pathlib.Path(__file__).resolve().parents[3]

# A staged `raise` (and the IndexError or KeyError of a table read at a staged index) is a
# py_function: the exception, its class and its message formatted from run-time values, is
# made by Python code when the graph runs, which a saved model cannot hold.
_RAISES = "a staged raise is a py_function"

# function name -> why it is not saved (what save raises says the same)
NOT_SAVED = {
    "raise_in_staged_branch": _RAISES,
    "raise_user_defined_after_a_print": _RAISES,
    "raise_class_and_raise_from": _RAISES,
    "raise_in_staged_while": _RAISES,
    "raise_after_a_loop_that_returns": _RAISES,
    "raise_in_elif_chain_with_else": _RAISES,
    "raise_in_a_staged_loop_body": _RAISES,
    "raise_with_str_in_message": _RAISES,
    "table_read_at_a_staged_index": _RAISES,
    "table_written_at_staged_indices_in_a_loop": _RAISES,  # a table read's IndexError
    "table_written_in_staged_branches": _RAISES,
    "table_of_a_staged_size": _RAISES,
    "dict_of_numbers_at_a_staged_key": _RAISES,
    "tuple_index_out_of_range": _RAISES,
    "for_range_indexing_a_list_staged_break": _RAISES,
    "max_and_min_of_generators": _RAISES,  # the ValueError of max() of no element
    "lcs_length_with_rows_read_at_a_staged_index": _RAISES,  # a table read's IndexError
    "grid_row_changed_through_an_alias_in_a_staged_loop": _RAISES,
    # list.index's ValueError
    "searches_of_lists_of_staged_numbers": _RAISES,
    "most_common_digit": _RAISES,
    "table_rows_changed_through_loop_targets": _RAISES,  # a table read's IndexError
}

_CHILD = r"""
import contextlib, importlib.util, io, json, os, sys
import runtime as tf
from tests.corpus.harness import numpy_to_python
from tests.corpus.harness import run_plain
assert importlib.util.find_spec("corpus_copy") is None, "the corpus source is reachable"
cases = json.load(open("cases.json"))
results = []
for name, args in cases:
    fn = tf.saved_model.load(name)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            value, error = fn(*[tf.constant(a) if s else a for a, s in args]), None
        except Exception as e:
            value, error = None, type(e).__name__
    value = tf.nest.map_structure(lambda t: t.numpy() if isinstance(t, tf.Tensor) else t,
                                  value)
    results.append([numpy_to_python(value), error, out.getvalue()])
print(json.dumps(results))
"""


def _import_copy(directory):
    """The corpus with tests/corpus/functions.py imported from a copy, whose `CORPUS` holds
    the copy's functions and those of real_features.py (the copy imports that module, whose
    source stays reachable in this process: the loading subprocess cannot reach either)."""
    source = ROOT / "tests" / "corpus" / "functions.py"
    copy = directory / "corpus_copy.py"
    shutil.copyfile(source, copy)
    spec = importlib.util.spec_from_file_location("corpus_copy", copy)
    module = importlib.util.module_from_spec(spec)
    sys.modules["corpus_copy"] = module
    before = list(registry.CORPUS)
    try:
        spec.loader.exec_module(module)  # registers the copies in the shared registry
        copies = registry.CORPUS[len(before):]
    finally:
        registry.CORPUS[:] = before  # other tests see the corpus once
    module.CORPUS = [c for c in before if c.fn.__module__ == real_features.__name__] + copies
    return module


def _run(fn, args):
    value, error, stdout = run_plain(fn, args)
    value = tf.nest.map_structure(lambda t: t.numpy() if isinstance(t, tf.Tensor) else t, value)
    return [numpy_to_python(value), error and error.__name__, stdout]


def _trace_and_save(corpus, models):
    """Saves each corpus function with its traces; returns (calls, expected, save errors)."""
    calls, expected, refused = [], [], {}
    for case in corpus.CORPUS:
        name = case.fn.__name__
        function = tf.function(case.fn)
        runs = []
        for plain in case.inputs:
            staged = [case.stageable and isinstance(a, (bool, int, float)) for a in plain]
            args = [tf.constant(a) if s else a for a, s in zip(plain, staged)]
            result = _run(function, args)
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    function.get_concrete_function(*args)
            except Exception:  # noqa: BLE001 - tracing raises as plain Python: no graph
                continue
            runs.append(([[a, s] for a, s in zip(plain, staged)], result))
        try:
            tf.saved_model.save(function, str(models / name))
        except tf.saved_model.SavedModelError as e:
            refused[name] = str(e)
            continue
        for args, result in runs:
            calls.append([name, args])
            expected.append(result)
    return calls, expected, refused


def test_every_corpus_function_loads_without_its_source_and_agrees(tmp_path):
    source_dir, models = tmp_path / "source", tmp_path / "models"
    source_dir.mkdir()
    models.mkdir()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            calls, expected, refused = _trace_and_save(_import_copy(source_dir), models)
    finally:
        sys.modules.pop("corpus_copy", None)
        shutil.rmtree(source_dir)
    assert {name: reason for name, reason in refused.items()} .keys() == NOT_SAVED.keys(), \
        refused
    assert not list(models.rglob("*.py"))
    (models / "cases.json").write_text(json.dumps(calls))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.run([sys.executable, "-c", _CHILD], cwd=models, env=env,
                           capture_output=True, text=True, timeout=600)
    assert child.returncode == 0, child.stderr[-3000:]
    results = json.loads(child.stdout.splitlines()[-1])
    assert len(results) == len(expected) > 100
    for (name, args), want, got in zip(calls, expected, results):
        assert got[1:] == want[1:], (name, args, got, want)
        if want[1] is None:
            assert_same(want[0], got[0], (name, args))
