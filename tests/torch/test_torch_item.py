"""`t.item()` in converted code: on eager tensors Python's number, as plain Python; while
torch traces, a 0-d tensor that stands for the number, so that an `if`, a `while` or a
`break` on it stages (torch's own `item()` gives a number no branch can depend on while
torch traces: "Could not guard on data-dependent expression")."""

import pytest
import torch

import autograph
from autograph.backends import torch as ag_torch


def sign_of_sum(x):
    if x.sum().item() > 0:
        return x * 2
    return x - 1


def halve_until_small(x):
    steps = 0
    while x.abs().max().item() > 1.0:
        x = x / 2
        steps += 1
    return x, steps


def count_positive_rows(x):
    count = 0
    for row in x:
        count += (row > 0).sum().item()
        if count > 3:
            break
    return count


_CASES = [
    (sign_of_sum, [(torch.ones(3),), (-torch.ones(3),)]),
    (halve_until_small, [(torch.tensor([8.0, -3.0]),), (torch.tensor([0.5, 0.25]),)]),
    (count_positive_rows, [(torch.tensor([[1.0, 2.0], [3.0, -1.0], [1.0, 1.0]]),),
                           (torch.tensor([[-1.0, -2.0], [3.0, -1.0], [-1.0, 1.0]]),)]),
]


def _same(got, want):
    for g, w in zip(torch.utils._pytree.tree_leaves(got), torch.utils._pytree.tree_leaves(want)):
        torch.testing.assert_close(torch.as_tensor(g), torch.as_tensor(w), check_dtype=False)


@pytest.mark.parametrize('fn, inputs', _CASES)
def test_item_stages_under_export_and_compile(fn, inputs):
    program = ag_torch.export(fn, inputs[0]).module()
    compiled = ag_torch.compile(fn, backend='aot_eager')
    for args in inputs:
        _same(program(*args), fn(*args))
        _same(compiled(*args), fn(*args))


def test_item_of_an_eager_tensor_is_pythons_number():
    converted = autograph.convert(count_positive_rows)
    got = converted(torch.tensor([[1.0, 2.0], [3.0, -1.0]]))
    assert type(got) is int and got == 3


def test_item_of_a_traced_tensor_of_several_elements_raises_as_torch_does():
    def first(x):
        return x.item()

    with pytest.raises(RuntimeError, match='elements cannot be converted to Scalar'):
        ag_torch.export(first, (torch.ones(3),))
