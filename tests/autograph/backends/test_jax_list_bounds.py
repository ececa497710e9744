"""Lists of a staged size under JAX: `set_list_options(name, maximum_size=N)` bounds them.

Each function runs plain, converted with Python values, and staged under
`autograph.backends.jax.jit` (checks as values) and plain `jax.jit`; staged equals plain,
and raises where plain Python raises.
"""

import jax
import jax.numpy as jnp
import pytest

import autograph as ag
from autograph.backends import jax as ag_jax
from autograph.errors import ListFullError
from autograph.errors import StagingError
from autograph.experimental import set_list_options
from tests.realcode.lists import median_of_residues_bounded


def fib(n):
    memo = [0] * (n + 1)
    set_list_options(memo, maximum_size=40)
    if n > 0:
        memo[1] = 1
    for i in range(2, n + 1):
        memo[i] = memo[i - 1] + memo[i - 2]
    return memo[n]


def range_stats(n):
    xs = list(range(1, n + 1))
    set_list_options(xs, maximum_size=32)
    return sum(xs), max(xs), min(xs), len(xs), sum(xs, 100)


def odd_squares(n):
    ys = [i * i for i in range(n) if i % 2]
    set_list_options(ys, maximum_size=32)
    return sum(ys), len(ys), any(ys), all(ys)


def sorted_down(n):
    ys = [(i * 7) % 5 for i in range(n)]
    set_list_options(ys, maximum_size=16)
    return list(sorted(ys, reverse=True)), list(sorted(ys))


def read_at(n, k):
    memo = [3] * n
    set_list_options(memo, maximum_size=16)
    return memo[k]


def longer_than_bound(n):
    memo = [0] * n
    set_list_options(memo, maximum_size=5)
    return len(memo)


def max_of_range(n):
    xs = list(range(n))
    set_list_options(xs, maximum_size=8)
    return max(xs)


def _plain(value):
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, ag_jax.StagedList):
        return value.tolist()
    return value.tolist() if hasattr(value, 'tolist') else value


STAGINGS = {'ag_jit': ag_jax.jit, 'jax_jit': lambda f: jax.jit(ag.convert(f))}


@pytest.mark.parametrize('staging', sorted(STAGINGS))
@pytest.mark.parametrize('fn, args', [
    (fib, (0,)), (fib, (1,)), (fib, (10,)), (fib, (39,)),
    (range_stats, (1,)), (range_stats, (7,)), (range_stats, (32,)),
    (odd_squares, (0,)), (odd_squares, (1,)), (odd_squares, (9,)),
    (sorted_down, (0,)), (sorted_down, (6,)), (sorted_down, (16,)),
    (read_at, (4, 0)), (read_at, (4, 3)), (read_at, (4, -4)),
])
def test_a_bounded_list_of_a_staged_size_equals_plain_python(fn, args, staging):
    expected = fn(*args)
    assert ag.convert(fn)(*args) == expected  # Python values: the directive does nothing
    got = STAGINGS[staging](fn)(*(jnp.int32(a) for a in args))
    assert _plain(got) == _plain(expected)


@pytest.mark.parametrize('fn, args, error', [
    (read_at, (4, 4), IndexError), (read_at, (4, -5), IndexError),
    (max_of_range, (0,), ValueError),
])
def test_a_bounded_list_raises_where_python_raises(fn, args, error):
    with pytest.raises(error) as plain:
        fn(*args)
    staged = ag_jax.jit(fn)
    with pytest.raises(error) as got:
        staged(*(jnp.int32(a) for a in args))
    assert str(got.value) == str(plain.value)
    good = (4, 1) if fn is read_at else (3,)  # the next call with good inputs is not disturbed
    assert int(staged(*(jnp.int32(a) for a in good))) == fn(*good)


def test_a_list_longer_than_its_bound_raises_list_full_error_naming_it():
    assert longer_than_bound(7) == 7  # Python's list grows
    staged = ag_jax.jit(longer_than_bound)
    assert int(staged(jnp.int32(5))) == 5
    with pytest.raises(ListFullError, match=r"The staged list 'memo' holds at most 5 elements"):
        staged(jnp.int32(6))
    assert int(staged(jnp.int32(-3))) == 0  # [0] * -3 is []
    assert isinstance(ListFullError('l', 1), ValueError)


def two_appends_per_step(n):
    return len(two_appends_per_step_list(n))


def test_appending_past_a_loop_bound_buffer_raises_instead_of_dropping():
    # the buffer has 3 slots (one a step); the second append of a step needs more
    staged = ag_jax.jit(two_appends_per_step)
    assert int(staged(jnp.int32(1))) == 2
    with pytest.raises(ListFullError, match="'out' holds at most 3 elements"):
        staged(jnp.int32(2))


def pops(n):
    out = [1]
    for i in range(n):
        ag.experimental.set_loop_options(maximum_iterations=4)
        out.pop()
    return len(out)


