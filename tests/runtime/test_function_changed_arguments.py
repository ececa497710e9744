"""A traced function that changes a list or dict argument in place warns
(`ChangedArgumentWarning`): tf.function passes it copies, so the caller's list stays as it
was, where plain Python would change it. Unchanged arguments, and lists the function makes
itself, give no warning."""
import warnings

import pytest

import runtime as tf
from runtime.function.leaks import ChangedArgumentWarning


def set_in_a_staged_branch(x, values):
    if x > 0:
        values[0] = x
    return x


def appended_in_a_staged_loop(n, values):
    i = 0
    while i < n:
        values.append(i)
        i += 1
    return n


def appended_in_python(x, values):
    values.append(1.0)  # no staging at all: the copy grows while tracing
    return x


def nested_dict_entry(x, config):
    config['rows'][0] = 5
    return x


@pytest.mark.parametrize('fn, args, label', [
    (set_in_a_staged_branch, (1.0, [0.0]), "'values' (a list)"),
    (appended_in_a_staged_loop, (3, []), "'values' (a list)"),
    (appended_in_python, (1.0, []), "'values' (a list)"),
    (nested_dict_entry, (1.0, {'rows': [1, 2]}), "'config['rows']' (a list)"),
])
def test_a_changed_argument_warns_and_the_callers_list_is_left_alone(fn, args, label):
    x, container = args
    before = repr(container)
    with pytest.warns(ChangedArgumentWarning) as record:
        tf.function(fn)(tf.constant(x), container)
    message = str(record[0].message)
    assert '%s changed its argument %s' % (fn.__name__, label) in message
    assert 'Return the ' in message
    assert record[0].filename == __file__  # the caller's line
    assert repr(container) == before  # as the message says


def reads_only(x, values, table):
    local = list(values)
    local.append(x)  # a list of its own
    total = x
    for v in values:
        total += v
    return total + table[1][0] + len(local)


def test_arguments_only_read_give_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter('error', ChangedArgumentWarning)
        out = tf.function(reads_only)(tf.constant(1.0), [1.0, 2.0], [[1.0], [3.0]])
    assert out.numpy() == 1.0 + 3.0 + 3.0 + 3
