"""Gradients through staged torch.cond and torch.while_loop: equal to eager autograd and to
finite differences, for every path (including a loop that runs zero times)."""

import pytest
import torch

from autograph.backends import torch as ag_torch
from benchmarks.torch_cond import forward_graphs_backend


def power_loop(w, x, n):
    # w read in every iteration; the loop runs n times, possibly zero
    y = x
    i = 0
    while i < n:
        y = y * w + x
        i += 1
    return y


def branch_and_count(w, x, n):
    # an if whose outputs mix a float and an integer counter
    count = 0
    if x.sum() > 0:
        y = x * w
        count += 1
    else:
        y = x - w
    for _ in range(n):
        y = torch.tanh(y) * w
        count += 1
    return y.sum() + count


def _finite_difference(fn, args, k, eps=1e-6):
    args = [a.double() if a.is_floating_point() else a for a in args]
    grad = torch.zeros_like(args[k])
    flat = grad.view(-1)
    for j in range(flat.numel()):
        plus = [a.clone() for a in args]
        minus = [a.clone() for a in args]
        plus[k].view(-1)[j] += eps
        minus[k].view(-1)[j] -= eps
        flat[j] = (fn(*plus).sum() - fn(*minus).sum()) / (2 * eps)
    return grad


_PROGRAMS = {}


def _exported(fn, args):
    if fn not in _PROGRAMS:
        _PROGRAMS[fn] = ag_torch.export(fn, args).module()
    return _PROGRAMS[fn]


@pytest.mark.parametrize('fn', [power_loop, branch_and_count])
@pytest.mark.parametrize('n', [0, 1, 3])
@pytest.mark.parametrize('sign', [1.0, -1.0])
def test_gradients_equal_eager_and_finite_differences(fn, n, sign):
    w = torch.tensor(0.8, dtype=torch.float64)
    x = sign * torch.tensor([0.5, -0.25, 1.5], dtype=torch.float64)
    count = torch.tensor(n)
    staged = _exported(fn, (w, x, count))
    eager_args = [w.clone().requires_grad_(), x.clone().requires_grad_(), count]
    staged_args = [w.clone().requires_grad_(), x.clone().requires_grad_(), count]
    # an input the loop does not read when it runs zero times has a zero gradient
    eager = torch.autograd.grad(fn(*eager_args).sum(), eager_args[:2], allow_unused=True,
                                materialize_grads=True)
    got = torch.autograd.grad(staged(*staged_args).sum(), staged_args[:2], allow_unused=True,
                              materialize_grads=True)
    for k in range(2):
        assert torch.allclose(got[k], eager[k]), (k, got[k], eager[k])
        assert torch.allclose(got[k], _finite_difference(fn, [w, x, count], k), atol=1e-5)


def test_torch_differentiates_a_zero_trip_while_loop_as_one_trip():
    # The reproducer of docs/torch.md: torch 2.13's own while_loop, not this backend. When a
    # torch release fixes it, this fails, and the backend's guard can go.
    class Loop(torch.nn.Module):
        def forward(self, w, n):
            return torch.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * w),
                                    (torch.zeros((), dtype=torch.int64), w))[1]

    w = torch.tensor(0.7, requires_grad=True)
    program = torch.export.export(Loop(), (w.detach(), torch.tensor(0))).module()
    (grad,) = torch.autograd.grad(program(w, torch.tensor(0)), (w,))
    assert grad.item() == pytest.approx(1.4)  # eager autograd: 1.0 (y = w)


class Decay(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rate = torch.nn.Parameter(torch.tensor(0.5, dtype=torch.float64))

    def forward(self, x):
        while x.abs().sum() > 1.0:  # a data-dependent number of iterations
            x = x * self.rate
        return x


def test_a_module_trains_through_a_staged_loop():
    x = torch.tensor([4.0, -3.0], dtype=torch.float64)
    target = torch.tensor([0.5, -0.4], dtype=torch.float64)
    eager = Decay()
    (eager_grad,) = torch.autograd.grad((eager(x) - target).pow(2).sum(), [eager.rate])
    model = ag_torch.convert(Decay())
    program = ag_torch.export(model, (x,))
    # the exported module reads the model's own parameter, so training it trains the model
    (program.module()(x) - target).pow(2).sum().backward()
    assert torch.allclose(model.rate.grad, eager_grad)
    eps = 1e-6
    loss = lambda r: (x * r ** 3 - target).pow(2).sum()  # three iterations for this x
    assert model.rate.grad.item() == pytest.approx(
        ((loss(0.5 + eps) - loss(0.5 - eps)) / (2 * eps)).item(), rel=1e-5)


def _grads_equal_eager(eager, model, x):
    compiled = ag_torch.compile(model, backend='aot_eager')
    eager(x).square().sum().backward()
    compiled(x).square().sum().backward()
    for (name, a), b in zip(eager.named_parameters(), model.parameters()):
        # a parameter that the path taken does not read: None in eager, zeros through a cond
        want = torch.zeros_like(a) if a.grad is None else a.grad
        assert b.grad is not None and torch.allclose(b.grad, want), name


class GatedStack(torch.nn.Module):
    """Parameters read inside a staged while and a staged if, a Python loop over layers, and
    an early return under a staged if."""

    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(2)])
        self.gate = torch.nn.Linear(3, 3)

    def forward(self, x):
        steps = 0
        while x.norm() < 4.0 and steps < 3:
            x = torch.tanh(self.gate(x)) * 2 + x
            steps += 1
        for layer in self.layers:
            x = torch.relu(layer(x)) + 0.1
        if x.sum() > 5.0:
            return self.gate(x) * 0.5
        return x


