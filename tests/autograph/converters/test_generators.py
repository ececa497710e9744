"""sum(), any(), all(), max() and min() of a generator expression: the converted loop gives what Python
gives with Python values (elements evaluated once, in order; any/all stop early; errors as
Python raises them; a shadowed `sum` gets the generator), and stages over staged values."""
import jax.numpy as jnp
import pytest

import autograph as ag
import runtime as tf
from autograph.backends import jax as ag_jax


def squares(n):
    return sum(i * i for i in range(1, n + 1))


def positive_total(xs):
    return sum(x for x in xs if x > 0)


def first_descent(xs):
    return any(a > b for a, b in zip(xs, xs[1:]))


def all_positive(xs):
    return all(x > 0 for x in xs)


def logged(xs, log):
    def seen(x):
        log.append(x)
        return x
    return any(seen(x) > 1 for x in xs), all(seen(x) < 3 for x in xs if x != 0)


def target_stays_local(n):
    i = 'kept'
    return sum(i for i in range(n)), i


def shadowed(xs):
    sum = list  # noqa: A001 - a user's own `sum` gets the generator itself
    return sum(x * 2 for x in xs)


def with_start(xs):
    return sum((x for x in xs), 10), sum((x for x in xs), start=0.5), sum(([x] for x in xs), [])


def several_ifs(n):
    return sum(k for k in range(n) if k % 2 if k > 3)


def raises_inside(xs):
    return sum(1 / x for x in xs)


def left_alone(xs):
    return sum(a * b for a in xs for b in xs), sum(a + c for a, (b, c) in zip(xs, zip(xs, xs)))


def extremes(xs):
    return max(x * x for x in xs), min(abs(x) for x in xs if x != 0)


class Tagged:
    """Equal keys, distinct objects: which one comes back tells ties apart."""

    def __init__(self, key, tag):
        self.key, self.tag = key, tag

    def __lt__(self, other):
        return self.key < other.key

    def __gt__(self, other):
        return self.key > other.key


def first_of_ties(pairs):
    best = max(Tagged(k, t) for k, t in pairs)
    least = min(Tagged(k, t) for k, t in pairs)
    return best.tag, least.tag


def extremes_with_defaults(xs):
    return max((x for x in xs if x > 10), default=None), min((x for x in xs), default='none')


def with_a_key(xs):
    return max((x for x in xs), key=abs), min((x for x in xs), key=lambda v: -v)


def extreme_of_nothing(xs):
    return max(x for x in xs if x > 100)


CALLS = [(extremes, ([3, -4, 2],)), (first_of_ties, ([(1, 'a'), (2, 'b'), (2, 'c'), (1, 'd')],)),
         (extremes_with_defaults, ([1, 20, 30],)), (extremes_with_defaults, ([],)),
         (with_a_key, ([3, -4, 2],)), (extremes, ([1.0, float('nan'), 2.0],)),
         (squares, (10,)), (squares, (0,)), (positive_total, ([1.0, -2.0, 3.0],)),
         (first_descent, ([1, 2, 3],)), (first_descent, ([1, 3, 2],)),
         (all_positive, ([1.0, 2.0],)), (all_positive, ([1.0, -2.0],)),
         (all_positive, ([],)), (target_stays_local, (4,)), (shadowed, ([1, 2],)),
         (with_start, ([1, 2, 3],)), (several_ifs, (10,)), (left_alone, ([1, 2],))]


@pytest.mark.parametrize('fn, args', CALLS, ids=lambda v: getattr(v, '__name__', ''))
def test_converted_with_python_values_is_plain(fn, args):
    assert ag.convert(fn)(*args) == fn(*args)


def test_elements_are_evaluated_once_in_order_and_any_all_stop_early():
    plain_log, converted_log = [], []
    xs = [0, 1, 2, 3, 4]
    assert ag.convert(logged)(xs, converted_log) == logged(xs, plain_log) == (True, False)
    assert converted_log == plain_log == [0, 1, 2, 1, 2, 3]


