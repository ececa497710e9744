"""Tests for converters/directives.py: set_loop_options read into the loop operators' opts."""

import warnings

import pytest

import autograph as ag
from autograph import directives as directives_lib
from autograph.converters import control_flow
from autograph.converters import directives
from autograph.converters import functions
from autograph.errors import DirectiveError
from autograph.experimental import set_loop_options as bounded
from tests.autograph.converters.conftest import ANALYSE
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform


def f_while(n, limit):
    i = 0
    while i < n:
        ag.experimental.set_loop_options(maximum_iterations=limit, parallel_iterations=4)
        i += 1
    return i


def test_while_options_golden():
    assert source(transform(f_while, functions, directives, ANALYSE, control_flow)) == golden('''
        def tf__f_while(n, limit):
            with ag__.FunctionScope('f_while', 'fscope') as fscope:
                i = 0

                def get_state():
                    return (i,)

                def set_state(vars_):
                    nonlocal i
                    (i,) = vars_

                def loop_body():
                    nonlocal i
                    i += 1

                def loop_test():
                    return (i < n)
                ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('i',), {'parallel_iterations': 4, 'maximum_iterations': limit})
                return i
    ''')


def f_for_alias(xs):
    total = 0
    for x in xs:
        bounded(maximum_iterations=2)
    return total


def test_for_options_through_an_imported_alias_golden():
    # The only statement of the body was the directive: the body becomes `pass`.
    out = source(transform(f_for_alias, functions, directives, ANALYSE, control_flow))
    assert "{'iterate_names': 'x', 'maximum_iterations': 2})" in out
    assert 'bounded' not in out and 'pass' in out


def f_nested(n):
    total = 0
    for i in range(n):
        ag.experimental.set_loop_options(maximum_iterations=3)
        j = 0
        while j < i:
            ag.experimental.set_loop_options(maximum_iterations=5)
            j += 1
            total += j
    return total


def test_each_loop_gets_its_own_options():
    out = source(transform(f_nested, functions, directives, ANALYSE, control_flow))
    assert "('total', 'j'), {'maximum_iterations': 5})" in out
    assert "{'iterate_names': 'i', 'maximum_iterations': 3})" in out
    assert 'set_loop_options' not in out


def f_shadowed(n):
    ag = _NotAutograph()  # a local named like the module: not the directive
    i = 0
    while i < n:
        ag.experimental.set_loop_options(maximum_iterations=1)
        i += 1
    return i


class _NotAutograph:
    class experimental:  # noqa: N801 - mimics the module path
        calls = []

        @staticmethod
        def set_loop_options(**kwargs):
            _NotAutograph.experimental.calls.append(kwargs)


def test_a_local_with_the_same_name_is_left_alone():
    out = source(transform(f_shadowed, functions, directives, ANALYSE, control_flow))
    assert 'ag.experimental.set_loop_options(maximum_iterations=1)' in out
    _NotAutograph.experimental.calls.clear()
    assert ag.convert(f_shadowed)(3) == f_shadowed(3) == 3
    assert len(_NotAutograph.experimental.calls) == 6  # 3 calls by each run


def test_python_loops_ignore_the_options_as_in_tensorflow():
    # TensorFlow: "It only has effect if the loop is staged as a TF while_loop; otherwise the
    # parameters have no effect." Converted code with Python values equals plain Python.
    assert ag.convert(f_while)(10, 3) == f_while(10, 3) == 10
    assert ag.convert(f_nested)(6) == f_nested(6) == sum(j for i in range(6)
                                                        for j in range(1, i + 1))


def test_unconverted_call_does_nothing():
    assert directives_lib.set_loop_options(maximum_iterations=3) is None
    with pytest.raises(TypeError):
        directives_lib.set_loop_options(maximum_iteration=3)  # pylint: disable=unexpected-keyword-arg


def test_exported_where_tensorflow_has_it():
    assert ag.experimental.set_loop_options is directives_lib.set_loop_options
    import runtime as tf  # pylint: disable=import-outside-toplevel
    assert tf.autograph.experimental.set_loop_options is directives_lib.set_loop_options


# -- bad input: a clear error at conversion, never a silent fallback ---------------------------

def outside_loop(n):
    ag.experimental.set_loop_options(maximum_iterations=3)
    return n


def not_first(n):
    i = 0
    while i < n:
        i += 1
        ag.experimental.set_loop_options(maximum_iterations=3)
    return i


def inside_if(n):
    i = 0
    while i < n:
        if i > 2:
            ag.experimental.set_loop_options(maximum_iterations=3)
        i += 1
    return i


def unknown_keyword(n):
    i = 0
    while i < n:
        ag.experimental.set_loop_options(max_iterations=3)
        i += 1
    return i


def splat(n, opts):
    i = 0
    while i < n:
        ag.experimental.set_loop_options(**opts)
        i += 1
    return i


def _line_of(fn, text):
    import inspect  # pylint: disable=import-outside-toplevel
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


@pytest.mark.parametrize('fn, words', [
    (outside_loop, 'it is outside any loop'),
    (not_first, 'it is not the first statement of its loop body'),
    (inside_if, 'it is not the first statement of its loop body'),
], ids=['outside_loop', 'not_first', 'inside_if'])
def test_misplaced_directive_is_an_error_naming_the_line(fn, words):
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # an error, not a warning and a silent fallback
        with pytest.raises(DirectiveError) as e:
            ag.convert(fn)
    line = _line_of(fn, 'set_loop_options')
    assert '{}:{}'.format(__file__, line) in str(e.value)
    assert words in str(e.value) and 'Move it to the top of the loop body' in str(e.value)
    assert isinstance(e.value, ValueError)  # TensorFlow raises ValueError


