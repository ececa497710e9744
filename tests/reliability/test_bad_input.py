"""The catalogue of user mistakes: each raises (or warns) with a message that names the user's
code location and says how to fix it."""

import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime as tf
from runtime.function import RetracingWarning

HERE = os.path.abspath(__file__)


def _line_of(fn, text):
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _raise(call):
    with pytest.raises(Exception) as info:
        call()
    return info.value


def test_tensor_used_as_bool_in_unconverted_code():
    @tf.function(autograph=False)
    def fn(x):
        if x > 0:
            return x
        return -x

    err = _raise(lambda: fn(tf.constant(1)))
    assert isinstance(err, TypeError)
    assert "as a Python bool is not allowed" in str(err)
    assert "tf.cond" in str(err)


def test_tensor_used_as_bool_names_the_line():
    @tf.function(autograph=False)
    def fn(x):
        if x > 0:
            return x
        return -x

    err = _raise(lambda: fn(tf.constant(1)))
    assert "{}:{}".format(HERE, _line_of(fn, "if x > 0")) in str(err).replace('", line ', ":")


def test_loop_variable_whose_dtype_changes():
    def fn(x):
        v = x * 1.5
        for _ in tf.range(x):
            v = x  # a float tensor becomes an int tensor: never back from a float to an int
        return v

    err = _raise(lambda: tf.function(fn)(tf.constant(3)))
    assert isinstance(err, ag.StagingError) and isinstance(err, TypeError)
    assert str(err).startswith("'v' has type float64 before the loop, but type int32 after one "
                               "iteration")
    assert "Give it the same dtype in every iteration: cast it (tf.cast, .astype, Tensor.to)." in str(err)
    # The location is the staged loop statement, in the function's plain name (as tracebacks).
    assert 'File "{}", line {}, in fn\n    for _ in tf.range(x):'.format(
        HERE, _line_of(fn, "for _ in tf.range(x)")) in str(err)


def test_variable_defined_on_one_side_of_a_branch():
    def fn(x):
        if x > 0:
            y = 1
        return y

    # Staged, it works where plain Python works, and fails where plain Python fails: at run
    # time, with Python's UnboundLocalError naming the variable and the line that reads it.
    assert tf.function(fn)(tf.constant(3)).numpy() == 1
    err = _raise(lambda: tf.function(fn)(tf.constant(-3)))
    assert type(err) is UnboundLocalError
    assert "local variable 'y'" in str(err)
    assert 'File "{}", line {}'.format(HERE, _line_of(fn, "return y")) in str(err)


def test_del_in_a_staged_branch_is_a_clear_error():
    def fn(c):
        x = 1
        if c > 0:
            y = 2
        else:
            del x
            y = 3
        return y

    assert fn(-1) == 3 and fn(1) == 2
    # staged, a clear error naming the variable and the user's if, not a NameError from the
    # generated code
    err = _raise(lambda: tf.function(fn)(tf.constant(1)))
    assert isinstance(err, ag.StagingError)
    assert str(err).startswith("'x' is deleted (`del`) in a staged if statement")
    assert 'File "{}", line {}'.format(HERE, _line_of(fn, "if c > 0:")) in str(err)


def test_del_and_rebind_in_a_staged_loop_body_stages():
    def fn(n):
        x = 0
        i = 0
        while i < n:
            del x
            x = i * 2
            i += 1
        return x

    assert fn(3) == 4
    assert tf.function(fn)(tf.constant(3)).numpy() == 4


def test_return_inside_staged_loop_with_undefined_value():
    def fn(x):
        for i in tf.range(x):
            if i > 2:
                return i

    assert fn(2) is None and fn(5) == 3
    err = _raise(lambda: tf.function(fn)(tf.constant(5)))
    assert isinstance(err, ag.StagingError)
    assert str(err).startswith(
        "fn returns a value on some paths and ends without a return statement (returning "
        "None) on others, and which one happens depends on a staged condition")
    assert "return a value of the same type on every path" in str(err)
    assert "add a return statement with a value at the end of fn" in str(err)
    # The location is where the function may fall off its end: its last statement.
    assert str(err).endswith('File "{}", line {}, in fn\n    for i in tf.range(x):'.format(
        HERE, _line_of(fn, "for i in tf.range(x)")))


