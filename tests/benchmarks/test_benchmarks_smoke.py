"""Smoke test of the benchmark suite: a quick run whose staged results equal the numpy twins'."""
import json
import subprocess
import sys

import numpy as np
import pytest

import runtime as tf
from benchmarks import run
from benchmarks import workloads


@pytest.fixture(scope="module")
def quick_results():
    return run.run_suite(run.Settings(quick=True), log=lambda line: None)


def test_every_workload_ran(quick_results):
    names = [r["name"] for r in quick_results["workloads"]]
    assert names == ["collatz", "tanh_loop", "fizzbuzz", "dynamic_rnn", "nested_break",
                     "elementwise_50", "matmul_loop"]


@pytest.mark.parametrize("name", [w.name for w in workloads.WORKLOADS])
def test_staged_result_equals_numpy_twin(quick_results, name):
    record = {r["name"]: r for r in quick_results["workloads"]}[name]
    assert record["match"], record["mismatch"]


def test_records_have_every_measurement(quick_results):
    for record in quick_results["workloads"]:
        for key in ("steady", "numpy", "first_call", "cold_convert", "repeat_convert"):
            stats = record[key]
            assert 0 < stats["min"] <= stats["median"] <= stats["max"], (record["name"], key)
        assert record["ratio"] == pytest.approx(
            record["steady"]["median"] / record["numpy"]["median"])


def test_growth_rows_match_and_grow(quick_results):
    rows = quick_results["growth"]
    assert [row["match"] for row in rows] == [True, True]
    # 30 and 60 requested lines: the def and return lines plus whole 7-line blocks.
    assert [row["lines"] for row in rows] == [2 + 7 * 4, 2 + 7 * 8]
    assert rows[1]["nodes"] > rows[0]["nodes"]


def test_known_answers_of_numpy_twins():
    # Worked out by hand: collatz(27) takes 111 steps; 1..100 holds 6 multiples of 15,
    # 33 - 6 = 27 other multiples of 3, 20 - 6 = 14 other multiples of 5, 100 - 47 = 53 others.
    assert workloads.collatz_numpy(np.array(27, np.int32)) == 111
    assert [int(v) for v in workloads.fizzbuzz_numpy(np.array(100, np.int32))] == [6, 27, 14, 53]
    x = np.array([[1.0, -1.0, 2.0], [-5.0, 3.0, 1.0]], np.float32)
    found, total = workloads.first_crossing_numpy(x, np.array(4.5, np.float32))
    assert (int(found), float(total)) == (4, 6.0)  # 1 + 2 + 3 passes 4.5 at row 1, col 1


def test_staged_first_crossing_on_a_small_matrix():
    x = np.array([[1.0, -1.0, 2.0], [-5.0, 3.0, 1.0]], np.float32)
    staged = tf.function(workloads.first_crossing)
    found, total = staged(tf.constant(x), tf.constant(4.5))
    assert (int(found.numpy()), float(total.numpy())) == (4, 6.0)
    found, total = staged(tf.constant(x), tf.constant(100.0))
    assert (int(found.numpy()), float(total.numpy())) == (-1, 7.0)


def test_results_match_reports_differences():
    assert run.results_match((tf.constant(1.0),), (np.float32(1.0),)) == (True, "")
    ok, why = run.results_match(tf.constant(1.0), np.float32(2.0))
    assert not ok and "values differ" in why
    ok, why = run.results_match(tf.constant(1), np.float32(1.0))
    assert not ok and "int32" in why and "float32" in why
    ok, why = run.results_match((tf.constant(1.0),), (np.float32(1.0), np.float32(1.0)))
    assert not ok and "1 outputs" in why


def test_fmt_time_units():
    assert [run.fmt_time(t) for t in (5e-9, 2.5e-6, 0.0125, 3.0)] == [
        "5ns", "2.5us", "12.50ms", "3.00s"]


def test_cli_quick_writes_json(tmp_path):
    out = tmp_path / "results.json"
    proc = subprocess.run(
        [sys.executable, "benchmarks/run.py", "--quick", "--no-growth", "--workload",
         "collatz", "--output", str(out)], capture_output=True, text=True, timeout=120,
        cwd=run.os.path.dirname(run.os.path.dirname(run.__file__)))
    assert proc.returncode == 0, proc.stderr
    assert "collatz" in proc.stdout
    data = json.loads(out.read_text())
    assert [r["name"] for r in data["workloads"]] == ["collatz"]
    assert data["workloads"][0]["match"] is True


def test_unknown_workload_is_rejected():
    with pytest.raises(ValueError, match="unknown workload"):
        run.run_suite(run.Settings(quick=True), ["nope"], growth=False, log=lambda line: None)
