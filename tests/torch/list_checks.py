"""What the torch list tests share: comparing an exported program's result with Python's
list, and its error with Python's."""

import pytest
import torch


def same(got, expected):
    """Whether an exported program's `got` (tensors) holds Python's `expected` (numbers,
    lists of numbers or of tuples of numbers, tuples of those)."""
    if isinstance(expected, tuple) and not isinstance(got, torch.Tensor):
        return len(got) == len(expected) and all(same(g, e) for g, e in zip(got, expected))
    got = torch.as_tensor(got).tolist()
    if isinstance(expected, list) and expected and isinstance(expected[0], tuple):
        expected = [list(e) for e in expected]  # rows: a tensor of rows holds them
    return got == expected


def tensors(args):
    return [torch.tensor(a) for a in args]


def raises_as_python(error, program, fn, *args):
    """Asserts that the exported `program` raises what `fn` raises on the same numbers."""
    with pytest.raises(error) as python:
        fn(*args)
    with pytest.raises(error) as staged:
        program.module()(*tensors(args))
    assert str(staged.value) == str(python.value)
