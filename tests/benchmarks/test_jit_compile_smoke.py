"""Smoke test of benchmarks/jit_compile.py: jit_compile=True, hand-written jax.jit and the numpy
executor give equal results on every workload (its timings are not checked: a smoke run)."""
import jax  # noqa: F401 - benchmarks.jit_compile needs it (the test extra has it)
import pytest

from benchmarks import jit_compile
from benchmarks import workloads


@pytest.fixture(scope="module")
def records():
    return {r["name"]: r for r in jit_compile.main(["--quick"])}


def test_every_workload_is_compared(records):
    assert sorted(records) == sorted(w.name for w in workloads.WORKLOADS)


@pytest.mark.parametrize("name", [w.name for w in workloads.WORKLOADS])
def test_jit_compile_equals_hand_written_and_numpy(records, name):
    record = records[name]
    assert record["match"], record
    for key in ("xla", "hand", "numpy"):
        assert record["steady"][key] > 0 and record["first_call"][key] > 0
