"""Tests for runtime.dtypes."""
import numpy as np
import pytest

from runtime import dtypes


def test_names_and_numpy_types():
    assert dtypes.float32.as_numpy_dtype is np.float32
    assert dtypes.int64.np_dtype == np.dtype(np.int64)
    assert dtypes.string.name == "string"
    assert repr(dtypes.bool) == "tf.bool" and str(dtypes.uint8) == "uint8"


def test_as_dtype_accepts_names_types_and_numpy():
    assert dtypes.as_dtype("float64") is dtypes.float64
    assert dtypes.as_dtype(np.int32) is dtypes.int32
    assert dtypes.as_dtype(np.dtype("uint8")) is dtypes.uint8
    assert dtypes.as_dtype(int) is dtypes.int32
    assert dtypes.as_dtype(float) is dtypes.float32
    assert dtypes.as_dtype(bool) is dtypes.bool
    assert dtypes.as_dtype(str) is dtypes.string
    assert dtypes.from_numpy(np.dtype("<U3")) is dtypes.string


def test_flags():
    assert dtypes.float32.is_floating and not dtypes.float32.is_integer
    assert dtypes.uint8.is_integer and dtypes.uint8.is_unsigned
    assert dtypes.bool.is_bool and not dtypes.bool.is_numeric
    assert dtypes.int32.max == 2**31 - 1 and dtypes.int32.min == -2**31


def test_bad_dtypes_raise_type_error():
    with pytest.raises(TypeError, match="Expected a dtype name such as 'float32', found 'flt'"):
        dtypes.as_dtype("flt")
    with pytest.raises(TypeError, match="complex128"):
        dtypes.as_dtype(np.complex128)
