"""Tests for converters/match_statements.py.

Behaviour with Python values and staged values (runtime and JAX) is in the shared corpus
(`match_*` in tests/corpus/functions.py); these pin the rewrites, the order in which Python
evaluates a match statement's parts, and the names of generated symbols in messages.
"""

import pytest

import autograph as ag
import runtime as tf
from autograph.converters import match_statements
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform


def values(x):
    match x:
        case 0:
            r = 'zero'
        case 1 | 2 as small:
            r = small
        case None:
            r = 'none'
        case _:
            r = 'other'
    return r


def test_value_patterns_become_tests_of_the_subject():
    assert source(transform(values, match_statements)) == golden('''
        def values(x):
            subject_ = x
            if (subject_ == 0):
                r = 'zero'
            elif ((subject_ == 1) or (subject_ == 2)):
                small = subject_
                r = small
            elif (subject_ is None):
                r = 'none'
            else:
                r = 'other'
            return r
    ''')


def structural(v, k):
    match v:
        case [first, *rest] if first > k:
            r = rest
        case {'k': value}:
            r = value
        case other:
            r = other
    return r


def test_other_patterns_are_matched_by_python_and_guards_follow_a_flag():
    assert source(transform(structural, match_statements)) == golden('''
        def structural(v, k):
            subject_ = v
            case_done_ = False
            match subject_:
                case [first, *rest]:
                    case_ = True
                case _:
                    case_ = False
            if case_:
                if (first > k):
                    case_done_ = True
                    r = rest
            if (not case_done_):
                match subject_:
                    case {'k': value}:
                        case_1 = True
                    case _:
                        case_1 = False
                if case_1:
                    case_done_ = True
                    r = value
                if (not case_done_):
                    other = subject_
                    case_done_ = True
                    r = other
            return r
    ''')


class _Log:
    """Records the order in which a match statement evaluates its parts."""

    def __init__(self):
        self.events = []

    def __call__(self, tag, value):
        self.events.append(tag)
        return value


class _Box:
    def __init__(self, log):
        self._log = log

    @property
    def one(self):
        return self._log('value one', 1)

    @property
    def two(self):
        return self._log('value two', 2)


def ordered(log, box, x):
    match log('subject', x):
        case box.one:
            r = 'one'
        case box.two if log('guard two', x > 5):
            r = 'two big'
        case n if log('guard capture', n) > 3:
            r = 'big'
        case _:
            r = 'other'
    return r


@pytest.mark.parametrize('x', [1, 2, 4, 0])
def test_python_order_subject_once_values_lazily_guards_after_bindings(x):
    runs = []
    for fn in (ordered, ag.convert(ordered)):
        log = _Log()
        result = fn(log, _Box(log), x)
        runs.append((result, log.events))
    assert runs[0] == runs[1]
    assert runs[0][1][0] == 'subject' and runs[0][1].count('subject') == 1


def collide(subject_, case_):
    match subject_:
        case [x, y]:
            case_ = x + y
        case int(n) if n > case_:
            case_ = n
    return subject_, case_


@pytest.mark.parametrize('args', [([1, 2], 0), (7, 3), (2, 3), ('s', 1)])
def test_user_names_like_the_generated_ones_keep_their_values(args):
    assert ag.convert(collide)(*args) == collide(*args)


def mismatch(x):
    match x:
        case 0:
            r = x  # an int tensor in one case, a float tensor in the other: no static type
        case _:
            r = x * 2.5
    return r


def test_a_staged_case_names_the_users_variable_in_messages():
    with pytest.raises(Exception) as info:
        tf.function(mismatch)(tf.constant(0))
    message = str(info.value)
    assert "'r'" in message
    assert 'subject_' not in message and 'case_' not in message


def walrus_in_subject_and_guard(x, d):
    match d or (y := x + 1):
        case 0:
            r = 0
        case n if n > 2 and (m := n * 2) > 6:
            r = m + y
        case _:
            r = -1
    return r


@pytest.mark.parametrize('args', [(0, 0), (1, 0), (5, 0), (0, 7)])
def test_assignment_expressions_in_the_subject_and_guards(args):
    # The subject becomes an assignment's value and a guard an `if` test: named_expressions
    # lowers their lazy operands as it lowers those.
    def outcome(fn):
        try:
            return fn(*args)
        except Exception as e:  # pylint: disable=broad-except
            return type(e), str(e)
    assert outcome(ag.convert(walrus_in_subject_and_guard, strict=True)) == outcome(
        walrus_in_subject_and_guard)
