"""A `raise` in a staged branch whose message holds staged values (`raise ValueError(f"{n} is
negative")`), and a dict of numbers read at a traced key that is not there: the program
raises the user's exception, its message made from the run-time values
(`torch.ops.autograph.raise_unless`). Before, the raise happened while torch traced, at
export or compile time, whatever the values."""

import pytest
import torch

from autograph.backends import torch as ag_torch

KNOWN = {1: 10, 2: 20, 5: 50}


def checked_double(n):
    if n < 0:
        raise ValueError(f'{n} is negative')
    return n * 2


def known_value(k):
    return KNOWN[k] + 1


def _programs(fn, example):
    return (ag_torch.export(fn, (example,)).module(),
            ag_torch.compile(fn, backend='aot_eager'))


@pytest.mark.parametrize('fn, good, bad, error', [
    (checked_double, 3, -4, ValueError('-4 is negative')),
    (known_value, 5, 3, KeyError(3)),
])
def test_the_program_raises_the_users_exception_from_run_time_values(fn, good, bad, error):
    for program in _programs(fn, torch.tensor(good)):
        assert program(torch.tensor(good)).item() == fn(good)
        with pytest.raises(type(error)) as info:
            program(torch.tensor(bad))
        assert info.value.args == error.args
