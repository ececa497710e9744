"""User-facing errors name the user's file, line and source text, not generated code."""

import traceback
import warnings

import pytest

import autograph as ag
from autograph import errors
from autograph.impl import error_mapping
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import registered
from tests.autograph.fake_backend import unwrap

HERE = __file__


def undefined_in_else(x):
    if x > 0:
        y = 1
    return y


def dtype_changes(n):
    x = 0
    i = 0
    while i < n:
        x = x / 2
        i += 1
    return x


def staged_break(x):
    for i in range(3):
        if x > i:
            break
    return x


def helper(i):
    if i == 2:
        raise ValueError('boom %d' % i)
    return i


def deep(x):
    total = 0
    if x > 0:
        for i in range(x):
            total += helper(i)
    return total


def generator(n):
    for i in range(n):
        yield i


def _line(fn, offset):
    return fn.__code__.co_firstlineno + offset


def test_undefined_branch_variable():
    with registered():
        assert unwrap(ag.convert(undefined_in_else)(Sym(1))) == 1
        with pytest.raises(UnboundLocalError) as info:
            ag.convert(undefined_in_else)(Sym(0))
    # Python's own message, then the user's line where the variable is read.
    assert str(info.value).startswith(str(_plain_error(undefined_in_else, 0)))
    assert ('File "%s", line %d' % (HERE, _line(undefined_in_else, 3))) in str(info.value)


def test_loop_variable_changing_dtype():
    with registered():
        with pytest.raises(errors.LoopVariableError) as info:
            ag.convert(dtype_changes)(Sym(3))
    assert str(info.value) == (
        "'x' has type int32 before the loop, but type float32 after one iteration: a staged "
        "while loop must keep the dtype, shape and structure of its loop variables. Give it "
        "the same dtype in every iteration: cast it (tf.cast, .astype, Tensor.to). Or initialize it "
        "before the loop with the type the loop gives it.\n"
        '  File "%s", line %d, in dtype_changes\n'
        '    while i < n:' % (HERE, _line(dtype_changes, 3)))


def test_tensor_dependent_break_in_python_loop_goes_on_staged():
    # Once a StagingError: the rest of the range is now a staged loop.
    with registered() as backend:
        for x in range(-1, 4):
            assert unwrap(ag.convert(staged_break)(Sym(x))) == staged_break(x)
        assert 'while_loop' in backend.calls


def test_error_is_annotated_once_through_nested_converted_calls():
    def outer(x):
        return dtype_changes(x)
    with registered():
        with pytest.raises(errors.LoopVariableError) as info:
            ag.convert(outer)(Sym(1))
    assert str(info.value).count('  File "') == 1
    assert info.value.ag_location[1] == _line(dtype_changes, 3)


def test_exception_deep_inside_converted_code_points_at_user_lines():
    with pytest.raises(ValueError) as info:
        ag.convert(deep)(4)
    assert str(info.value) == 'boom 2'  # Python errors keep their message
    frames = [(f.filename, f.lineno, f.name, f.line)
              for f in traceback.extract_tb(info.value.__traceback__)
              if f.filename == HERE]
    assert frames[-1] == (HERE, _line(helper, 2), 'helper', "raise ValueError('boom %d' % i)")
    assert (HERE, _line(deep, 4), 'deep', 'total += helper(i)') in frames
    # No frame of converted code shows generated helper names or generated source.
    assert {name for _, _, name, _ in frames} <= {'helper', 'deep', 'test_exception_deep_'
                                                  'inside_converted_code_points_at_user_lines'}


def test_unconvertible_source_warns_with_function_file_and_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        converted = ag.convert(generator)
    assert converted is generator
    assert [str(w.message) for w in caught] == [
        'AutoGraph could not convert generator (defined at %s:%d): a generator function '
        '(yield) at %s:%d is not supported. It runs unconverted, as plain Python. To silence '
        'this, decorate it with @autograph.do_not_convert; to make it an error, pass '
        'strict=True or set AUTOGRAPH_STRICT=1.'
        % (HERE, _line(generator, 0), HERE, _line(generator, 2))]
    assert list(converted(3)) == [0, 1, 2]


def test_format_location():
    assert error_mapping.format_location('f.py', 3, 'f', 'if c:') == (
        '  File "f.py", line 3, in f\n    if c:')
    assert error_mapping.format_location('f.py', 3, 'f', '') == '  File "f.py", line 3, in f'


def assigned_only_in_loop(n):
    i = 0
    while i < n:
        z = i * 2
        i += 1
    return z


def test_variable_assigned_only_in_a_staged_loop_points_at_the_loop():
    assert assigned_only_in_loop(2) == 2
    with registered():
        assert unwrap(ag.convert(assigned_only_in_loop)(Sym(3))) == 4
        with pytest.raises(UnboundLocalError) as info:
            ag.convert(assigned_only_in_loop)(Sym(0))
    assert str(info.value).startswith(str(_plain_error(assigned_only_in_loop, 0)))
    assert ('File "%s", line %d' % (HERE, _line(assigned_only_in_loop, 5))) in str(info.value)


def _plain_error(fn, arg):
    try:
        fn(arg)
    except UnboundLocalError as e:
        return e
    raise AssertionError('expected UnboundLocalError')


def outer_with_helpers(x, n):
    """Docstring kept."""
    def scale(v):
        return v * 2
    total = 0
    for i in range(n):
        if x > i:
            total += scale(i)
    return total + (lambda k: k + 1)(x)


def _codes(code):
    yield code
    for c in code.co_consts:
        if hasattr(c, 'co_consts'):
            yield from _codes(c)


def test_converted_code_objects_are_marked_with_the_user_function_they_belong_to():
    converted = ag.convert(outer_with_helpers)
    assert converted(3, 4) == outer_with_helpers(3, 4) == 2 * (0 + 1 + 2) + 4
    assert converted.__doc__ == 'Docstring kept.'
    labels = {(c.co_name, error_mapping.label_of(c)) for c in _codes(converted.__code__)}
    assert ('outer_with_helpers', 'outer_with_helpers') in labels
    assert ('scale', 'scale') in labels  # a nested user function keeps its own name
    assert ('<lambda>', 'outer_with_helpers') in labels  # a lambda belongs to its function
    assert len(list(_codes(converted.__code__))) > 4  # the loop's and the if's helpers too
    assert all(label is not None for _, label in labels)
    assert all(error_mapping.is_generated(c) for c in _codes(converted.__code__))
    for plain in _codes(outer_with_helpers.__code__):
        assert error_mapping.label_of(plain) is None and not error_mapping.is_generated(plain)
    assert not error_mapping.is_generated((lambda: None).__code__)
    assert not error_mapping.is_generated(compile('', 'empty', 'exec'))
