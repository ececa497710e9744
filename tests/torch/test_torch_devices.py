"""Converted code exported on tensors of another device than the CPU: the Python numbers that
staged control flow makes tensors (loop counters, flags, branch outputs, math tables) go to
the device of the call's tensors.

No GPU is needed: the inputs are fake tensors (`FakeTensorMode`) on the `meta` device, and
torch.export traces on fake tensors anyway, checking every operation's devices as a run on
that device would. `meta` stands for CUDA here because this project's CI has the CPU-only
torch wheel, whose fake CUDA tensors cannot be indexed ("PyTorch is not linked with support
for cuda devices"); on a machine with CUDA the test runs on `cuda` too. Before the backend
put those numbers on the call's device (`torch_values.call_device`), nine corpus functions
failed to export on fake CUDA tensors ("differ in device", "expected same device but got
cuda:0 and cpu") while they exported on the CPU, and 74 of the 131 cases failed this test
(most left CPU tensors in the program).
"""

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from autograph.backends import torch as ag_torch
from tests.corpus.functions import CORPUS
from tests.corpus.harness import staged_args
from tests.torch.test_corpus_torch import WAY


def _export(case, args, device):
    """ag_torch.export of `case.fn` on `args`, its tensors made on `device` (fake for cuda)."""
    tensors = [isinstance(a, torch.Tensor) for a in args]

    def call(*values):
        it = iter(values)
        return case.fn(*[next(it) if t else a for a, t in zip(args, tensors)])

    inputs = [a for a in args if isinstance(a, torch.Tensor)]
    if device == 'cpu':
        return ag_torch.export(call, inputs)
    with FakeTensorMode(allow_non_fake_inputs=True):
        inputs = [torch.empty(a.shape, dtype=a.dtype, device=device) for a in inputs]
        return ag_torch.export(call, inputs)


def _outcome(case, args, device):
    try:
        program = _export(case, args, device)
    except Exception as e:  # noqa: BLE001 - compared between the devices
        return type(e)
    return {str(n.meta['val'].device) for n in program.graph.nodes
            if isinstance(n.meta.get('val'), torch.Tensor)}


DEVICES = ['meta'] + (['cuda'] if torch.cuda.is_available() else [])


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('case', CORPUS, ids=[c.fn.__name__ for c in CORPUS])
def test_exports_on_another_device_as_on_the_cpu(case, device):
    args = staged_args(WAY, case, case.inputs[0])
    on_cpu = _outcome(case, args, 'cpu')
    on_device = _outcome(case, args, device)
    if isinstance(on_cpu, type):  # what cannot export on the CPU fails alike elsewhere
        assert on_device is on_cpu
    else:  # and every tensor of the program is on the inputs' device
        assert on_cpu <= {'cpu'} and on_device <= {device, device + ':0'}, (on_cpu, on_device)
