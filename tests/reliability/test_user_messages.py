"""The messages of the mistakes in user_mistakes.py: the user's words, file and line, a fix that
works, and a traceback without autograph's and runtime's frames (with them when asked).

The first seven are the messages of issue #33 (two of them, a Python int loop variable that
becomes a float, are no longer mistakes: Python numbers are weakly typed, and the last test here
checks that they stage as Python runs them; their places hold the errors that remain, an int
tensor meeting a float tensor in a branch or a loop); the others are mistakes a new user made.
"""
import dataclasses
import linecache
import os
import re
import traceback
import warnings

import jax
import jax.numpy as jnp
import pytest

import autograph as ag
import runtime as tf
from autograph.backends import jax as ag_jax
from autograph.impl import traceback_filter
from runtime.function import RetracingWarning
from runtime.function.leaks import LeakedTensorWarning
from tests.reliability import user_mistakes as m

FILE = m.__file__


def line_of(name):
    """The line of `user_mistakes.py` marked `# MISTAKE: name`."""
    for number, text in enumerate(linecache.getlines(FILE), 1):
        if text.rstrip().endswith('# MISTAKE: ' + name):
            return number
    raise AssertionError(name)


@dataclasses.dataclass
class Case:
    name: str
    run_bad: object      # () -> raises (or warns)
    error: type          # the exception type, or the warning category
    words: tuple         # phrases the message must contain
    run_fixed: object    # () -> the fixed result
    expected: object     # what run_fixed() gives (compared with ==, through .tolist())


def _jit(fn):
    return jax.jit(ag.convert(fn))


def _no_source(x, filename='<stdin>'):
    namespace = {}
    exec(compile(m.NO_SOURCE, filename, 'exec'), namespace)  # noqa: S102 - as the REPL does
    with warnings.catch_warnings():  # (warned once per function: see the test below)
        warnings.filterwarnings('ignore', 'AutoGraph could not convert bad_no_source')
        return tf.function(namespace['bad_no_source'])(x)


def test_a_function_without_source_warns_that_it_runs_unconverted():
    namespace = {}
    exec(compile(m.NO_SOURCE, '<stdin-warns>', 'exec'), namespace)  # noqa: S102
    with pytest.warns(UserWarning, match='AutoGraph could not convert bad_no_source .defined '
                                         'at <stdin-warns>:2.: expected the source code'):
        assert ag.convert(namespace['bad_no_source'])(-3) == 3


def _global_in_loop(n):
    m.calls = 0  # (an earlier trace left a tensor there)
    try:
        return tf.function(m.bad_global_in_loop)(tf.constant(n))
    finally:
        m.calls = 0


