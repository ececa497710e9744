"""The differential fuzzer under torch.export: generated programs, converted and exported
with torch tensors, must agree with plain Python on every input (tests/torch/fuzz_way.py).

Two hundred programs from a fixed seed, statements nested two deep (each staged `if`, `and`
and `or` is a torch.cond traced apart, so deep nesting costs seconds a program);
`python -m tests.fuzz --backend torch --programs N --seed S` runs more.
"""

import collections

import pytest
import torch  # noqa: F401 - the programs run on torch (tests/torch/fuzz_way.py)

from tests.fuzz import harness
from tests.torch import fuzz_way

PROGRAMS = 200
CHUNK = 100
SEED = 'torch'
CI_SIZE = dict(max_stmts=6, max_locals=4, max_helpers=1, max_depth=2)


@pytest.mark.parametrize('chunk', range(PROGRAMS // CHUNK))
def test_generated_programs_agree_when_exported(chunk):
    stats = collections.Counter()
    seeds = ['{}:{}'.format(SEED, i) for i in range(chunk * CHUNK, (chunk + 1) * CHUNK)]
    problems = harness.disagreements(seeds, CI_SIZE, fuzz_way.check_program, stats)
    assert not problems, '{} of {} programs disagree:\n\n{}'.format(
        len(problems), CHUNK, '\n'.join(problems[:3]))
    assert stats['programs'] == CHUNK
    assert stats['exported'] >= 1.5 * CHUNK, stats  # most programs really run exported