def test_max_of_no_element_raises_pythons_value_error():
    with pytest.raises(ValueError) as plain:
        extreme_of_nothing([1, 2])
    with pytest.raises(ValueError) as converted:
        ag.convert(extreme_of_nothing)([1, 2])
    assert str(converted.value) == str(plain.value)  # its words changed in Python 3.12


def test_an_element_that_raises_raises_as_in_python():
    with pytest.raises(ZeroDivisionError):
        raises_inside([1.0, 0.0])
    with pytest.raises(ZeroDivisionError):
        ag.convert(raises_inside)([1.0, 0.0])


def test_the_generated_code_is_a_reduce_generator_call():
    code = ag.to_code(squares)
    assert "ag__.reduce_generator(sum, " in code and "(lambda i: (i * i)), None, 'i')" in code
    assert 'reduce_generator' not in ag.to_code(left_alone)


@pytest.mark.parametrize('executor', ['compiled', 'interpreter'])
def test_staged_on_the_runtime(executor):
    def run(fn, *args):
        return tf.function(fn, executor=executor)(*args).numpy().item()
    assert run(squares, tf.constant(10)) == squares(10) == 385
    assert run(positive_total, tf.constant([1.0, -2.0, 3.0])) == 4.0
    assert run(first_descent, tf.constant([1, 3, 2])) is True
    assert run(first_descent, tf.constant([1, 2, 3])) is False
    assert run(all_positive, tf.constant([1.0, -2.0])) is False
    assert run(several_ifs, tf.constant(10)) == several_ifs(10) == 21
    staged = tf.function(extremes, executor=executor)(tf.constant([3, -4, 2]))
    assert [v.numpy().item() for v in staged] == list(extremes([3, -4, 2])) == [16, 2]
    with pytest.raises(ValueError, match=r'max\(\) '):
        tf.function(extreme_of_nothing, executor=executor)(tf.constant([1, 2]))


def test_staged_under_jax():
    assert int(ag_jax.jit(squares)(jnp.asarray(10))) == 385
    assert float(ag_jax.jit(positive_total)(jnp.asarray([1.0, -2.0, 3.0]))) == 4.0
    assert bool(ag_jax.jit(first_descent)(jnp.asarray([1, 3, 2])))
    assert not bool(ag_jax.jit(all_positive)(jnp.asarray([1.0, -2.0])))
    assert [int(v) for v in ag_jax.jit(extremes)(jnp.asarray([3, -4, 2]))] == [16, 2]
    with pytest.raises(ValueError, match=r'max\(\) '):
        ag_jax.jit(extreme_of_nothing)(jnp.asarray([1, 2]))


# List comprehensions: `ag__.list_comprehension`, the loop they stand for.

def positives(xs):
    return [v for v in xs if v > 0]


def doubled_differences(xs):
    return [2 * (a - b) for a, b in zip(xs, xs[1:])]


def comprehension_log(xs, log):
    def seen(x):
        log.append(x)
        return x
    return [seen(x) * 10 for x in xs if seen(x) % 2], [k for k in 'abc'], [k for k in {1: 2}]


def closures_left_alone(n):
    return [f() for f in [lambda: i for i in range(n)]]  # every lambda sees the last i


def test_list_comprehensions_with_python_values_are_plain():
    plain_log, converted_log = [], []
    args = [1, 2, 3, 0, 5]
    assert (ag.convert(comprehension_log)(args, converted_log)
            == comprehension_log(args, plain_log) == ([10, 30, 50], ['a', 'b', 'c'], [1]))
    assert converted_log == plain_log
    assert ag.convert(closures_left_alone)(3) == closures_left_alone(3) == [2, 2, 2]
    assert ag.convert(doubled_differences)([1, 4, 2]) == [-6, 4]
    with pytest.raises(ZeroDivisionError):
        ag.convert(positives)([1, 1 / 0])  # noqa: the argument raises before the call
    code = ag.to_code(positives)
    assert "ag__.list_comprehension(xs, (lambda v: v), (lambda v: (v > 0)), 'v')" in code