CASES = [
    Case('branch_dtypes',
         lambda: tf.function(m.bad_branch_dtypes)(tf.constant([4.0, 8.0]), tf.constant(10)),
         TypeError, ("'total' has type int32 in the if branch, but type float32 in the else "
                     'branch', 'cast it (tf.cast, .astype, Tensor.to)'),
         lambda: tf.function(m.fixed_branch_dtypes)(tf.constant([4.0, 8.0]), tf.constant(10)),
         10.0),
    Case('mixed_list', lambda: tf.function(m.bad_mixed_list)(tf.constant(4)),
         ag.StagingError, ("'values' has type TensorArray[int32] in the if branch, but type "
                           "TensorArray[float64] in the else branch",
                           'cast it (tf.cast, .astype, Tensor.to)'),
         lambda: tf.function(m.fixed_mixed_list)(tf.constant(4)), [0.0, 0.5, 2.0, 0.5]),
    Case('float_tensor_becomes_int',
         lambda: tf.function(m.bad_float_tensor_becomes_int)(tf.constant(4)),
         ag.StagingError, ("'s' has type float32 before the loop, but type int32 after one "
                           'iteration', 'cast it (tf.cast, .astype, Tensor.to)'),
         lambda: tf.function(m.fixed_float_tensor_becomes_int)(tf.constant(4)), 8.0),
    Case('branch_shapes', lambda: _jit(m.bad_branch_shapes)(jnp.ones(3)),
         ag.StagingError, ("'y' has type float32[3] in the if branch, but type float32[2]",
                           'Give it the same shape in both branches: a cast cannot change a '
                           'shape'),
         lambda: _jit(m.fixed_branch_shapes)(jnp.ones(3)), [1.0, 1.0, 1.0]),
    Case('global_in_loop', lambda: _global_in_loop(3),
         Warning, ("bad_global_in_loop assigned a staged value to the global 'calls' at "
                   'user_mistakes.py:%d' % line_of('global_in_loop'),
                   'Return the value from bad_global_in_loop instead'),
         lambda: tf.function(m.fixed_global_in_loop)(tf.constant(3)), 3),
    Case('jax_list', lambda: _jit(m.bad_jax_list)(3),
         ag.StagingError, ("The list 'values' is appended to",
                           'set_loop_options(maximum_iterations=N)'),
         lambda: int(_jit(m.fixed_jax_list)(3)[2]), 2),
    Case('no_source', lambda: _no_source(tf.constant(1)),
         TypeError, ('autograph could not convert bad_no_source',
                     'because its source is not available', 'Define it in a file'),
         lambda: tf.function(m.fixed_no_source)(tf.constant(-2)), 2),
    # Ten more, tried as a new user would.
    Case('numpy_method', lambda: tf.function(m.bad_numpy_method)(tf.constant(1)),
         NotImplementedError, ("Cannot call .numpy() on the symbolic tensor 'x:0'",
                               'Return it from the function and call .numpy() on the result'),
         lambda: tf.function(m.fixed_numpy_method)(tf.constant(1)), 2),
    Case('numpy_function', lambda: tf.function(m.bad_numpy_function)(tf.constant([1, 2])),
         TypeError, ("Cannot convert the symbolic tensor 'x:0' to a numpy array",
                     'Use runtime ops (tf.*) instead of numpy functions'),
         lambda: tf.function(m.fixed_numpy_function)(tf.constant([1, 2])), 3),
    Case('comprehension', lambda: tf.function(m.bad_comprehension)(tf.constant([1, -2, 3])),
         TypeError, ("Iterating over the symbolic tensor 'x:0' is not allowed",
                     'not comprehensions with several for clauses', 'write it as a for loop'),
         lambda: tf.function(m.fixed_comprehension)(tf.constant([1, -2, 3])), [-2, 3, -6]),
    Case('variable_per_call', lambda: tf.function(m.bad_variable_per_call)(tf.constant(1.0)),
         ValueError, ("function `bad_variable_per_call` created the Variable",
                      'only supports singleton tf.Variables created on the first call'),
         lambda: tf.function(m.fixed_variable_per_call)(tf.constant(1.0)), 2.0),
    Case('none_on_some_paths',
         lambda: tf.function(m.bad_none_on_some_paths)(tf.constant(1)),
         ag.StagingError, ('bad_none_on_some_paths returns a value on some paths',
                           'add a return statement with a value at the end'),
         lambda: tf.function(m.fixed_none_on_some_paths)(tf.constant(-1)), 0),
    Case('recursion', lambda: tf.function(m.bad_recursion)(tf.constant(3)),
         ag.StagingError, ('bad_recursion (defined at', 'called itself more than 50 calls deep',
                           'Use a loop'),
         lambda: tf.function(m.fixed_recursion)(tf.constant(3)), 3),
    Case('one_branch', lambda: tf.function(m.bad_one_branch)(tf.constant(-1)),
         UnboundLocalError, ("'y' is assigned only on some paths of staged control flow",),
         lambda: tf.function(m.fixed_one_branch)(tf.constant(-1)), 0),
    Case('list_index',
         lambda: tf.function(m.bad_list_index)(tf.constant(1), tf.constant(1)),
         TypeError, ("The symbolic tensor 'n:0' cannot be used as a Python int",
                     'Index a tensor instead of a Python list'),
         lambda: tf.function(m.fixed_list_index)(tf.constant(1), tf.constant(1)), 3),
    Case('generator', lambda: ag.convert(m.bad_generator, strict=True),
         ag.ConversionError, ('AutoGraph could not convert bad_generator',
                              'a generator function (yield)', 'do_not_convert'),
         lambda: ag.convert(m.fixed_generator)(3), [0, 2, 4]),
    Case('convert_result', m.bad_convert_result,
         TypeError, ('autograph.convert expected a callable', 'found list',
                     'pass the function itself, not the result of calling it'),
         m.fixed_convert_result, [0, 2, 4]),
    Case('undefined_in_loop', lambda: tf.function(m.bad_undefined_in_loop)(tf.constant(0)),
         UnboundLocalError, ("'last'",),
         lambda: tf.function(m.fixed_undefined_in_loop)(tf.constant(0)), -1),
    Case('staged_text', lambda: tf.function(m.bad_staged_text)(tf.constant(4)),
         ag.StagingError, ("'bad_staged_text'", "returns the text 'double: {...}'",
                           'Return the value itself'),
         lambda: tf.function(m.fixed_staged_text)(tf.constant(4)), 8),
    Case('staged_text_jax', lambda: ag_jax.jit(m.bad_staged_text_jax)(jnp.int32(4)),
         ag.StagingError, ("'bad_staged_text_jax'", "returns the text '{...} doubled'",
                           'print it inside'),
         lambda: ag_jax.jit(m.fixed_staged_text)(jnp.int32(4)), 8),
]


