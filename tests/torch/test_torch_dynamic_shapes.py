"""Dynamic shapes: a program exported with `dynamic_shapes` (named after the function's own
parameters) or compiled with `dynamic=True` runs inputs of other lengths as plain Python does.
A size is then torch's symbolic int (`xs.shape[0]` is a SymInt), which staged control flow
carries like a Python int: a loop over `zip` of two tensors, and a size counted down in a
loop, stage."""
import pytest
import torch

from autograph.backends import torch as ag_torch


def count_positive(xs):
    n = 0
    for x in xs:
        if x > 0:
            n += 1
    return n


def count_greater_pairs(xs, ys):
    n = 0
    for x, y in zip(xs, ys):
        if x > y:
            n += 1
    return n


def index_of_first_negative(xs):
    i = 0
    while i < xs.shape[0]:
        if xs[i] < 0:
            break
        i += 1
    return i


def trailing_non_negatives(xs):
    n = xs.shape[0]
    count = 0
    while n > 0:
        if xs[n - 1] < 0:
            break
        n -= 1
        count += 1
    return n, count


FUNCTIONS = [count_positive, count_greater_pairs, index_of_first_negative,
             trailing_non_negatives]
VALUES = [1.0, -1.0, 2.0, 0.5, -3.0, 4.0]


def _args(fn, length):
    xs = torch.tensor(VALUES[:length])
    return (xs,) if fn is not count_greater_pairs else (xs, torch.tensor(VALUES[::-1][:length]))


def _as_list(value):
    values = value if isinstance(value, tuple) else (value,)
    return [int(v) for v in values]


@pytest.mark.parametrize('fn', FUNCTIONS, ids=lambda f: f.__name__)
def test_exported_with_dynamic_shapes_runs_every_length(fn):
    length = torch.export.Dim('length', min=2, max=6)
    shapes = {name: {0: length} for name in ('xs', 'ys')[:len(_args(fn, 4))]}
    program = ag_torch.export(fn, _args(fn, 4), dynamic_shapes=shapes).module()
    for n in range(2, 7):
        assert _as_list(program(*_args(fn, n))) == _as_list(fn(*_args(fn, n))), n


@pytest.mark.parametrize('fn', FUNCTIONS, ids=lambda f: f.__name__)
def test_compiled_with_dynamic_shapes_runs_every_length(fn):
    compiled = ag_torch.compile(fn, backend='aot_eager', dynamic=True)
    for n in range(2, 7):
        assert _as_list(compiled(*_args(fn, n))) == _as_list(fn(*_args(fn, n))), n
