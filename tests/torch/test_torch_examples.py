"""The PyTorch examples run, and print what docs/torch.md and the README show."""

import os
import re
import sys

import torch

from autograph.backends import torch as ag_torch
from tests.checkout import ROOT
from tests.examples.test_examples import output_of


def shown_in_docs(name):
    """The output that docs/torch.md and the README show for `python examples/NAME` (one
    output: the two must agree)."""
    shown = set()
    for path in (('docs', 'torch.md'), ('README.md',)):
        with open(os.path.join(ROOT, *path), encoding='utf-8') as f:
            text = f.read()
        # an output ends at its block's fence, or where the next command of its block begins
        found = re.search(r'^\$ python examples/%s\n(.*?\n)(?:\n?^\$ python|^```$)'
                          % re.escape(name), text, re.M | re.S)
        assert found, (name, path)
        shown.add(found.group(1))
    assert len(shown) == 1, shown
    return shown.pop()


def test_torch_export_example():
    out = output_of('torch_export.py')
    assert out == shown_in_docs('torch_export.py')
    assert 'exported: 3 torch.cond, 2 torch.while_loop' in out
    # every path: the sign flip, loops scaling down, up, and neither
    steps = [int(s) for s in re.findall(r'steps = (-?\d+)', out)]
    assert steps == [1, 3, -3, 0]


def test_torch_dynamic_rnn_example():
    out = output_of('torch_dynamic_rnn.py')
    assert out == shown_in_docs('torch_dynamic_rnn.py')
    losses = [float(v) for v in re.findall(r'loss (\d+\.\d+)', out)]
    assert len(losses) == 2 and losses[-1] < losses[0], losses
    assert 'eager and staged agree on every sequence: True' in out


def test_the_dynamic_rnn_trains_through_compile_as_eager():
    """The example's model compiled with `ag_torch.compile` instead of exported: gradients
    through the staged loop equal eager autograd's, for sequences of 0, 2 and 5 numbers."""
    import copy

    sys.path.insert(0, os.path.join(ROOT, 'examples'))
    try:
        from torch_dynamic_rnn import DynamicRNN, sequence
    finally:
        sys.path.pop(0)
    torch.manual_seed(0)
    eager = DynamicRNN()
    model = copy.deepcopy(eager)
    compiled = ag_torch.compile(model, backend='aot_eager')
    for values in (torch.randn(n) for n in (0, 2, 5)):
        x = sequence(values)
        eager.zero_grad()
        model.zero_grad()
        ((eager(x) - values.sum()) ** 2).backward()
        ((compiled(x) - values.sum()) ** 2).backward()
        for a, b in zip(eager.parameters(), model.parameters()):
            want = torch.zeros_like(a) if a.grad is None else a.grad
            assert torch.allclose(b.grad, want, atol=1e-6)


def test_torch_early_exit_example():
    out = output_of('torch_early_exit.py')
    assert out == shown_in_docs('torch_early_exit.py')
    assert re.findall(r'-> row (-?\d+)', out) == ['1', '2', '-1']
    assert 'graphs: 1, graph breaks: 0' in out


def test_torch_early_exit_compiles_with_aot_eager():
    # AOTAutograd functionalizes: a discarded pass that changed an input in place through an
    # alias (`i += 1`) left a tensor the trace did not know, a constant in the loop body
    # ("Please convert all Tensors to FakeTensors" when it ran)
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'examples'))
    try:
        from torch_early_exit import first_match  # pylint: disable=import-outside-toplevel
    finally:
        del sys.path[0]
    rows = torch.tensor([[0.1, 0.2], [0.9, 0.1], [0.5, 0.5], [1.0, 1.0]])
    search = ag_torch.compile(first_match, backend='aot_eager')
    for query, threshold, row in (([1.0, 0.0], 0.8, 1), ([0.0, 1.0], 0.4, 2),
                                  ([1.0, 1.0], 5.0, -1)):
        assert search(rows, torch.tensor(query), torch.tensor(threshold)).item() == row
