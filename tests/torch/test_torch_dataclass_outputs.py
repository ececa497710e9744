"""A converted function or module that returns a dataclass compiles and exports: the
dataclass is registered with torch's pytree (`torch.export.register_dataclass`) when it is
first returned. Before, `ag_torch.compile` failed ("Unsupported output type for
nonstrict_trace-ed function") where plain `torch.compile` returns the dataclass, and
`ag_torch.export` asked the user to register it."""

import dataclasses

import torch
from torch.utils import _pytree as pytree

from autograph.backends import torch as ag_torch


@dataclasses.dataclass
class Doubled:
    y: torch.Tensor
    steps: int


@dataclasses.dataclass
class Nested:
    inner: Doubled
    total: torch.Tensor


class Doubling(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.full((4,), 0.5))

    def forward(self, x):
        steps = 0
        while x.sum() < 100:
            x = x * 2 + self.w
            steps += 1
        return Doubled(x, steps)


def nested(x):
    if x.sum() > 0:
        x = x * 3
    return Nested(Doubled(x, 1), x.sum())


def _check(got, want):
    assert type(got) is type(want)
    for g, w in zip(pytree.tree_leaves(got), pytree.tree_leaves(want)):
        torch.testing.assert_close(torch.as_tensor(g), torch.as_tensor(w), check_dtype=False)


def test_a_module_returning_a_dataclass_compiles_and_trains():
    reference, model = Doubling(), Doubling()
    compiled = ag_torch.compile(model, backend='aot_eager')
    _check(compiled(torch.full((4,), 200.0)), reference(torch.full((4,), 200.0)))  # 0 steps
    got, want = compiled(torch.ones(4)), reference(torch.ones(4))
    _check(got, want)
    got.y.sum().backward()
    want.y.sum().backward()
    torch.testing.assert_close(model.w.grad, reference.w.grad)


def test_nested_dataclasses_compile_and_export():
    compiled = ag_torch.compile(nested, backend='aot_eager')
    program = ag_torch.export(nested, (torch.ones(3),)).module()
    for x in (torch.ones(3), -torch.ones(3)):
        _check(compiled(x), nested(x))
        _check(program(x), nested(x))
