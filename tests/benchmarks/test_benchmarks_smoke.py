"""Smoke test of the benchmark suite: a quick run whose staged results equal the references'."""
import json
import subprocess
import sys
import types

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
                     "collatz_vector", "rnn_steps", "first_exceed", "elementwise_50",
                     "large_chain", "matmul_loop"]


@pytest.mark.parametrize("name", [w.name for w in workloads.WORKLOADS])
def test_staged_result_equals_reference(quick_results, name):
    record = {r["name"]: r for r in quick_results["workloads"]}[name]
    assert record["match"], record["mismatch"]


def test_records_have_every_measurement(quick_results):
    for record in quick_results["workloads"]:
        for key in ("steady", "reference", "first_call", "fresh_first_call",
                    "fresh_cached_first_call", "cold_convert",
                    "repeat_convert"):
            stats = record[key]
            assert 0 < stats["min"] <= stats["median"] <= stats["max"], (record["name"], key)
        assert record["ratio"] == pytest.approx(
            record["steady"]["median"] / record["reference"]["median"])
    nested = {r["name"]: r for r in quick_results["workloads"]}["nested_break"]
    assert nested["exact_ratio"] == pytest.approx(
        nested["steady"]["median"] / nested["exact_reference"]["median"])
    assert "nested_break: its reference rounds differently" in run.format_table(
        quick_results["workloads"])


def test_growth_rows_match_and_grow(quick_results):
    rows = quick_results["growth"]
    assert [row["match"] for row in rows] == [True, True]
    # 30 and 60 requested lines: the def and return lines plus whole 7-line blocks.
    assert [row["lines"] for row in rows] == [2 + 7 * 4, 2 + 7 * 8]
    assert rows[1]["nodes"] > rows[0]["nodes"]


def test_imports_and_memory_are_measured(quick_results):
    imports, memory = quick_results["imports"], quick_results["memory"]
    assert imports["import_runtime"]["median"] > 0 and imports["import_numpy"]["median"] > 0
    assert memory["functions"] == 10 and memory["kb_per_function"] > 0
    # 10 nine-line functions: def, 3 assignments, while, if/else, 2 returns... at least 40 nodes
    assert memory["module_ast_nodes"] > 10 * 40


def test_fit_exponent_on_known_powers():
    sizes = [50, 100, 400, 2000]
    assert run.fit_exponent(sizes, [3e-4 * n for n in sizes]) == pytest.approx(1.0)
    assert run.fit_exponent(sizes, [2e-7 * n * n for n in sizes]) == pytest.approx(2.0)
    assert run.fit_exponent([10, 20], [1.0, 1.0]) == pytest.approx(0.0)


def test_format_growth_prints_the_exponents():
    rows = [{"lines": n, "convert": n * 1e-4, "trace_and_compile": n * n * 1e-7, "nodes": n,
             "optimize": 1e-3, "compile": 1e-3, "match": True} for n in (100, 200, 400)]
    text = run.format_growth(rows)
    assert "convert 1.00 ," in text and "trace+compile 2.00!" in text


def test_growth_check_takes_the_median_of_its_runs(monkeypatch):
    converts = iter([0.9, 0.1, 0.5, 2.0, 1.0, 3.0])  # two sizes, three runs each

    def child(argv, **kwargs):
        del kwargs
        row = {"lines": int(argv[-1]), "convert": next(converts), "trace_and_compile": 0.2,
               "nodes": 7, "optimize": 0.01, "compile": 0.02, "match": True}
        return types.SimpleNamespace(returncode=0, stdout=json.dumps(row) + "\n", stderr="")

    monkeypatch.setattr(run.subprocess, "run", child)
    rows = run.growth_check([10, 20], runs=3)
    assert [row["convert"] for row in rows] == [0.5, 2.0]
    assert [row["runs"] for row in rows] == [3, 3] and all(row["match"] for row in rows)
    assert "the median of 3 child processes" in run.format_growth(rows)


def test_known_answers_of_references():
    # Worked out by hand: collatz(27) takes 111 steps; 1..100 holds 6 multiples of 15,
    # 33 - 6 = 27 other multiples of 3, 20 - 6 = 14 other multiples of 5, 100 - 47 = 53 others.
    assert workloads.collatz_reference(np.array(27, np.int32)) == 111
    counts = workloads.fizzbuzz_reference(np.array(100, np.int32))
    assert [int(v) for v in counts] == [6, 27, 14, 53]
    assert [v.dtype for v in counts] == [np.int32] * 4
    x = np.array([[1.0, -1.0, 2.0], [-5.0, 3.0, 1.0]], np.float32)
    found, total = workloads.first_crossing_reference(x, np.array(4.5, np.float32))
    assert (int(found), float(total)) == (4, 6.0)  # 1 + 2 + 3 passes 4.5 at row 1, col 1
    assert (found.dtype, total.dtype) == (np.int32, np.float32)


