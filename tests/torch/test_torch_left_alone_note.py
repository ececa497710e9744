"""A standard-library function that autograph leaves unconverted and that fails on traced
torch tensors says so (see tests/autograph/impl/test_left_alone_note.py)."""
import colorsys

import pytest
import torch

from autograph.backends import torch as ag_torch
from tests.autograph.impl.test_left_alone_note import says_colorsys_v


def test_torch_names_the_unconverted_stdlib_helper():
    args = tuple(torch.tensor(v) for v in (0.3, 0.5, 0.5))
    with pytest.raises(Exception) as caught:
        ag_torch.export(colorsys.hls_to_rgb, args)
    assert says_colorsys_v(caught.value)
