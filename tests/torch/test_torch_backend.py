"""The PyTorch backend: plain Python on eager tensors, torch.cond / torch.while_loop when traced."""

import pytest
import torch

import autograph as ag
from autograph.backends import torch as ag_torch
from autograph.errors import UnsupportedByBackendError


def branchy(x, w):
    if x.sum() > 0:
        y = x * 2 + w
    else:
        y = x - w
    i = 0
    while i < x.abs().sum():
        y = y * 1.5 + w
        i += 1
    for r in x:
        y = y + r
    return y


_INPUTS = [torch.tensor([1.0, -0.5, 0.25]), torch.tensor([-1.0, 0.5, -2.0]),
           torch.tensor([0.0, 0.0, 0.0])]
_W = torch.tensor([0.5, -1.0, 2.0])


def _ops(graph_module):
    """The operations of a graph and of its subgraphs (branches and loop bodies)."""
    return [n.target for module in graph_module.modules()
            if isinstance(module, torch.fx.GraphModule)
            for n in module.graph.nodes if n.op == 'call_function']


def test_eager_tensors_run_plain_python():
    converted = ag.convert(branchy)
    for x in _INPUTS:
        assert torch.equal(converted(x, _W), branchy(x, _W))


def test_export_stages_if_while_and_for():
    program = ag_torch.export(branchy, (_INPUTS[0], _W))
    ops = _ops(program.graph_module)
    # the if; and each loop, which carries floats, under a cond that skips it when it would
    # run zero times (see docs/torch.md)
    assert ops.count(torch.ops.higher_order.cond) == 3
    assert ops.count(torch.ops.higher_order.while_loop) == 2
    for x in _INPUTS:  # each takes another path: if or else; 0, 2 or 4 iterations
        assert torch.allclose(program.module()(x, _W), branchy(x, _W))


def test_compile_fullgraph_has_one_graph_and_no_break():
    compiled = ag_torch.compile(branchy, backend='aot_eager')
    for x in _INPUTS:
        assert torch.allclose(compiled(x, _W), branchy(x, _W))
    explanation = torch._dynamo.explain(ag_torch.convert(branchy))(_INPUTS[0], _W)
    assert (explanation.graph_count, explanation.graph_break_count) == (1, 0)


def bisect_left(xs, target):
    lo, hi = 0, xs.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if xs[mid] < target:  # a tensor read at a traced index
            lo = mid + 1
        else:
            hi = mid
    return lo


def peak_and_neighbours(xs):
    i = torch.argmax(xs)
    return xs[i], xs[i - 1], xs[(i + 1) % xs.shape[0]]  # i - 1 may be -1: the last element


def row_entry(m, k):
    j = torch.argmin(m[k])
    return m[k, j] * 2


_SORTED = torch.tensor([0.5, 1.0, 1.0, 2.5, 4.0, 7.0])


@pytest.mark.parametrize('fn,args', [
    (bisect_left, (_SORTED, torch.tensor(2.0))), (bisect_left, (_SORTED, torch.tensor(9.0))),
    (bisect_left, (_SORTED, torch.tensor(-1.0))),
    (peak_and_neighbours, (torch.tensor([1.0, 5.0, 2.0]),)),
    (peak_and_neighbours, (torch.tensor([9.0, 5.0, 2.0]),)),
    (row_entry, (torch.tensor([[3.0, 1.0], [0.5, 4.0]]), torch.tensor(1)))])
def test_a_tensor_read_at_a_traced_index_compiles_and_exports(fn, args):
    # torch.compile(fullgraph=True) of the plain function fails on `xs[i]` ("Could not
    # extract specialized integer from data-dependent expression"); the converted code reads
    # it as a gather
    expected = fn(*args)
    torch._dynamo.reset()
    for got in (ag_torch.compile(fn, backend='aot_eager')(*args),
                ag_torch.export(fn, args).module()(*args)):
        got = got if isinstance(got, tuple) else (got,)
        want = expected if isinstance(expected, tuple) else (expected,)
        assert [float(g) for g in got] == [float(w) for w in want]


def test_the_entry_point_names_this_backend():
    from autograph.backends import registry

    assert ag_torch.BACKEND in registry.registered_backends()
    assert ag_torch.BACKEND.owned_modules == registry.SHIPPED_OWNED_MODULES[ag_torch.__name__]
    assert 'torch' in ag_torch.BACKEND.owned_modules


def test_strict_export_is_refused_saying_to_use_non_strict():
    class Branchy(torch.nn.Module):
        def forward(self, x, w):
            return branchy(x, w)

    for target in (branchy, Branchy()):
        with pytest.raises(UnsupportedByBackendError, match=r'(?s)strict=True.*'
                           r'nonstrict_trace.*Export with strict=False'):
            ag_torch.export(target, (_INPUTS[0], _W), strict=True)


def test_torch_strict_export_still_refuses_nonstrict_trace():
    # why strict export is refused: torch 2.13 cannot strictly export any nonstrict_trace
    # call; when this fails, torch takes them and strict export may be tried again
    @torch._dynamo.nonstrict_trace
    def double(x):
        return x * 2

    class Double(torch.nn.Module):
        def forward(self, x):
            return double(x) + 1

    with pytest.raises(TypeError, match="cannot create weak reference to 'TreeSpec'"):
        torch.export.export(Double(), (torch.ones(3),), strict=True)
