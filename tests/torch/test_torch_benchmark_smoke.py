"""Smoke test of benchmarks/torch_cond.py: converted, hand-written and default-compiled code
give equal results, and every figure is measured."""
import pytest
import torch  # noqa: F401 - benchmarks.torch_cond needs it (the test extra has it)

from benchmarks import torch_cond


# torch._dynamo.explain, run on the original function for the default-compile column, uses
# torch's own deprecated torch.jit.script_method (torch 2.13): not this project's to fix.
@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")
def test_every_workload_is_compared_and_agrees():
    records = torch_cond.main(['--quick'])
    assert [r['name'] for r in records] == [w[0] for w in torch_cond.WORKLOADS]
    for record in records:
        assert record['match'], record
        for key in ('steady', 'compile', 'nodes', 'inference_nodes'):
            assert record['hand'][key] > 0 and record['converted'][key] > 0
        assert record['default_compile']['steady'] > 0
