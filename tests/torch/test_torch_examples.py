"""The PyTorch examples run, and print what docs/torch.md shows."""

import re

from tests.examples.test_examples import output_of


def test_torch_export_example():
    out = output_of('torch_export.py')
    assert 'exported: 3 torch.cond, 2 torch.while_loop' in out
    # every path: the sign flip, loops scaling down, up, and neither
    steps = [int(s) for s in re.findall(r'steps = (-?\d+)', out)]
    assert steps == [1, 3, -3, 0]


def test_torch_dynamic_rnn_example():
    out = output_of('torch_dynamic_rnn.py')
    losses = [float(v) for v in re.findall(r'loss (\d+\.\d+)', out)]
    assert len(losses) == 2 and losses[-1] < losses[0], losses
    assert 'eager and staged agree on every sequence: True' in out


def test_torch_early_exit_example():
    out = output_of('torch_early_exit.py')
    assert re.findall(r'-> row (-?\d+)', out) == ['1', '2', '-1']
    assert 'graphs: 1, graph breaks: 0' in out