def _raise(case):
    with warnings.catch_warnings():
        warnings.simplefilter('error', LeakedTensorWarning)
        # Each run makes a new tf.function of the same Python function, on purpose.
        warnings.simplefilter('ignore', RetracingWarning)
        with pytest.raises(case.error) as info:
            case.run_bad()
    return info.value


def _frames(error):
    tb, files = error.__traceback__, []
    while tb is not None:
        files.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    return files


@pytest.mark.parametrize('case', CASES, ids=lambda c: c.name)
def test_message_names_the_mistake_and_the_fix_works(case):
    error = _raise(case)
    message = str(error)
    for words in case.words:
        assert words in message, message
    # The user's file and line: in the message or as the traceback's last user frame.
    if case.name == 'no_source':  # no file: the line is the prompt's
        assert 'File "<stdin>", line 3, in bad_no_source' in message, message
    elif case.error is not Warning:
        line = line_of(case.name)
        in_message = ('File "%s", line %d' % (FILE, line) in message
                      or '%s:%d' % (FILE, line) in message)
        assert in_message or (FILE, line) in _frames(error), (message, _frames(error))
    fixed = case.run_fixed()
    value = fixed.numpy().tolist() if hasattr(fixed, 'numpy') else fixed
    value = value.tolist() if hasattr(value, 'tolist') else value
    assert value == case.expected


@pytest.mark.parametrize('case', [c for c in CASES if c.error is not Warning],
                         ids=lambda c: c.name)
def test_traceback_has_no_internal_frames_unless_asked(case, monkeypatch):
    error = _raise(case)
    text = ''.join(traceback.format_exception(error))
    internal = [f for f, _ in _frames(error) if traceback_filter.is_internal(f)]
    if traceback_filter.ACTIVE:  # Python 3.11 and later
        assert not internal, text
        assert 'During handling of the above exception' not in text, text
        assert 'The above exception was the direct cause' not in text, text
    monkeypatch.setenv('AUTOGRAPH_TRACEBACK_FILTERING', 'off')
    unfiltered = _raise(case)
    assert [f for f, _ in _frames(unfiltered) if traceback_filter.is_internal(f)]
    assert traceback_filter.NOTE not in ''.join(traceback.format_exception(unfiltered))


def test_the_note_says_how_to_see_every_frame():
    error = _raise(CASES[0])
    if traceback_filter.ACTIVE:
        assert error.__notes__ == [traceback_filter.NOTE]
        assert 'AUTOGRAPH_TRACEBACK_FILTERING=off' in traceback_filter.NOTE


def test_global_nonlocal_and_attribute_assigned_a_staged_value_warn_at_trace_time():
    with pytest.warns(LeakedTensorWarning) as record:
        _global_in_loop(2)
    assert record[0].filename == FILE and record[0].lineno == line_of('global_in_loop')

    class Counter:
        def __init__(self):
            self.count = 0

        @tf.function
        def step(self, n):
            self.count = self.count + n
            return n

    with pytest.warns(LeakedTensorWarning,
                      match="to the attribute 'count' of a Counter object at "
                            'test_user_messages.py:%d' % (
                                Counter.step.python_function.__code__.co_firstlineno + 2)):
        counter = Counter()
        counter.step(tf.constant(1))

    total = 0

    @tf.function
    def add(x):
        nonlocal total
        total = total + x
        return x

    with pytest.warns(LeakedTensorWarning, match="to the nonlocal 'total'"):
        add(tf.constant(1))
    with warnings.catch_warnings():  # a value returned, not stored, does not warn
        warnings.simplefilter('error')
        assert tf.function(m.fixed_global_in_loop)(tf.constant(2)).numpy() == 2


def test_every_case_is_a_distinct_marked_mistake():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)) == 20
    with open(FILE, encoding='utf-8') as f:
        marked = re.findall(r'# MISTAKE: (\w+)$', f.read(), re.M)
    assert sorted(marked) == sorted(names)
    assert os.path.basename(FILE) == 'user_mistakes.py'


def _sum_positive(x):
    total = 0
    for v in x:
        if v > 0:
            total += v
    return total


def _halves(n):
    s = 0
    i = 0
    while i < n:
        s = s + 0.5
        i += 1
    return s


def test_python_ints_that_become_floats_in_a_staged_loop_stage_as_python_runs_them():
    values = [1.0, -2.0, 3.0]
    staged = tf.function(_sum_positive)(tf.constant(values, tf.float64))
    assert staged.numpy() == _sum_positive(values) == 4.0
    staged = tf.function(_halves)(tf.constant(4))
    assert staged.numpy() == _halves(4) == 2.0 and staged.dtype is tf.float64
