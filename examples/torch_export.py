"""An nn.Module with a data-dependent `if` and `while`, exported with torch.export, saved,
loaded back and run on inputs that take every path.

    python examples/torch_export.py
"""

import os
import tempfile

import torch

from autograph.backends import torch as ag_torch


class Normalizer(torch.nn.Module):
    """Scales a vector up or down until its largest entry lies in [1, 2)."""

    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.tensor([0.0, 0.25, -0.25]))

    def forward(self, x):
        if x.sum() < 0:
            x = -x
        steps = 0
        while x.abs().max() >= 2:
            x = x / 2
            steps += 1
        while x.abs().max() < 1:
            x = x * 2
            steps -= 1
        return x + self.bias, steps


def main():
    torch.manual_seed(0)
    model = Normalizer()
    example = torch.tensor([3.0, -1.0, 0.5])
    program = ag_torch.export(model, (example,))  # converts model.forward in place
    ops = [n.target for m in program.graph_module.modules() if isinstance(m, torch.fx.GraphModule)
           for n in m.graph.nodes if n.op == 'call_function']
    print('exported: %d torch.cond, %d torch.while_loop' % (
        ops.count(torch.ops.higher_order.cond), ops.count(torch.ops.higher_order.while_loop)))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, 'normalizer.pt2')
        torch.export.save(program, path)
        loaded = torch.export.load(path).module()
    for x in ([3.0, -1.0, 0.5], [-10.0, 2.0, 1.0], [0.1, 0.2, -0.05], [1.5, 0.0, 0.0]):
        x = torch.tensor(x)
        y, steps = loaded(x)
        eager_y, eager_steps = Normalizer.forward(model, x)  # the original Python
        assert torch.allclose(y, eager_y) and steps.item() == eager_steps
        print('x = %-22s -> y = %-24s steps = %d' % (
            [round(v, 2) for v in x.tolist()], [round(v, 4) for v in y.tolist()],
            steps.item()))


if __name__ == '__main__':
    main()