def test_pop_from_an_empty_staged_list_raises_pythons_index_error():
    with pytest.raises(IndexError, match='pop from empty list'):
        pops(2)
    staged = ag_jax.jit(pops)
    assert int(staged(jnp.int32(1))) == 0
    with pytest.raises(IndexError, match='pop from empty list'):
        staged(jnp.int32(2))


def unbounded(n):
    memo = [0] * n
    return len(memo)


def unbounded_range(n):
    return sum(list(range(n)))


def sliced(n):
    memo = [1] * n
    set_list_options(memo, maximum_size=8)
    return memo[1:]


@pytest.mark.parametrize('fn, words', [
    (unbounded, 'set_list_options(name, maximum_size=N) on the line after the assignment'),
    (unbounded_range, 'set_list_options(name, maximum_size=N) on the line after the assignment'),
    (sliced, "Slicing the staged list 'memo'"),
])
def test_what_cannot_stage_says_how_to_write_it(fn, words):
    with pytest.raises((StagingError, TypeError)) as e:
        ag_jax.jit(fn)(jnp.int32(3))
    assert words in str(e.value)


def maximum_size_traced(n):
    memo = [0] * n
    set_list_options(memo, maximum_size=n)
    return len(memo)


def test_maximum_size_must_be_a_python_int():
    assert ag.convert(maximum_size_traced)(3) == 3
    with pytest.raises(TypeError, match=r"takes a Python int \(the most elements 'memo' will"):
        ag_jax.jit(maximum_size_traced)(jnp.int32(3))


def test_a_staged_list_returned_reads_like_a_list_outside():
    out = ag_jax.jit(sorted_down)(jnp.int32(6))[1]
    assert len(out) == 6 and out[5] == 4 and out[-6] == 0
    with pytest.raises(IndexError, match='list index out of range'):
        out[6]  # pylint: disable=pointless-statement


def test_a_list_bounded_before_a_loop_takes_its_appends():
    # `values = []`, set_list_options(values, maximum_size=32), appends in a loop after it
    staged = ag_jax.jit(median_of_residues_bounded)
    for n in (1, 5, 32):
        assert tuple(int(v) for v in staged(jnp.int32(n))) == median_of_residues_bounded(n)
    with pytest.raises(ListFullError, match="'values' holds at most 32 elements"):
        staged(jnp.int32(33))
    with pytest.raises(IndexError):  # ordered[0] of an empty list
        median_of_residues_bounded(0)
    with pytest.raises(IndexError):
        staged(jnp.int32(0))


def fill(n):
    memo = [0] * 8
    for i in range(n):
        memo[i] = i * 2
    return memo[n - 1]


def test_checks_under_plain_jit_call_back_only_when_they_fail():
    # each `memo[i] = ...` checks its index; under plain jax.jit the check's callback sits in
    # a lax.cond on the check's result, so it runs only when a check fails
    text = str(jax.make_jaxpr(ag.convert(fill))(jnp.int32(5)))
    loop = text[text.index('while'):]
    assert 'cond' in loop and loop.index('cond') < loop.index('debug_callback')
    staged = jax.jit(ag.convert(fill))
    assert int(staged(jnp.int32(5))) == fill(5) == 8
    with pytest.raises(Exception, match='list assignment index out of range'):
        staged(jnp.int32(9))  # the first failing check, as Python's first error
    assert int(staged(jnp.int32(8))) == fill(8) == 14


def test_under_plain_jit_a_full_list_raises_when_it_is_read():
    # no callback per append under plain jax.jit: the length counts on past the buffer
    staged = jax.jit(ag.convert(two_appends_per_step_list))
    assert staged(jnp.int32(1)).tolist() == two_appends_per_step_list(1)
    out = staged(jnp.int32(2))
    with pytest.raises(ListFullError, match="'out' holds at most 3 elements"):
        out.tolist()
    with pytest.raises(ListFullError):
        len(out)
    assert 'debug_callback' not in str(jax.make_jaxpr(ag.convert(two_appends_per_step_list))(
        jnp.int32(2)))


def two_appends_per_step_list(n):
    out = []
    for i in range(n):
        ag.experimental.set_loop_options(maximum_iterations=3)
        out.append(i)
        out.append(-i)
    return out


def positives(xs):
    out = []
    for x in xs:
        if x > 0:
            out.append(x * 2)
    return out


def with_negations(xs):
    out = [0]
    for x in xs:
        out.append(x)
        if x > 2:
            out.append(-x)  # two appends in one iteration: the bound counts both
    return len(out), sum(out)


def test_a_for_loop_over_an_array_bounds_its_list_by_its_length():
    # no set_loop_options needed (it was refused): a for loop over an array of a static
    # length appends no more than its length times the appends of one iteration
    for xs in ([3, -1, 4, -5, 6], [-1, -2], [5, 5, 5]):
        assert list(ag_jax.jit(positives)(jnp.array(xs)).tolist()) == positives(xs)
        got = ag_jax.jit(with_negations)(jnp.array(xs))
        assert tuple(int(v) for v in got) == with_negations(xs)