@pytest.mark.parametrize('scale', [0.1, 1.0, 30.0, 300.0])
def test_a_compiled_module_trains_as_eager(scale):
    """`ag_torch.compile` of a module whose parameters staged control flow reads: torch
    differentiates each cond and loop by running it again after the forward, when the
    module's parameters are the real ones again (torch_lifting.closed finds their stand-ins
    through the module)."""
    torch.manual_seed(0)
    eager = GatedStack().double()
    model = GatedStack().double()
    model.load_state_dict(eager.state_dict())
    _grads_equal_eager(eager, model, torch.linspace(-1.0, 1.0, 3, dtype=torch.float64) * scale)


class EarlyExitStack(torch.nn.Module):
    """An early return under a staged if inside a Python loop over layers: the loop is
    staged too, as its `return` depends on a traced value."""

    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(3)])

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x)) + 0.1
            if x.sum() > 5.0:
                return x * 0.5
        return x


def test_a_compiled_module_with_an_early_exit_infers_as_eager():
    """The scout's outputs are fake tensors where the trace's are functional ones under
    AOTAutograd; both are staged values (staged_if._same_kind)."""
    torch.manual_seed(0)
    model = EarlyExitStack().double()
    compiled = ag_torch.compile(model, backend='aot_eager')
    with torch.no_grad():
        for scale in (0.1, 10.0, 100.0):
            x = torch.linspace(-1.0, 1.0, 3, dtype=torch.float64) * scale
            assert torch.allclose(compiled(x), model(x)), scale


@pytest.mark.parametrize('scale', [0.1, 10.0, 100.0])
def test_a_compiled_module_with_an_early_exit_trains_as_eager(scale):
    """The body of the staged loop reads `x` through a closure; by the time torch runs it
    again for the backward, `x` holds a later tensor (torch_lifting._Substitute)."""
    torch.manual_seed(0)
    eager = EarlyExitStack().double()
    model = EarlyExitStack().double()
    model.load_state_dict(eager.state_dict())
    _grads_equal_eager(eager, model, torch.linspace(-1.0, 1.0, 3, dtype=torch.float64) * scale)


def rebinds_what_the_branch_read(x, w):
    x = x * w
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    x = torch.tanh(y)  # the branches read x; by the backward, x is this tensor
    return x


@pytest.mark.parametrize('sign', [1.0, -1.0])
def test_a_compiled_function_trains_when_a_variable_the_branch_read_is_rebound(sign):
    x = torch.tensor([0.5, -0.2, 0.3], dtype=torch.float64) * sign
    w = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    (eager,) = torch.autograd.grad(rebinds_what_the_branch_read(x, w).sum(), [w])
    compiled = ag_torch.compile(rebinds_what_the_branch_read, backend='aot_eager')
    (got,) = torch.autograd.grad(compiled(x, w).sum(), [w])
    assert torch.allclose(got, eager)


def scaled_tanh_loop(x, w):
    while x.sum() > 1:
        x = torch.tanh(x) * w
    return x


def _compiled_with_graphs(fn):
    """`fn` compiled with fullgraph, and the list of the forward graphs AOTAutograd makes."""
    backend, graphs = forward_graphs_backend()
    return ag_torch.compile(fn, fullgraph=True, backend=backend), graphs


def _conds(graph_module):
    return [node for node in graph_module.graph.nodes if node.target is torch.ops.higher_order.cond]


def nested_tanh_loop(x, w):
    if x.sum() > -100:  # the loop is traced in a cond branch, with grad mode off
        while x.sum() > 1:
            x = torch.tanh(x) * w
    return x


@pytest.mark.parametrize('fn', [scaled_tanh_loop, nested_tanh_loop])
def test_a_loop_compiled_under_no_grad_runs_without_the_zero_trip_guard(fn):
    # under no_grad no gradient can flow, and dynamo guards the grad mode: the call with it
    # on compiles again, with the guard. torch.export always keeps it.
    compiled, graphs = _compiled_with_graphs(fn)
    x, w = torch.full((3,), 3.0), torch.tensor(0.9)
    with torch.no_grad():
        assert torch.allclose(compiled(x, w), fn(x, w))
    assert not _conds(graphs[-1]) or fn is nested_tanh_loop
    for start in (0.1, 3.0):  # the loop runs zero times, then some times
        args = (torch.full((3,), start, requires_grad=True), torch.tensor(0.9, requires_grad=True))
        eager_args = tuple(a.detach().clone().requires_grad_() for a in args)
        got = torch.autograd.grad(compiled(*args).sum(), args, materialize_grads=True)
        expected = torch.autograd.grad(fn(*eager_args).sum(), eager_args,
                                       allow_unused=True, materialize_grads=True)
        assert all(torch.allclose(g, e) for g, e in zip(got, expected)), (start, got, expected)
    if fn is scaled_tanh_loop:
        assert len(graphs) == 2 and len(_conds(graphs[-1])) == 1
        assert len(_conds(ag_torch.export(fn, (x, w)).graph_module)) == 1


def test_a_loop_compiled_with_grad_mode_on_keeps_the_guard():
    # inputs that do not require grad do not show that no gradient flows: a parameter, or a
    # tensor in a cond branch, is traced so too
    compiled, graphs = _compiled_with_graphs(scaled_tanh_loop)
    compiled(torch.full((3,), 3.0), torch.tensor(0.9))
    assert len(_conds(graphs[-1])) == 1
