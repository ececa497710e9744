"""Python's numeric builtins and `math` functions of traced torch tensors (torch_math.py):
exported, each equals Python's function on the same numbers, with Python's kind of result."""

import builtins
import math

import pytest
import torch

from autograph.backends import torch as ag_torch
from autograph.backends import torch_math
from autograph.operators import comparisons
from autograph.operators import number_methods

# (function, inputs): each input a tuple of arguments, Python numbers; ints become int64
# tensors and floats float64 ones, so that results compare closely with Python's
CASES = [
    (math.sqrt, [(2.0,), (9,)]), (math.isqrt, [(0,), (15,), (16,), (10 ** 12 + 7,)]),
    (math.factorial, [(0,), (5,), (20,)]), (math.exp, [(0.5,)]), (math.log, [(3.0,), (8, 2)]),
    (math.log2, [(8.0,)]), (math.log10, [(1000,)]), (math.log1p, [(0.25,)]),
    (math.expm1, [(0.25,)]), (math.pow, [(2, 10), (2.0, 0.5)]),
    (math.floor, [(-2.5,), (2.5,), (7,)]), (math.ceil, [(-2.5,), (2.5,)]),
    (math.trunc, [(-2.5,), (2.7,)]), (math.fabs, [(-3,), (-2.5,)]),
    (math.gcd, [(12, 18), (-4, 6), (0, 5)]), (math.radians, [(180.0,)]),
    (math.degrees, [(math.pi,)]), (math.sin, [(1.0,)]), (math.cos, [(1.0,)]),
    (math.tan, [(1.0,)]), (math.asin, [(0.5,)]), (math.acos, [(0.5,)]), (math.atan, [(2.0,)]),
    (math.atan2, [(1.0, -1.0)]), (math.hypot, [(3.0, 4.0)]), (math.sinh, [(1.0,)]),
    (math.cosh, [(1.0,)]), (math.tanh, [(1.0,)]),
    (builtins.round, [(2.5,), (3.5,), (-2.5,), (2.675, 2), (1234, -2), (7,)]),
    (builtins.divmod, [(7, 3), (-7, 3), (7.5, 2.0)]), (builtins.pow, [(3, 4), (2.0, -1)]),
    (builtins.bool, [(0,), (3,), (0.0,)]),
    (number_methods.is_integer, [(2.0,), (2.5,), (-3.0,), (math.inf,), (math.nan,)]),
    # `x is True`: the second argument is the constant the caller below writes
    (comparisons.identical, [(True, True), (False, True), (1, True), (1.0, True)]),
]

# how user code calls a method of Python's numbers, or writes a test, that a table above keys
# by its function
CALLERS = {number_methods.is_integer: lambda x: x.is_integer(),
           comparisons.identical: lambda x, constant: x is True}

_DTYPES = {bool: torch.bool, int: torch.int64, float: torch.float64}


def _as_tensor(value):
    return torch.tensor(value, dtype=_DTYPES[type(value)])


def _as_python(value, like):
    if isinstance(like, tuple):
        return tuple(_as_python(v, l) for v, l in zip(value, like))
    if type(value) is bool:  # Python's answer, known from the dtype (a number `is True`)
        return value
    assert isinstance(value, torch.Tensor), value
    assert value.dtype.is_floating_point == (type(like) is float), (value.dtype, like)
    return type(like)(value.item())


def test_every_staged_math_function_is_checked():
    assert {fn for fn, _ in CASES} == set(torch_math.FUNCTIONS)


@pytest.mark.parametrize('fn,inputs', CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_exported_equals_python(fn, inputs):
    user = CALLERS.get(fn, fn)
    for args in inputs:
        def call(*xs):
            return user(*xs)
        program = ag_torch.export(call, tuple(_as_tensor(a) for a in args))
        got = _as_python(program.module()(*[_as_tensor(a) for a in args]), fn(*args))
        expected = fn(*args)
        if type(expected) is float:
            assert math.isclose(got, expected, rel_tol=1e-12), (fn, args, got)
        else:
            assert got == expected, (fn, args, got)


@pytest.mark.parametrize('fn', [math.gcd, math.isqrt, math.factorial])
def test_integer_functions_of_a_float_raise_pythons_type_error(fn):
    def call(x):
        return fn(x)
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        ag_torch.export(call, (torch.tensor(2.0),))


def modular_power(b, e, m):
    return pow(b, e, m)


def test_pow_with_a_traced_exponent_and_modulus_is_exact():
    example = (torch.tensor(3), torch.tensor(200), torch.tensor(1000007))
    program = ag_torch.export(modular_power, example).module()
    for b, e, m in [(3, 200, 1000007), (2, 0, 5), (7, 1, 13), (5, 117, 19), (10, 62, 97)]:
        assert program(torch.tensor(b), torch.tensor(e), torch.tensor(m)).item() == pow(b, e, m)
    with pytest.raises(ValueError, match='modular inverse'):
        program(torch.tensor(3), torch.tensor(-1), torch.tensor(7))


def checked_factorial(number):
    # TheAlgorithms' factorial: the ValueError for a float runs before the range of it
    if number != int(number):
        raise ValueError('factorial() only accepts integral values')
    value = 1
    for i in range(1, number + 1):
        value *= i
    return value


def test_range_of_a_float_raises_pythons_type_error_when_it_runs():
    # raised while exporting, it preempted the ValueError staged before it
    program = ag_torch.export(checked_factorial, (torch.tensor(2.5),)).module()
    with pytest.raises(ValueError, match='only accepts integral values'):
        program(torch.tensor(2.5))
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        program(torch.tensor(4.0))  # as Python's range(1, 5.0)
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        checked_factorial(4.0)
