"""The PyTorch examples run, and print what docs/torch.md shows."""

import os
import re
import sys

import torch

from autograph.backends import torch as ag_torch
from tests.checkout import ROOT
from tests.examples.test_examples import output_of


def shown_in_docs(name):
    """The output that docs/torch.md shows for `python examples/NAME`."""
    with open(os.path.join(ROOT, 'docs', 'torch.md'), encoding='utf-8') as f:
        text = f.read()
    found = re.search(r'^```text\n\$ python examples/%s\n(.*?)^```$' % re.escape(name), text,
                      re.M | re.S)
    assert found, name
    return found.group(1)


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
