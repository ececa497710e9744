"""torch's non-strict export replaces `builtins.max` and `min` while it traces, with versions
that take two arguments or one iterable. Converted code keeps staging them itself: `max` of
three tensors, of a filtered generator and `zip` of staged values export as they run."""
import builtins
import colorsys

import pytest
import torch

import autograph
from autograph.backends import torch as ag_torch
from autograph.operators import py_builtins

COLOURS = [(0.3, 0.5, 0.2), (0.9, 0.1, 0.4), (0.2, 0.2, 0.2), (0.0, 0.0, 0.0), (0.1, 0.2, 0.9)]


def _tensors(values):
    return tuple(torch.tensor(v, dtype=torch.float64) for v in values)


def test_rgb_to_hsv_of_the_standard_library_exports_and_matches_python():
    program = ag_torch.export(colorsys.rgb_to_hsv, _tensors(COLOURS[0])).module()
    for colour in COLOURS:  # grey and black take the early return
        got = [float(v) for v in program(*_tensors(colour))]
        assert got == pytest.approx(colorsys.rgb_to_hsv(*colour), abs=1e-12), colour


def test_max_of_a_filtered_generator_and_min_of_three_export():
    def fn(x, y, z):
        top = max(v for v in x if v < 0.5)
        return top + min(y, z, y * 2)

    x = torch.tensor([0.1, 0.7, 0.3, 0.9], dtype=torch.float64)
    args = (x, torch.tensor(0.25, dtype=torch.float64), torch.tensor(-1.0, dtype=torch.float64))
    program = ag_torch.export(fn, args).module()
    assert float(program(*args)) == pytest.approx(fn(*args).item())
    other = (torch.tensor([0.45, 0.2, 0.6, 0.1], dtype=torch.float64),) + args[1:]
    assert float(program(*other)) == pytest.approx(fn(*other).item())


def test_export_still_replaces_the_builtin_while_it_traces():
    """The case the tests above cover: if torch stops replacing max, they test less."""
    seen = []

    def fn(x):
        seen.append(builtins.max is not py_builtins._MAX)
        return x + 1

    ag_torch.export(fn, (torch.ones(2),))
    assert seen and all(seen)


def test_a_replaced_builtin_stands_for_its_overload(monkeypatch):
    def stand_in(*args):
        raise AssertionError('the stand-in must not run')

    with monkeypatch.context() as patch:
        patch.setattr(builtins, 'max', stand_in)
        found = py_builtins.replaced_builtin(stand_in), py_builtins.replaced_builtin(print)
    assert found == (py_builtins.max_, None)
    assert py_builtins.replaced_builtin(builtins.max) is None


def test_a_partial_standing_in_for_max_gives_way_on_staged_values_only(monkeypatch):
    import functools

    import runtime as tf

    calls = []

    def stand_in(*args, real):
        calls.append(args)
        if any(isinstance(a, tf.Tensor) for a in args):
            raise AssertionError('the stand-in ran on staged values')
        return real(*args)

    def fn(a, b, c):
        return max(a, b, c)

    with monkeypatch.context() as patch:  # pytest itself calls max: only around the calls
        patch.setattr(builtins, 'max', functools.partial(stand_in, real=builtins.max))
        converted = autograph.convert(fn)(1, 5, 3)
        python_calls = list(calls)
        staged = tf.function(fn)(tf.constant(1), tf.constant(5), tf.constant(3))
    assert converted == 5 and python_calls == [(1, 5, 3)]  # Python values: the stand-in runs
    assert int(staged) == 5