def test_unknown_keyword_names_it_and_the_options():
    with pytest.raises(DirectiveError) as e:
        ag.convert(unknown_keyword)
    message = str(e.value)
    assert "'max_iterations'" in message and 'maximum_iterations' in message
    assert '{}:{}'.format(__file__, _line_of(unknown_keyword, 'set_loop_options')) in message


def test_keyword_splat_is_refused():
    with pytest.raises(DirectiveError, match=r'takes its options as keywords'):
        ag.convert(splat)


def test_misplaced_directive_fails_the_traced_function_too():
    import runtime as tf  # pylint: disable=import-outside-toplevel
    with pytest.raises(DirectiveError, match='outside any loop'):
        tf.function(outside_loop)(tf.constant(1))


def through_a_local_alias(n):
    options = ag.experimental  # the converter cannot tell what a local holds
    i = 0
    while i < n:
        options.set_loop_options(maximum_iterations=2)
        i += 1
    return i


@ag.do_not_convert
def unconverted_loop(n):
    i = 0
    while i < n:
        ag.experimental.set_loop_options(maximum_iterations=2)
        i += 1
    return i


def test_directive_the_converter_missed_fails_when_it_runs():
    assert through_a_local_alias(3) == 3  # plain Python: a no-op, as in TensorFlow
    with pytest.raises(DirectiveError) as e:
        ag.convert(through_a_local_alias)(3)
    line = _line_of(through_a_local_alias, 'options.set_loop_options')
    assert '{}:{}'.format(__file__, line) in str(e.value)
    assert 'not recognised' in str(e.value)
    # In a function that runs unconverted, the directive stays a no-op.
    assert ag.convert(unconverted_loop)(3) == 3


# -- set_list_options: folded into the assignment before it ----------------------------------

def f_bounded_list(n):
    memo = [0] * (n + 1)
    ag.experimental.set_list_options(memo, maximum_size=64)
    return memo


def test_list_options_wrap_the_assignment_before_them_golden():
    assert source(transform(f_bounded_list, functions, directives)) == golden('''
        def tf__f_bounded_list(n):
            with ag__.FunctionScope('f_bounded_list', 'fscope') as fscope:
                with ag__.list_options('memo', maximum_size=64):
                    memo = ([0] * (n + 1))
                return memo
    ''')


def test_list_options_do_nothing_to_python_lists():
    for n in (0, 3, 100):  # 100: longer than the bound, as Python's list may be
        assert ag.convert(f_bounded_list)(n) == f_bounded_list(n) == [0] * (n + 1)


def list_directive_first(n):
    ag.experimental.set_list_options(memo, maximum_size=4)  # noqa: F821 - never runs
    memo = [0] * n
    return memo


def list_directive_other_name(n):
    memo = [0] * n
    other = memo
    ag.experimental.set_list_options(memo, maximum_size=4)
    return other


def list_directive_in_a_loop(n):
    memo = []
    for i in range(n):
        ag.experimental.set_list_options(memo, maximum_size=4)
        memo.append(i)
    return memo


def list_directive_not_a_name(n):
    memo = [[0] * n]
    ag.experimental.set_list_options(memo[0], maximum_size=4)
    return memo


def list_directive_without_target(n):
    memo = [0] * n
    ag.experimental.set_list_options(maximum_size=4)
    return memo


@pytest.mark.parametrize('fn, words', [
    (list_directive_first, "must directly follow the assignment that makes the list 'memo'"),
    (list_directive_other_name, "must directly follow the assignment that makes the list 'memo'"),
    (list_directive_in_a_loop, "must directly follow the assignment that makes the list 'memo'"),
    (list_directive_not_a_name, 'its first argument must be the name of the list variable'),
    (list_directive_without_target, "missing a required argument: 'target'"),
])
def test_misplaced_list_directive_is_an_error_naming_the_line(fn, words):
    with pytest.raises(DirectiveError) as e:
        ag.convert(fn)
    line = _line_of(fn, 'set_list_options')
    assert '{}:{}'.format(__file__, line) in str(e.value)
    assert words in str(e.value)


def list_directive_through_a_local_alias(n):
    options = ag.experimental
    memo = [0] * n
    options.set_list_options(memo, maximum_size=4)
    return memo


def test_list_directive_the_converter_missed_fails_when_it_runs():
    assert list_directive_through_a_local_alias(2) == [0, 0]
    with pytest.raises(DirectiveError) as e:
        ag.convert(list_directive_through_a_local_alias)(2)
    assert 'set_list_options at {}:{} was not recognised'.format(
        __file__, _line_of(list_directive_through_a_local_alias, 'options.set_list')) in str(
            e.value)


def test_the_disk_cache_checks_tell_the_directives_apart():
    namespace = {'ag': ag, 'bounded': bounded, 'lst': directives_lib.set_list_options}
    assert directives.checks_hold([(('bounded',), 'set_loop_options'),
                                   (('lst',), 'set_list_options'),
                                   (('ag', 'experimental', 'set_list_options'),
                                    'set_list_options'), (('len',), None)], namespace)
    assert not directives.checks_hold([(('lst',), 'set_loop_options')], namespace)
    assert not directives.checks_hold([(('bounded',), None)], namespace)
    assert not directives.checks_hold([(('ag',), 'set_list_options')], namespace)