@pytest.mark.parametrize('executor', ['compiled', 'interpreter'])
def test_list_comprehensions_stage_on_the_runtime(executor):
    xs = [1.0, -2.0, 3.0, 0.5]
    staged = tf.function(positives, executor=executor)(tf.constant(xs))
    assert staged.numpy().tolist() == positives(xs) == [1.0, 3.0, 0.5]  # run-time length
    staged = tf.function(doubled_differences, executor=executor)(tf.constant(xs))
    # zip of static lengths iterates in Python, as unconverted: a list of scalar tensors
    assert [v.numpy().item() for v in staged] == doubled_differences(xs) == [6.0, -10.0, 5.0]
    assert tf.function(positives)(tf.constant([-1.0])).numpy().tolist() == []


def evens_below(n):
    return [v for v in range(n) if v % 2 == 0]


def test_list_comprehensions_under_jax_iterate_a_static_length():
    xs = jnp.asarray([1.0, -2.0, 3.0])
    assert [float(v) for v in ag_jax.jit(doubled_differences)(xs)] == [6.0, -10.0]
    # a staged `if` clause over a static length: a staged list bounded by that length
    assert ag_jax.jit(positives)(xs).tolist() == positives([1.0, -2.0, 3.0]) == [1.0, 3.0]
    assert ag_jax.jit(positives)(-xs).tolist() == [2.0]
    with pytest.raises(ag.StagingError, match='set_list_options'):
        ag_jax.jit(evens_below)(jnp.asarray(5))  # over a staged range: no bound is known


def above(x):
    return [v * 2 for v in [1.0, -2.0, 3.0] if v > x]  # a Python list, a staged `if` clause


@pytest.mark.parametrize('executor', ['compiled', 'interpreter'])
def test_a_staged_if_clause_over_a_python_list_stages_the_rest(executor):
    f = tf.function(above, executor=executor)
    for x in (0.0, -5.0, 5.0, 2.0):
        assert f(tf.constant(x)).numpy().tolist() == above(x)


def tables(n, m, row):
    fresh = [[0] * m for _ in range(n)]  # rows of their own
    nested = [[0 for _ in range(m)] for _ in range(n)]
    shared = [row for _ in range(n)]  # one list, n times
    fresh[0][0] = nested[0][0] = shared[0][0] = 9
    return fresh, nested, shared, row


def comprehension_markings(n, m, row, f):
    return ([[0] * m for _ in range(n)],  # invariant
            [[0 for _ in range(m)] for _ in range(n)],  # invariant, and its inner one
            [0.5 for _ in range(n)],  # invariant
            [row for _ in range(n)],  # a name: one object that each element aliases
            [[i] * 3 for i in range(n)],  # reads the target
            [f() for _ in range(n)],  # a call: it may differ, or change something
            [[j for j in range(m)] for _ in range(n)])  # the inner one reads its target


def test_a_comprehension_of_fresh_rows_is_marked_and_stays_python():
    # the element of a marked comprehension is evaluated once over a staged range where the
    # backend can repeat it (repeat_element); over Python values each row is its own
    assert ag.convert(tables)(2, 2, [1, 1]) == tables(2, 2, [1, 1]) == (
        [[9, 0], [0, 0]], [[9, 0], [0, 0]], [[9, 1], [9, 1]], [9, 1])
    code = ag.to_code(comprehension_markings)
    assert code.count('invariant=True') == 4, code
    for marked in ("(lambda _: ag__.repeat([0], m)), None, '_', invariant=True)",
                   "(lambda _: 0), None, '_', invariant=True)",
                   "(lambda _: 0.5), None, '_', invariant=True)"):
        assert marked in code, (marked, code)
    for unmarked in ("(lambda _: row), None, '_')", "(lambda j: j), None, 'j')",
                     "(lambda i: ag__.repeat([i], 3)), None, 'i')"):
        assert unmarked in code, (unmarked, code)
