"""The record types and value helpers of the op-case tables (op_cases, op_cases_new)."""
import collections

import numpy as np

Case = collections.namedtuple("Case", "id fn args kwargs expected relax")
ErrorCase = collections.namedtuple("ErrorCase", "id fn args kwargs error match")


def i32(v):
    return np.array(v, dtype=np.int32)


def i64(v):
    return np.array(v, dtype=np.int64)


def f32(v):
    return np.array(v, dtype=np.float32)


def f64(v):
    return np.array(v, dtype=np.float64)


def b(v):
    return np.array(v, dtype=bool)


def s(v):
    """A string array: TensorFlow strings are bytes."""
    return np.array([x.encode() for x in v], dtype=object)


def u8(v):
    return np.array(v, dtype=np.uint8)


def case(id, fn, args, expected, relax=True, **kwargs):  # noqa: A002
    return Case(id, fn, tuple(args), kwargs, expected, relax)
