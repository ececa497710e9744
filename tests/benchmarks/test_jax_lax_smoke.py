"""Smoke test of benchmarks/jax_lax.py: hand-written lax and converted code give equal results."""
import jax  # noqa: F401 - benchmarks.jax_lax needs it (the test extra has it)
import pytest

from benchmarks import jax_lax
from benchmarks import workloads


@pytest.fixture(scope='module')
def records():
    return {r['name']: r for r in jax_lax.main(['--quick'])}


def test_every_workload_is_compared(records):
    assert sorted(records) == sorted(w.name for w in workloads.WORKLOADS)
    assert sorted(jax_lax.HAND_WRITTEN) == sorted(records)


@pytest.mark.parametrize('name', [w.name for w in workloads.WORKLOADS])
def test_converted_equals_hand_written(records, name):
    record = records[name]
    assert record['match'], record
    for key in ('steady', 'compile', 'eqns'):
        assert record['hand'][key] > 0 and record['converted'][key] > 0


def test_tensor_array_workload_runs_on_the_stand_in(records):
    # dynamic_rnn writes a tf.TensorArray: under JAX, a preallocated buffer (benchmarks/run.py)
    assert 'error' not in records['dynamic_rnn']
    assert records['dynamic_rnn']['match']


@pytest.fixture(scope='module')
def gpu_records():
    return {r['name']: r for r in jax_lax.main(['--quick', '--gpu-sized'])}


def test_gpu_workloads_equal_hand_written_at_the_small_size(gpu_records):
    from benchmarks import jax_gpu
    assert sorted(gpu_records) == sorted(w.name for w in jax_gpu.workloads(False))
    for record in gpu_records.values():
        assert 'error' not in record and record['match'], record
        # no lax.cond left in the converted loop tests: `and` of pure operands is eager
        assert record['converted']['eqns'] <= 1.2 * record['hand']['eqns'], record
