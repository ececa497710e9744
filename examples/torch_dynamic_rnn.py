"""A recurrent cell run over a sequence until its end marker (a `for` over a tensor with a
data-dependent `break`), exported with torch.export and trained with gradients through the
staged loop.

    python examples/torch_dynamic_rnn.py
"""

import torch

from autograph.backends import torch as ag_torch


class DynamicRNN(torch.nn.Module):
    def __init__(self, size=4):
        super().__init__()
        self.cell = torch.nn.RNNCell(1, size)
        self.out = torch.nn.Linear(size, 1)

    def forward(self, inputs):
        state = torch.zeros(1, self.cell.hidden_size)
        for x in inputs:  # over a tensor, with a break: a torch.while_loop
            if x == END:
                break
            state = self.cell(x.reshape(1, 1), state)
        return self.out(state).reshape(())


END = 9.0  # the end marker of a sequence


def sequence(values, length=8):
    """`values` followed by the end marker and padding, as one tensor of `length`."""
    return torch.cat([values, torch.full((length - len(values),), END)])


def main():
    torch.manual_seed(0)
    model = DynamicRNN()
    program = ag_torch.export(model, (sequence(torch.randn(3)),))  # converts model in place
    staged = program.module()  # reads the model's own parameters
    # the task: the sum of a sequence of up to 7 numbers
    data = [(sequence(v), v.sum()) for v in (torch.randn(n) for n in (0, 2, 5))]
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    for step in range(6):
        optimizer.zero_grad()
        loss = sum((staged(x) - target) ** 2 for x, target in data) / len(data)
        loss.backward()
        optimizer.step()
        if step % 5 == 0:
            print('step %3d  loss %.4f' % (step, loss.item()))
    with torch.no_grad():
        print('eager and staged agree on every sequence: %s' % all(torch.allclose(
            DynamicRNN.forward(model, x), staged(x), atol=1e-6) for x, _ in data))


if __name__ == '__main__':
    main()