def _first_crossing_numpy_float32(x, threshold):
    total = np.float32(0.0)  # numpy float32 scalars: float32 rounding after every add
    for index, value in enumerate(x.ravel()):
        if value < 0:
            continue
        total = total + value
        if total > threshold:
            return np.int32(index), total
    return np.int32(-1), total


@pytest.mark.parametrize("seed", range(5))
def test_float32_reference_rounds_as_float32_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    scale = np.float32(2.0) ** rng.integers(-30, 30, (12, 12))
    x = (rng.uniform(-1.0, 1.0, (12, 12)) * scale).astype(np.float32)
    threshold = np.float32(np.abs(x).sum() / 3)
    want = _first_crossing_numpy_float32(x, threshold)
    got = workloads.first_crossing_float32_reference(x, threshold)
    assert [(v.dtype, v.tobytes()) for v in got] == [(v.dtype, v.tobytes()) for v in want]
    # the float64 reference rounds differently: this is why the float32 one exists
    if seed == 0:
        x = np.full((1, 3), 1.0, np.float32)
        x[0, 1:] = 2.0 ** -24  # 1 + 2**-24 rounds to 1 in float32 (a tie, to even)
        assert float(workloads.first_crossing_float32_reference(x, np.float32(5))[1]) == 1.0
        assert float(workloads.first_crossing_reference(x, np.float32(5))[1]) > 1.0


@pytest.mark.filterwarnings('ignore:overflow encountered in cast:RuntimeWarning')  # on purpose
def test_float32_reference_overflows_to_inf_as_float32():
    big = np.finfo(np.float32).max
    x = np.array([[big, big, -1.0, 1.0]], np.float32)  # inf + 1 stays inf
    found, total = workloads.first_crossing_float32_reference(x, np.float32(np.inf))
    assert int(found) == -1 and np.isinf(total) and total.dtype == np.float32


def test_in_place_references_leave_their_inputs_alone():
    # The references write with out=; they must only write into buffers they made.
    for workload in workloads.WORKLOADS:
        inputs = workload.make_inputs()
        if workload.name == "matmul_loop":
            inputs = [a[:8, :8].copy() for a in inputs]
        copies = [a.copy() for a in inputs]
        workload.reference_fn(*inputs)
        for before, after in zip(copies, inputs):
            np.testing.assert_array_equal(before, after, err_msg=workload.name)


def test_elementwise_references_equal_the_plain_numpy_chain():
    x = np.linspace(-1.0, 1.0, 10).astype(np.float32)
    want = x
    for _ in range(10):
        want = np.maximum(np.tanh(want * np.float32(1.01) + np.float32(0.1)) - np.float32(0.05),
                          np.float32(-0.5))
    np.testing.assert_array_equal(workloads.elementwise_chain_reference(x), want)
    a = np.eye(3, dtype=np.float32) * 2
    np.testing.assert_array_equal(workloads.matmul_loop_reference(a, a),
                                  np.eye(3, dtype=np.float32) * 2 ** 11)


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
    next_up = np.nextafter(np.float32(1.0), np.float32(2.0))  # one float32 step: 1.2e-7
    assert run.results_match(tf.constant(1.0), next_up) == (True, "")
    ok, why = run.results_match(tf.constant(1.0), next_up, exact=True)
    assert not ok and "values differ" in why
    assert run.results_match(tf.constant(1.0), np.float32(1.0), exact=True) == (True, "")


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


def test_fresh_first_call_with_the_disk_cache_loads_it(tmp_path):
    # "+disk": one child fills the cache, the timed child loads it (fresh_process raises if it
    # wrote no entry, or if the timed run converted again and wrote another).
    record = run.fresh_process("collatz", 1, str(tmp_path))
    assert record["first_call"]["median"] > 0
    assert run._cache_entries(str(tmp_path))  # pylint: disable=protected-access


def test_fresh_processes_interleave_the_workloads(monkeypatch):
    # Each round runs one child per workload, so a burst of load on the machine falls on a
    # few samples of every workload, not on all the samples of one.
    order = []

    def child(name, env):
        order.append(name)
        return {"import_numpy": 0.05, "import_runtime": 0.02, "first_call": len(order) / 1e3}
    monkeypatch.setattr(run, "_fresh_child", child)
    results = run.fresh_processes(["a", "b", "c"], 3)
    assert order == ["a", "b", "c"] * 3
    assert results["b"]["first_call"]["median"] == 5 / 1e3
