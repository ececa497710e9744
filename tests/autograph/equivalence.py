"""Helpers for tests of converted code with Python values: it must act as the plain code."""
import pytest

import autograph as ag


def assert_raises_as_plain(fn, args, error):
    """fn(*args), plain and converted, both raise `error` with the same arguments."""
    with pytest.raises(error) as plain:
        fn(*args)
    with pytest.raises(error) as converted:
        ag.convert(fn)(*args)
    assert converted.value.args == plain.value.args
