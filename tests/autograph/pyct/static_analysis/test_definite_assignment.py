"""Tests for definite_assignment: the names a block assigns on every path that ends normally."""

import textwrap

import gast
import pytest

import autograph
from autograph.pyct.static_analysis.definite_assignment import assigned_on_every_path


def assigned(source):
    return assigned_on_every_path(gast.parse(textwrap.dedent(source)).body)


@pytest.mark.parametrize('source, names', [
    ('x = 1', {'x'}),
    ('x, (y, *z) = v', {'x', 'y', 'z'}),
    ('a.b = 1\nc[0] = 2', set()),
    ('x += 1\ny: int = 2\nz: int', {'x', 'y'}),
    ('def f(): pass\nclass C: pass', {'f', 'C'}),
    ('import os.path\nfrom m import a as b', {'os', 'b'}),
    ('with open(p) as (f, g):\n    x = 1', {'f', 'g', 'x'}),
    ('if c:\n    x = 1\n    y = 1\nelse:\n    x = 2', {'x'}),
    ('if c:\n    x = 1', set()),
    ('if c:\n    x = 1\nelse:\n    raise ValueError', {'x'}),
    ('for i in r:\n    x = 1', set()),
    ('while c:\n    x = 1', set()),
    ('try:\n    x = 1\nexcept E:\n    pass', set()),
    ('x = 1\nreturn x\ny = 2', {'x'}),
])
def test_names_assigned_on_every_path(source, names):
    assert assigned(source) == names


def test_a_block_that_always_raises_assigns_every_name():
    assert assigned('x = 1\nraise ValueError') is None
    assert assigned('if c:\n    raise A\nelse:\n    raise B') is None


def both_branches(c):
    if c > 0:
        y = 1
    else:
        y = 2
    return y


def one_branch(c):
    if c > 0:
        z = 1
    return z


def test_the_converter_marks_a_name_every_branch_assigns():
    assert "y = ag__.Undefined('y', every_branch=True)" in autograph.to_code(both_branches)
    assert "z = ag__.Undefined('z')\n" in autograph.to_code(one_branch)
