"""What a compiled function reads from outside its arguments (torch_outside): global and
closure tensors, parameters and modules are lifted (the same gradients as eager autograd,
where they got none, or the compile failed, before), and a global Python number that
changes recompiles (the compiled function kept the number it was traced with before)."""

import pytest
import torch

from autograph.backends import torch as ag_torch

torch.manual_seed(0)
W = torch.nn.Parameter(torch.randn(3, 3))
B = torch.nn.Parameter(torch.randn(3))
LAYER = torch.nn.Linear(3, 3)
COUNT = 1
PARAMETERS = (W, B, LAYER.weight, LAYER.bias)


def no_control_flow(x):
    return (x @ W).sum()


def in_branch(x):
    y = x @ W
    if y.sum() > 0:
        y = y * B
    else:
        y = y - B
    return y.sum()


def in_loop(x):
    n = 0
    while x.sum() < 10.0:
        x = x * 1.5 + B.abs()
        n += 1
    return x.sum() + n


def nested(x):
    if x.sum() > 0:
        if x.max() > 1:
            x = x @ W
        else:
            x = x * B
    return x.sum()


def module_in_branch(x):
    if x.sum() > 0:
        x = LAYER(x)
    return x.sum()


def bound_to_a_local(x):
    w = B
    for i in range(x.shape[0]):
        if x[i] > 0:
            w = w * 2
    return (w * x).sum()


def returned(x):
    if x.sum() > 0:
        return B
    return B * 2


def _closure():
    scale = torch.nn.Parameter(torch.full((3,), 0.5))

    def through_a_closure(x):
        if x.sum() > 0:
            return (x * scale).sum()
        return (x - scale).sum()
    return through_a_closure, scale


THROUGH_A_CLOSURE, SCALE = _closure()
_INPUTS = (torch.tensor([1.0, 2.0, 0.5]), torch.tensor([-1.0, 0.2, 0.1]),
           torch.tensor([0.3, 0.2, 0.1]))


def _gradients(fn, x, parameters):
    for p in parameters:
        p.grad = None
    out = fn(x)
    if out.requires_grad:
        out.sum().backward()
    # a parameter that the path taken does not read: eager gives None, a staged branch zeros
    grads = [torch.zeros_like(p) if p.grad is None else p.grad.clone() for p in parameters]
    return out.detach(), grads


def _assert_trains_as(compiled, reference, inputs, parameters=PARAMETERS):
    for x in inputs:
        got, got_grads = _gradients(compiled, x, parameters)
        want, want_grads = _gradients(reference, x, parameters)
        torch.testing.assert_close(got, want)
        for g, w in zip(got_grads, want_grads):
            torch.testing.assert_close(g, w)


@pytest.mark.parametrize('fn', [no_control_flow, in_branch, in_loop, nested, module_in_branch,
                                bound_to_a_local, returned, THROUGH_A_CLOSURE])
def test_outside_tensors_train_as_in_eager(fn):
    parameters = PARAMETERS + (SCALE,)
    compiled = ag_torch.compile(fn, backend='aot_eager')
    _assert_trains_as(compiled, fn, _INPUTS, parameters)


def test_a_global_parameter_compiles_with_inductor():
    # the default backend refused the real tensor ("Please convert all Tensors to FakeTensors")
    compiled = ag_torch.compile(in_branch)
    _assert_trains_as(compiled, in_branch, _INPUTS[:2], PARAMETERS)


def scaled(x):
    if x.sum() > 0:
        x = x * 2
    return x * COUNT


def test_a_changed_global_number_recompiles(monkeypatch):
    compiled = ag_torch.compile(scaled, backend='aot_eager')
    x = torch.ones(3)
    for count in (1, 2, 3, 4, 5, 2.5):
        monkeypatch.setitem(globals(), 'COUNT', count)
        torch.testing.assert_close(compiled(x), scaled(x))
        torch.testing.assert_close(compiled(-x), scaled(-x))


def test_a_rebound_global_tensor_is_read_anew(monkeypatch):
    compiled = ag_torch.compile(in_branch, backend='aot_eager')
    x = torch.tensor([1.0, 2.0, 0.5])
    torch.testing.assert_close(compiled(x), in_branch(x))
    monkeypatch.setitem(globals(), 'W', torch.nn.Parameter(torch.randn(3, 3)))
    torch.testing.assert_close(compiled(x), in_branch(x))


class UsesGlobals(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.own = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        if x.sum() > 0:
            x = x * self.own + B
        return (x @ W).sum() * COUNT


def test_a_module_forward_reads_its_globals():
    reference, model = UsesGlobals(), UsesGlobals()
    model.own = reference.own
    compiled = ag_torch.compile(model, backend='aot_eager')
    parameters = PARAMETERS + (reference.own,)
    _assert_trains_as(compiled, reference, _INPUTS[:2], parameters)


def test_export_of_a_function_reading_globals_still_holds():
    program = ag_torch.export(in_branch, (_INPUTS[0],)).module()
    for x in _INPUTS:
        torch.testing.assert_close(program(x), in_branch(x).detach())


def _helper(x):
    if x.sum() > 0:
        return x * B
    return x @ W


def calls_a_helper(x):
    return _helper(x).sum()


def test_a_helper_of_the_same_module_reads_lifted_globals():
    compiled = ag_torch.compile(calls_a_helper, backend='aot_eager')
    _assert_trains_as(compiled, calls_a_helper, _INPUTS[:2], PARAMETERS)