def test_python_loop_whose_condition_becomes_a_tensor_goes_on_staged():
    # Once a StagingError ("initialize the loop variables with tf.constant"); now the loop
    # continues as a staged while_loop from the state it reached.
    def fn(x):
        n = 0
        while n < 3:
            n = n + x
        return n

    for x in (1, 2, 5):
        assert tf.function(fn)(tf.constant(x)).numpy() == fn(x)


def test_generator_runs_unconverted_with_one_warning():
    def gen(x):
        yield x

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        converted = ag.convert(gen)
        assert list(converted(3)) == [3]
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1
    line = _line_of(gen, "def gen")
    assert messages[0].startswith("AutoGraph could not convert {} (defined at {}:{}): a "
                                  "generator function (yield)".format(gen.__qualname__, HERE,
                                                                      line))
    assert "do_not_convert" in messages[0]


def test_source_that_cannot_be_found():
    fn = eval("lambda x: x + 1")  # noqa: S307 - a function without source on purpose
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert ag.convert(fn)(2) == 3
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith("AutoGraph could not convert <lambda> (defined at <string>:1): "
                              "expected the source code of <lambda>, found none")
    assert "define the function in a file" in message


def test_syntax_error_in_the_dumped_file(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("def f(x):\n    if x >\n        return 1\n")
    proc = subprocess.run([sys.executable, "-m", "autograph", "dump", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert proc.stderr.startswith("autograph dump: error: {} is not valid Python".format(path))
    assert "SyntaxError: invalid syntax (broken.py, line 2)" in proc.stderr


def test_module_that_raises_on_import(tmp_path):
    path = tmp_path / "raising.py"
    path.write_text("def f(x):\n    return x\n\nraise RuntimeError('boom at import')\n")
    proc = subprocess.run([sys.executable, "-m", "autograph", "dump", str(path)],
                          capture_output=True, text=True, timeout=60)
    out = proc.stderr + proc.stdout
    # The dump reads source without importing it, or reports the import error; never a crash
    # with a bare traceback and exit code 0.
    if proc.returncode == 0:
        assert "def tf__f" in out
    else:
        assert "boom at import" in out and "Traceback" not in out


def test_non_callable_passed_to_convert():
    err = _raise(lambda: ag.convert(3))
    assert isinstance(err, TypeError)
    assert re.search(r"expected a callable.*found int: 3", str(err))
    assert "convert takes a function" in str(err)


def test_recursion_that_depends_on_a_staged_condition():
    def fact(n):
        if n <= 1:
            return 1
        return n * fact(n - 1)

    assert fact(5) == 120
    err = _raise(lambda: tf.function(fact)(tf.constant(5)))
    assert isinstance(err, ag.StagingError)
    assert str(err).startswith("{} (defined at {}:{}) called itself more than 50 calls deep "
                               "with a staged argument".format(
                                   fact.__qualname__, HERE, _line_of(fact, "def fact")))
    assert "Use a loop" in str(err) and "make the recursion depth a Python value" in str(err)
    assert str(err).endswith('File "{}", line {}, in fact\n    return n * fact(n - 1)'.format(
        HERE, _line_of(fact, "return n * fact")))
    # A Python recursion depth still traces.
    assert tf.function(fact)(6).numpy() == 720


def test_variable_assigned_only_inside_a_staged_while_loop():
    def f(n):
        i = 0
        while i < n:
            z = i * 2
            i += 1
        return z

    # As in TensorFlow, the body gives z its type; a loop of no iteration leaves z unbound,
    # and reading it raises UnboundLocalError when the staged code runs, as in Python.
    assert tf.function(f)(tf.constant(3)).numpy() == 4
    err = _raise(lambda: tf.function(f)(tf.constant(0)))
    assert type(err) is UnboundLocalError
    assert "local variable 'z'" in str(err)
    assert 'File "{}", line {}'.format(HERE, _line_of(f, "return z")) in str(err)


_ONE_SIDED = "def fn(x):\n    if x > 0:\n        y = 1\n    return y\n"


def _load_file(path, source):
    import importlib.util
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_identical_functions_in_two_files_name_their_own_file(tmp_path):
    # Their code objects compare equal (equality ignores the file name).
    first = _load_file(tmp_path / "first_copy.py", _ONE_SIDED)
    second = _load_file(tmp_path / "second_copy.py", _ONE_SIDED)
    assert first.fn.__code__ == second.fn.__code__
    for module in (first, second):
        err = _raise(lambda: tf.function(module.fn)(tf.constant(-3)))
        assert type(err) is UnboundLocalError
        assert 'File "{}", line 4'.format(module.__file__) in str(err)
        assert ag.convert(module.fn).__code__.co_filename == module.__file__


def test_failed_conversion_does_not_block_an_identical_notebook_cell():
    import linecache
    source = "def cell_fn(x):\n    while x > 10:\n        x -= 3\n    return x\n"
    namespace = {}
    exec(compile(source, "<cell-without-source>", "exec"), namespace)  # noqa: S102
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        unconverted = ag.convert(namespace["cell_fn"])
    assert not getattr(unconverted, "__ag_converted__", False)
    assert "found none" in str(caught[0].message)
    # As a notebook does: the next cell's source is registered in linecache.
    filename = "<cell-with-source>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102
        assert namespace["cell_fn"].__code__ == unconverted.__code__
        converted = ag.convert(namespace["cell_fn"], strict=True)
        assert getattr(converted, "__ag_converted__", False)
        assert int(tf.function(namespace["cell_fn"])(tf.constant(20)).numpy()) == 8
    finally:
        linecache.cache.pop(filename, None)


@pytest.mark.parametrize("value", [10**30, 2**63, -2**63 - 1, [1, 2**63], [-1, 2**64]],
                         ids=["10**30", "2**63", "-2**63-1", "list_2**63", "list_2**64"])
def test_integer_beyond_int64_is_refused(value):
    err = _raise(lambda: tf.constant(value))
    assert isinstance(err, ValueError)
    assert str(err).startswith("Can't convert Python sequence with out-of-range integer to "
                               "Tensor: ")
    assert "does not fit in int64. Pass it as a float" in str(err)


def test_int64_bounds_still_convert():
    assert tf.constant(2**63 - 1).dtype is tf.int64
    assert tf.constant(-2**63).numpy() == -2**63
    assert tf.constant(['a', b'b']).dtype is tf.string
    # A sequence with a float holds big ints as floats (TensorFlow samples a float first).
    assert tf.constant([1.5, 2**70]).dtype is tf.float32


def test_traced_result_beyond_int64_is_refused():
    add = tf.function(lambda a, b: a + b)
    err = _raise(lambda: add(10**30, 1))
    assert isinstance(err, TypeError)
    assert "returned a value of type int (1000000000000000000000000000001)" in str(err)
    assert "out-of-range integer" in str(err)


def test_mixed_types_are_refused():
    err = _raise(lambda: tf.constant([1, 'a']))
    assert isinstance(err, ValueError)
    assert str(err) == ("Can't convert Python sequence with mixed types to Tensor: [1, 'a'] "
                        "holds int, str. Make every item a number, or every item a string.")


def test_object_array_of_numbers_is_refused():
    import numpy as np
    err = _raise(lambda: tf.constant(np.array([1, 2], dtype=object)))
    assert isinstance(err, ValueError)
    assert str(err).startswith("Failed to convert a NumPy array to a Tensor (Unsupported "
                               "object type int). Give the array a numeric dtype")


def test_new_tf_function_in_a_loop_warns_as_tensorflow():
    def step(x):
        return x + 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(4):
            tf.function(step)(tf.constant(i))
        assert not caught
        tf.function(step)(tf.constant(4))  # the warning's line
    line = _line_of(test_new_tf_function_in_a_loop_warns_as_tensorflow, "# the warning's line")
    assert len(caught) == 1 and issubclass(caught[0].category, RetracingWarning)
    assert (caught[0].filename, caught[0].lineno) == (HERE, line)
    assert str(caught[0].message).startswith(
        "5 out of the last 5 calls to {!r} triggered tf.function retracing. Tracing is "
        "expensive and the excessive number of tracings could be due to (1) creating "
        "@tf.function repeatedly in a loop".format(step))
    assert "For (1), please define your @tf.function outside of the loop." in str(
        caught[0].message)


def test_one_tf_function_called_often_does_not_warn():
    def step(x):
        return x + 1

    traced = tf.function(step)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(20):
            traced(tf.constant(i))
        for i in range(3):
            traced(tf.zeros([i + 1]))  # three new shapes: below the per-function threshold
        tf.function(step)(tf.constant(1.5))  # a second object, but most calls did not trace
    assert not caught


def test_staged_assert_shows_the_tensor_value_and_the_line():
    def fn(x):
        assert x > 5, ("x too small:", x)
        return x

    err = _raise(lambda: tf.function(fn)(tf.constant(1)))
    assert isinstance(err, tf.errors.InvalidArgumentError)
    assert "x too small: 1" in str(err) and "<tf.Tensor" not in str(err)
    assert str(err).endswith('File "{}", line {}, in fn\n    assert x > 5, ("x too small:", x)'
                             .format(HERE, _line_of(fn, "assert x > 5")))


def test_stacking_a_list_of_different_shapes_names_the_line():
    def fn(n):
        out = []
        for i in tf.range(n):
            out.append(tf.zeros([i]))
        return tf.stack(out)

    err = _raise(lambda: tf.function(fn)(tf.constant(3)))
    assert isinstance(err, tf.errors.InvalidArgumentError)
    assert "Cannot stack a TensorArray whose elements have different shapes: [(0,), (1,), " \
           "(2,)]." in str(err)
    assert str(err).endswith('File "{}", line {}, in fn\n    return tf.stack(out)'.format(
        HERE, _line_of(fn, "return tf.stack(out)")))


def test_range_over_an_unknown_dimension_says_how_to_stage_it():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
    def fn(x):
        s = 0
        for i in range(x.shape[0]):
            s += x[i]
        return s

    err = _raise(lambda: fn(tf.constant([1, 2])))
    assert isinstance(err, TypeError) and isinstance(err, ag.StagingError)
    assert str(err).startswith("range() got None where an integer was expected.")
    assert "tf.range(tf.shape(x)[0])" in str(err)
    assert str(err).endswith('File "{}", line {}, in fn\n    for i in range(x.shape[0]):'.format(
        HERE, _line_of(fn.python_function, "for i in range(x.shape[0])")))


def test_unknown_keyword_is_reported_as_unknown():
    @tf.function
    def fn(x, y=1):
        return x + y

    err = _raise(lambda: fn(z=2))
    assert isinstance(err, TypeError)
    assert str(err) == "fn(x, y=1): got an unexpected keyword argument 'z'."


def test_numpy_of_a_tensor_leaked_from_a_finished_trace():
    leaked = []

    @tf.function
    def fn(x):
        leaked.append(x * 2)
        return x

    fn(tf.constant(1))
    err = _raise(lambda: leaked[0].numpy())
    assert "is being traced" not in str(err)
    assert str(err).startswith("Cannot call .numpy() on the symbolic tensor 'multiply:0': it "
                               "was made while graph 'fn' was traced and kept after the trace "
                               "ended")
    assert "Return it from the function" in str(err)


def _fstring_assert(x, limit):
    assert tf.reduce_sum(x) > limit, f"sum {tf.reduce_sum(x)!s} <= {limit:.1f} (x={x})"
    return x * 2.0


@pytest.mark.parametrize("executor", ["interpreter", "compiled"])
def test_staged_assert_fstring_shows_run_time_values(executor):
    staged = tf.function(_fstring_assert, executor=executor)
    x = tf.constant([1.0, 2.5])
    err = _raise(lambda: staged(x, 100.0))
    assert isinstance(err, tf.errors.InvalidArgumentError)
    # The values the assert saw at run time, formatted as the f-string says (not the
    # symbolic 'Tensor("reduce_sum:0", ...)' of the trace).
    assert "): sum 3.5 <= 100.0 (x=[1.  2.5])\n" in str(err), str(err)
    assert 'File "{}", line {}'.format(HERE, _line_of(_fstring_assert, "assert tf.")) in str(err)
    np.testing.assert_array_equal(staged(x, 1.0).numpy(), [2.0, 5.0])


def test_converted_fstring_assert_on_python_values_is_the_plain_one():
    def plain_assert(x, limit):
        assert sum(x) > limit, f"sum {sum(x)!s} <= {limit:.1f} (x={x!r:>12})"
        return [v * 2 for v in x]

    conv = ag.convert()(plain_assert)
    assert conv([1, 2], 0) == [2, 4]
    for x, limit in (([1, 2], 5), ([0.5], 3.25)):
        # (pytest rewrites this module's own asserts, so the plain message is spelled out)
        with pytest.raises(AssertionError) as got:
            conv(x, limit)
        assert got.value.args == (f"sum {sum(x)!s} <= {limit:.1f} (x={x!r:>12})",)
    assert "ag__.fstring(" in ag.to_code(plain_assert)


@pytest.mark.parametrize("executor", ["interpreter", "compiled"])
def test_int32_overflow_wraps_silently_as_in_tensorflow(executor):
    # TensorFlow wraps int32 arithmetic without a warning; a numpy RuntimeWarning pointing
    # into runtime kernels or generated code would only confuse.
    f = tf.function(lambda x: x * 2147483647 + x, executor=executor)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(tf.constant(3)).numpy() == -2147483648
        np.testing.assert_array_equal(
            f(tf.constant([3, -1])).numpy(),
            (np.array([3, -1], np.int64) * 2147483648 + 2 ** 31) % 2 ** 32 - 2 ** 31)
        assert (tf.constant(2147483647) + 1).numpy() == -2147483648
        # A loop counter stepping past the int32 limit (numpy scalars in the kernels).
        count = tf.function(_count_past_the_limit, executor=executor)
        assert count(tf.constant(2147483645)).numpy() == -2147483647


def _count_past_the_limit(i):
    n = 0
    while n < 4:
        i += 1
        n += 1
    return i


def _returns_int_or_float(x):
    if x > 0:
        return x
    return x * 1.5


def _returns_pair_or_triple(x):
    if x > 0:
        return (x, x)
    return (x, x, x)


@pytest.mark.parametrize("fn, types", [
    (_returns_int_or_float, "type int32 in the if branch, but type float64 in the else branch"),
    (_returns_pair_or_triple, "type (int32, int32) in the if branch, but type "
                              "(int32, int32, int32) in the else branch"),
])
def test_branch_return_mismatch_is_in_the_users_words(fn, types):
    err = _raise(lambda: tf.function(fn)(tf.constant(1)))
    assert isinstance(err, ag.StagingError)
    assert str(err).startswith("the return value has " + types), str(err)
    fix = ("Give it the same dtype in both branches: cast it (tf.cast, .astype, Tensor.to)."
           if fn is _returns_int_or_float else "Build the same structure in both branches")
    assert fix in str(err)
    assert 'File "{}", line {}, in {}\n    if x > 0:'.format(
        HERE, _line_of(fn, "if x > 0"), fn.__name__) in str(err)
    for generated in ("retval_", "do_return", "break_", "ag__"):
        assert generated not in str(err)
    # Python values take one path and never meet the mismatch.
    assert ag.convert()(fn)(1) == fn(1) and ag.convert()(fn)(-1) == fn(-1)
