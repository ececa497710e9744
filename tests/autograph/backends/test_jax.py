"""The JAX backend: converted control flow under jax.jit, vmap and grad equals plain Python."""

import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograph as ag
from autograph import backends
from autograph.backends import jax as ag_jax
from autograph.errors import LoopVariableError
from autograph.errors import StagingError
from autograph.impl import api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def first_negative(xs):
    for i, x in enumerate(xs):
        if x < 0:
            return i
    return -1


def skip_odd_sum(n):
    total = 0
    for i in range(n):
        if i % 2:
            continue
        if i > 10:
            break
        total += i
    return total


def python_range_poly(x):
    for _ in range(3):
        x = x * x + 1.0
    return x


def piecewise(x):
    if x > 0:
        y = x * x
    else:
        y = -x
    return y


def test_engages_by_itself_in_a_fresh_process(tmp_path):
    # No import of autograph.backends.jax: the first tracer that reaches converted code loads
    # it (an installed distribution also names it as an entry point).
    script = textwrap.dedent('''
        import jax, autograph
        def f(n):
            s = 0
            while n > 0:
                s = s + n
                n = n - 1
            return s
        print(int(jax.jit(autograph.convert(f))(4)))
    ''')
    path = tmp_path / 'script.py'
    path.write_text(script)
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         env=env, check=True, timeout=120).stdout
    assert out == '10\n'


@pytest.mark.parametrize('n', [1, 6, 27])
def test_while_and_if_become_lax(n):
    jitted = jax.jit(ag.convert(collatz))
    assert int(jitted(n)) == collatz(n)
    text = str(jax.make_jaxpr(ag.convert(collatz))(n))
    assert 'while[' in text and 'cond[' in text


@pytest.mark.parametrize('xs', [[1.0, 2.0, -3.0], [1.0, 2.0], [-1.0]])
def test_return_inside_for_over_array(xs):
    assert int(jax.jit(ag.convert(first_negative))(jnp.array(xs))) == first_negative(xs)


@pytest.mark.parametrize('n', [0, 5, 20])
def test_break_continue_over_traced_range(n):
    assert int(jax.jit(ag.convert(skip_odd_sum))(n)) == skip_odd_sum(n)


def test_python_range_stays_python():
    text = str(jax.make_jaxpr(ag.convert(python_range_poly))(2.0))
    assert 'while[' not in text
    assert float(jax.jit(ag.convert(python_range_poly))(0.5)) == pytest.approx(
        python_range_poly(0.5))


def test_builtins_on_tracers():
    def f(x, v):
        return (max(x, 2.0), min(x, 1.0), abs(-x), int(x), float(x), sum(v), max(v), min(v),
                any(v > 2), all(v > 0), len(v))

    v = [1.0, 3.0, 2.0]
    got = jax.jit(ag.convert(f))(jnp.float32(2.5), jnp.array(v))
    want = f(2.5, np.array(v))
    assert [float(g) for g in got] == [float(w) for w in want]
    assert got[3].dtype == jnp.int32


def test_zip_and_enumerate_over_tracers():
    def dot(xs, ys):
        total = 0.0
        for i, (x, y) in enumerate(zip(xs, ys)):
            total += x * y * i
        return total

    xs, ys = [1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]
    assert float(jax.jit(ag.convert(dot))(jnp.array(xs), jnp.array(ys))) == dot(xs, ys)


def test_print_becomes_debug_print(capfd):
    def count(n):
        i = 0
        while i < n:
            print('i =', i)
            i += 1
        return i

    jax.jit(ag.convert(count))(3)
    jax.effects_barrier()
    assert capfd.readouterr().out == 'i = 0\ni = 1\ni = 2\n'


def positive(x):
    assert x > 0, 'x must be positive'
    return x * 2


def test_failing_assert_stops_the_call_with_the_message():
    assert float(ag_jax.jit(positive)(1.5)) == 3.0
    with pytest.raises(AssertionError) as info:
        ag_jax.jit(positive)(-1.0)
    assert str(info.value) == 'x must be positive'
    with pytest.raises(jax.errors.JaxRuntimeError, match='x must be positive'):
        jax.jit(ag.convert(positive))(-1.0)


def test_weak_types_follow_jax_promotion():
    def total(xs):
        s = 0.0
        for x in xs:
            s = s + x
        return s

    result = jax.jit(ag.convert(total))(jnp.arange(4, dtype=jnp.float16))
    assert result.dtype == jnp.float16 and float(result) == 6.0

    def branch(x):
        y = 1.0 if x > 0 else x
        return y

    assert jax.jit(ag.convert(branch))(jnp.float16(-2)).dtype == jnp.float16


def half_steps(n):
    s = jnp.int32(0)
    i = 0
    while i < n:
        s = s + 0.5
        i += 1
    return s


def test_an_int_that_the_body_makes_a_float_is_carried_as_the_float():
    # Python's `s` becomes a float in the first iteration; the loop is traced again with the
    # entry value cast (jax_widen.py), as the runtime's loops widen it
    assert half_steps(3) == 1.5
    result = jax.jit(ag.convert(half_steps))(3)
    assert result.dtype == jnp.float32 and float(result) == 1.5
    assert float(jax.jit(ag.convert(half_steps))(0)) == 0.0


def truncating_steps(n):
    s = jnp.float32(0)
    i = 0
    while i < n:
        s = jnp.int32(s) + 1
        i += 1
    return s


def test_real_dtype_change_is_the_usual_error():
    with pytest.raises(LoopVariableError) as e:
        jax.jit(ag.convert(truncating_steps))(3)
    message = str(e.value)
    assert message.startswith("'s' has type float32[] before the loop, but type int32[] after "
                              'one iteration'), message
    assert 'test_jax.py' in message and 'while i < n:' in message


def bool_then_index(xs, key):
    found = False
    for i in range(len(xs)):
        if xs[i] == key:
            found = i
    return found


def branch_bool_or_index(xs, key):
    if xs[2] == key:
        return 2
    return False


@pytest.mark.parametrize('key', [3, 9])
def test_a_bool_beside_an_int_joins_as_the_int_in_loops_and_branches(key):
    # Python's bool is an int (False == 0): the staged value is the int
    xs = [1, 2, 3, 4]
    for fn in (bool_then_index, branch_bool_or_index):
        expected = fn(xs, key)
        staged = jax.jit(ag.convert(fn))(jnp.asarray(xs), key)
        assert staged.dtype.kind == 'i' and int(staged) == expected


def squares(n):
    out = []
    for i in range(n):
        out.append(i * i)
    return out


def test_list_in_staged_loop_says_how_to_write_it():
    assert squares(3) == [0, 1, 4]
    with pytest.raises(StagingError) as e:
        jax.jit(ag.convert(squares))(3)
    assert "The list 'out' is appended to" in str(e.value)
    assert 'lax.scan' in str(e.value) and 'out = out.at[i].set(value)' in str(e.value)
    assert 'set_loop_options(maximum_iterations=N)' in str(e.value)


def test_grad_through_if_and_python_range():
    def f(x):
        x = piecewise(x)
        return python_range_poly(x)

    converted = ag.convert(f)
    for x in (-1.5, 0.5):
        expected = jax.grad(f)(x)  # plain JAX: grad of Python control flow on concrete values
        assert float(jax.jit(jax.grad(converted))(x)) == pytest.approx(float(expected))


def doubling(x):
    while x < 10.0:
        x = x * 2.0
    return x


def test_grad_of_a_staged_while():
    assert float(jax.grad(ag.convert(doubling))(1.0)) == 16.0  # concrete: plain Python
    # autograph.backends.jax.jit stages it reverse-differentiable (test_jax_while_grad.py)
    assert float(jax.grad(ag_jax.jit(doubling))(1.0)) == 16.0
    # plain jax.jit stages JAX's lax.while_loop: forward mode works, reverse mode is JAX's
    # own error (no private hook rewrites it)
    _, tangent = jax.jvp(jax.jit(ag.convert(doubling)), (1.0,), (1.0,))
    assert float(tangent) == 16.0
    with pytest.raises(ValueError, match='Reverse-mode differentiation does not work'):
        jax.grad(jax.jit(ag.convert(doubling)))(1.0)


def bounded_growth(x):
    steps = 0
    while x < 10.0:
        ag.experimental.set_loop_options(maximum_iterations=100)
        x = x * 1.5 + jnp.sin(x)
        steps += 1
    return x * steps


def python_bounded_growth(x, bound=100):
    # the same loop written with the bound in Python (plain jax.grad differentiates it)
    steps = 0
    while x < 10.0 and steps < bound:
        x = x * 1.5 + jnp.sin(x)
        steps += 1
    return x * steps


def test_grad_through_bounded_while():
    # set_loop_options(maximum_iterations=N) makes the staged while a scan of at most N steps
    # that reverse mode differentiates (lax.while_loop has no reverse-mode derivative).
    converted = ag.convert(bounded_growth)
    for x in (0.3, 5.0, 12.0):
        expected = float(jax.grad(python_bounded_growth)(x))
        assert float(jax.grad(jax.jit(converted))(x)) == pytest.approx(expected, rel=1e-5)
        assert float(jax.jit(jax.grad(converted))(x)) == pytest.approx(expected, rel=1e-5)
        assert float(jax.jit(converted)(x)) == pytest.approx(float(python_bounded_growth(x)),
                                                           rel=1e-6)
    # the loop really is a scan, and the gradient agrees with finite differences
    primitives = {e.primitive.name for e in jax.make_jaxpr(converted)(1.0).jaxpr.eqns}
    assert 'scan' in primitives and 'while' not in primitives
    h = 1e-3
    fd = (python_bounded_growth(1.0 + h) - python_bounded_growth(1.0 - h)) / (2 * h)
    assert float(jax.grad(jax.jit(converted))(1.0)) == pytest.approx(float(fd), rel=1e-2)


def bounded_count(n, limit):
    s = 0.0
    i = 0
    while i < n:
        ag.experimental.set_loop_options(maximum_iterations=limit)
        s = s + jnp.float16(0.5)
        if s > 40.0:
            break
        i += 1
    return s, i


def test_bounded_while_stops_at_the_bound_break_or_test():
    # Below the bound, the loop is the plain loop; at the bound it stops there, as
    # tf.while_loop(maximum_iterations=...) does. 200 steps are grouped in blocks (>64).
    for limit in (1, 3, 200):
        jitted = jax.jit(ag.convert(bounded_count), static_argnums=1)
        for n in (0, 2, 7, 150):
            s, i = jitted(n, limit)
            expected_s, expected_i = bounded_count(min(n, limit), limit)
            assert (float(s), int(i)) == (float(expected_s), expected_i)
            assert s.dtype == jnp.float16  # the weak 0.0 follows the loop's float16


def test_vmap():
    ns = jnp.arange(1, 9)
    assert jax.vmap(ag.convert(collatz))(ns).tolist() == [collatz(int(n)) for n in ns]
    assert jax.jit(jax.vmap(ag.convert(piecewise)))(jnp.array([-2.0, 3.0])).tolist() == [2, 9]


def test_jax_modules_are_owned_and_never_converted():
    assert set(ag_jax.BACKEND.owned_modules) >= {'jax', 'jaxlib', 'flax', 'optax', 'equinox'}
    assert ag_jax.BACKEND in backends.registered_backends()
    for module in ('jax', 'jax.numpy', 'jax._src.lax.lax', 'jaxlib', 'flax.linen', 'optax'):
        assert api._module_is_allowlisted(module), module


def test_concrete_arrays_run_as_python():
    assert not ag_jax.BACKEND.is_staged(jnp.ones(3))
    assert ag.convert(collatz)(jnp.int32(6)) == collatz(6)


def test_jit_takes_jax_jit_arguments():
    def power(x, n):
        y = 1.0
        for _ in range(n):
            y = y * x
        return y

    jitted = ag_jax.jit(power, static_argnums=1)
    assert float(jitted(2.0, 3)) == 8.0
    assert float(ag_jax.jit(static_argnames='n')(power)(2.0, n=4)) == 16.0


def test_list_with_maximum_iterations_becomes_a_buffer():
    # What a loop under set_loop_options(maximum_iterations=4) passes to for_stmt.
    from autograph import operators  # pylint: disable=import-outside-toplevel

    def squares_bounded(n):
        state = {'out': [10]}

        def body(i):
            state['out'] = operators.list_append(state['out'], i * i)

        operators.for_stmt(operators.range_(n), None, body, lambda: (state['out'],),
                           lambda v: state.update(out=v[0]), ('out',),
                           {'maximum_iterations': 4})
        return state['out']

    out = jax.jit(squares_bounded)(3)
    # exactly the elements, never the padded buffer (the buffer has 5 slots)
    assert out.buffer.shape == (5,)
    assert out.tolist() == [10, 0, 1, 4] and len(out) == 4
    assert [int(v) for v in out] == [10, 0, 1, 4]
    assert np.asarray(out).tolist() == [10, 0, 1, 4] == jnp.asarray(out).tolist()
    assert repr(out) == "StagedList('out', [10, 0, 1, 4])"


def sum_of_squares_bounded(n):
    out = []
    i = 0
    while i < n:
        ag.experimental.set_loop_options(maximum_iterations=8)
        out.append(i * i)
        i += 1
    return jnp.sum(jnp.asarray(out))


def test_a_staged_list_has_no_array_inside_the_computation():
    with pytest.raises(TypeError, match="staged list 'out' inside the staged computation"):
        jax.jit(ag.convert(sum_of_squares_bounded))(4)


def converted_inside_jit(x):
    if x > 0:
        return x
    return -x


def test_convert_above_jit_is_a_clear_error():
    with pytest.raises(ag.ConversionError) as e:
        ag.convert(jax.jit(converted_inside_jit))
    message = str(e.value)
    assert "got 'converted_inside_jit' already wrapped by" in message
    assert 'jax.jit(autograph.convert(converted_inside_jit))' in message
    assert float(jax.jit(ag.convert(converted_inside_jit))(-2.0)) == 2.0


def weighted_sum(xs):
    total = 0.0
    for i, x in enumerate(xs):
        total = total + x * x * i
    return total


def test_for_without_break_is_a_fori_loop_that_grad_goes_through():
    xs = jnp.array([1.0, 2.0, 3.0])
    text = str(jax.make_jaxpr(ag.convert(weighted_sum))(xs))
    assert 'scan[' in text and 'while[' not in text
    grad = jax.jit(jax.grad(ag.convert(weighted_sum)))(xs)
    assert grad.tolist() == [0.0, 4.0, 12.0]  # d/dx_i of x_i^2 * i
    assert float(jax.jit(ag.convert(weighted_sum))(xs)) == weighted_sum([1.0, 2.0, 3.0])


def test_for_with_break_is_a_while_loop():
    text = str(jax.make_jaxpr(ag.convert(skip_odd_sum))(5))
    assert 'while[' in text


@pytest.mark.parametrize('start,stop_delta,step', [
    (0, 5, 1), (1, 5, 1), (3, -2, 1), (-4, 0, 1), (5, -3, -1), (2, 4, -1), (1, 7, 2), (9, -7, -3),
    (4, 0, 1), (4, 0, -1)])
def test_staged_range_length_equals_python_range(start, stop_delta, step):
    # A traced stop; step 1 and -1 take the path without division.
    stop = start + stop_delta
    length = jax.jit(lambda s: ag_jax.staged_range(start, s, step).length())(stop)
    assert int(length) == len(range(start, stop, step))


def first_positive_index(xs, limit):
    i = 0
    found = False
    while i < limit and not found:
        if xs[i] > 0:
            found = True
            continue
        i += 1
    return i, found


def _primitives(jaxpr):
    names = []
    for eqn in jaxpr.eqns:
        names.append(eqn.primitive.name)
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else (param,):
                inner = getattr(sub, 'jaxpr', sub)
                if hasattr(inner, 'eqns'):
                    names.extend(_primitives(inner))
    return names


def test_branches_without_equations_are_a_select_not_a_cond():
    xs = jnp.array([-1.0, -2.0, 3.0, 4.0])
    for limit in (0, 2, 4):
        got = jax.jit(ag.convert(first_positive_index))(xs, limit)
        assert tuple(map(int, got)) == first_positive_index(list(xs.tolist()), limit)
    # `and` in the test, the `found = True` flag, `continue` and `i += 1` compute (almost)
    # nothing in their branches: selects, no lax.cond.
    jaxpr = jax.make_jaxpr(ag.convert(first_positive_index))(xs, 4).jaxpr
    assert 'cond' not in _primitives(jaxpr), _primitives(jaxpr)


def scalar_update(x, k):
    if x > 0:
        y = x * 3.0 + k
    else:
        y = k - x
    return y


def vector_update(x, k):
    if x[0] > 0:
        y = x * 3.0 + k
    else:
        y = k - x
    return y


def dividing_update(x, k):
    if x > 0:
        y = k / x
    else:
        y = k
    return y


def test_a_few_cheap_scalar_equations_are_a_select():
    # a lax.cond is two more computations for XLA to compile: branches of a few cheap scalar
    # equations become one select; vectors and divisions keep the cond.
    for x in (-2.0, 0.0, 1.5):
        for fn in (scalar_update, dividing_update):
            assert float(jax.jit(ag.convert(fn))(x, 4.0)) == pytest.approx(fn(x, 4.0))
        xs = jnp.array([x, 1.0])
        np.testing.assert_array_equal(jax.jit(ag.convert(vector_update))(xs, 4.0),
                                      vector_update(np.array([x, 1.0]), 4.0))
    assert 'cond' not in _primitives(jax.make_jaxpr(ag.convert(scalar_update))(1.0, 4.0).jaxpr)
    assert 'cond' in _primitives(
        jax.make_jaxpr(ag.convert(vector_update))(jnp.ones(2), 4.0).jaxpr)
    assert 'cond' in _primitives(jax.make_jaxpr(ag.convert(dividing_update))(1.0, 4.0).jaxpr)


def positive_flag(x):
    seen = False
    if x > 0:
        seen = True
    return seen


def negative_flag(x):
    seen = True
    if x > 0:
        seen = False
    return seen


def test_a_flag_set_in_a_branch_is_the_condition():
    for fn, expected in ((positive_flag, ['gt']), (negative_flag, ['gt', 'not'])):
        for x in (-1.0, 0.0, 2.0):
            assert bool(jax.jit(ag.convert(fn))(x)) == fn(x)
        assert _primitives(jax.make_jaxpr(ag.convert(fn))(1.0).jaxpr) == expected


def loud_branch(x):
    if x > 0:
        print('positive', x)
        y = x
    else:
        y = -x
    return y


def test_branch_with_a_print_stays_a_cond(capfd):
    f = jax.jit(ag.convert(loud_branch))
    assert float(f(-2.0)) == 2.0
    jax.effects_barrier()
    assert 'positive' not in capfd.readouterr().out
    assert float(f(3.0)) == 3.0
    jax.effects_barrier()
    assert 'positive' in capfd.readouterr().out


# -- set_loop_options(maximum_iterations=N): the loop stops after N iterations ---------------

def collatz_bounded(n, limit):
    steps = 0
    while n != 1:
        ag.experimental.set_loop_options(maximum_iterations=limit)
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps, n


def squares_bounded(xs):
    out = []
    for x in xs:
        ag.experimental.set_loop_options(maximum_iterations=3)
        out.append(x * x)
    return out


@pytest.mark.parametrize('n, limit', [(27, 5), (27, 200), (6, 3), (1, 4), (7, 0)])
def test_maximum_iterations_bounds_a_jax_while_loop(n, limit):
    steps, last = 0, n  # the plain loop, stopped after `limit` iterations
    while last != 1 and steps < limit:
        last = last // 2 if last % 2 == 0 else 3 * last + 1
        steps += 1
    got = jax.jit(ag.convert(collatz_bounded), static_argnums=1)(n, limit)
    assert (int(got[0]), int(got[1])) == (steps, last)
    traced_bound = jax.jit(ag.convert(collatz_bounded))(n, limit)  # a traced bound
    assert (int(traced_bound[0]), int(traced_bound[1])) == (steps, last)
    # Python values: the loop runs as Python and the option has no effect (as in TensorFlow).
    assert ag.convert(collatz_bounded)(n, limit) == collatz_bounded(n, limit)


def test_maximum_iterations_makes_an_appended_list_a_buffer():
    xs = jnp.array([1.0, 2.0, 3.0, 4.0, 5.0])
    out = jax.jit(ag.convert(squares_bounded))(xs)
    # A buffer of 3 slots, all written: the loop stopped after 3 of the 5 elements.
    assert jnp.asarray(out).tolist() == [1.0, 4.0, 9.0]
    assert squares_bounded([1.0, 2.0]) == [1.0, 4.0]  # Python: unbounded


def appends_in_a_branch(x):
    values = [x]
    if x > 0:
        values.append(x * 2)
    return len(values)


def test_a_list_appended_in_a_traced_branch_says_why_and_the_fix():
    with pytest.raises(StagingError) as info:
        ag_jax.jit(appends_in_a_branch)(jnp.asarray(3))
    message = str(info.value)
    assert message.startswith(
        "'values' is a Python list appended to (or popped from) in a branch of a staged if "
        "statement, so its length depends on the staged condition, and backend 'jax' cannot "
        "make it a staged list without a bound on its length.")
    assert '`l.append(a if c else b)`' in message
    assert 'in appends_in_a_branch' in message


def squares_traced_bound(xs, limit):
    out = []
    for x in xs:
        ag.experimental.set_loop_options(maximum_iterations=limit)
        out.append(x * x)
    return out


def test_list_buffer_needs_a_python_int_bound():
    xs = jnp.array([1.0, 2.0, 3.0])
    with pytest.raises(StagingError) as e:
        jax.jit(ag.convert(squares_traced_bound))(xs, 2)
    assert "The list 'out'" in str(e.value) and 'Python int' in str(e.value)
    out = jax.jit(ag.convert(squares_traced_bound), static_argnums=1)(xs, 2)
    assert jnp.asarray(out).tolist() == [1.0, 4.0]
    out = jax.jit(ag.convert(squares_traced_bound), static_argnums=1)(xs, np.int64(2))
    assert jnp.asarray(out).tolist() == [1.0, 4.0]  # a numpy integer is an int


def check_then_print(x, n):
    for i in range(n % 3):
        u = i + x
    v = u + 1  # UnboundLocalError when the loop ran no iteration
    if x == x:
        print('after the check', x)
    assert x > 0, 'x must be positive'
    if x > -100:
        print('after the assert', x)
    return v


def test_a_failing_staged_check_stops_the_prints_after_it(capsys):
    # Found by the JAX fuzz run (seed 'jax:558'): unordered checks let later prints run.
    jitted = ag_jax.jit(check_then_print)
    with pytest.raises(UnboundLocalError, match="'u'"):
        jitted(jnp.asarray(5), jnp.asarray(0))
    jax.effects_barrier()
    with pytest.raises(AssertionError, match='x must be positive'):
        jitted(jnp.asarray(-1), jnp.asarray(1))
    jax.effects_barrier()
    assert capsys.readouterr().out == 'after the check -1\n'
    assert int(jitted(jnp.asarray(2), jnp.asarray(1))) == 3
    jax.effects_barrier()
    assert capsys.readouterr().out == 'after the check 2\nafter the assert 2\n'


def steps_while_both(x, y, limit):
    n = 0
    while n < limit and jnp.any(x * x + y * y <= 4.0):
        x, y = x * x - y * y + 0.25, 2.0 * x * y
        n += 1
    return n


def either_positive(x, y):
    if x > 0 or abs(y) > 1.5:
        return 1
    return 0


def logged(x):
    print('evaluated', x)
    return x > 0


def lazy_when_impure(x, y):
    if x > 0 and logged(y):
        return 1
    return 0


def test_pure_right_operands_are_evaluated_eagerly_without_a_cond():
    x = jnp.linspace(-1.0, 1.0, 8)
    plain = np.linspace(-1.0, 1.0, 8, dtype=np.float32)
    for limit in (0, 3, 50):
        with np.errstate(all='ignore'):  # the points that escape overflow to inf
            expected = steps_while_both(plain, plain, limit)
        assert int(jax.jit(ag.convert(steps_while_both))(x, x, limit)) == expected
    primitives = _primitives(jax.make_jaxpr(ag.convert(steps_while_both))(x, x, 3).jaxpr)
    assert 'cond' not in primitives and 'and' in primitives, primitives
    for a in (-1.0, 0.0, 2.0):
        for b in (-2.0, 0.5, 3.0):
            assert int(jax.jit(ag.convert(either_positive))(a, b)) == either_positive(a, b)
    assert 'cond' not in str(jax.make_jaxpr(ag.convert(either_positive))(1.0, 2.0))


def test_an_impure_right_operand_stays_lazy(capfd):
    assert 'cond' in str(jax.make_jaxpr(ag.convert(lazy_when_impure))(1.0, 2.0))
    f = jax.jit(ag.convert(lazy_when_impure))
    assert int(f(-1.0, 2.0)) == 0
    jax.effects_barrier()
    assert 'evaluated' not in capfd.readouterr().out  # Python skips logged(y): so does this
    assert int(f(1.0, 2.0)) == 1
    jax.effects_barrier()
    assert 'evaluated 2.0' in capfd.readouterr().out



def count_up_to(x):
    total = 0
    for i in range(1, x + 1):
        total += i
    return total


def checked_factorial(number):
    # TheAlgorithms' factorial: the ValueError for a float runs before the range of it
    if number != int(number):
        raise ValueError('factorial() only accepts integral values')
    value = 1
    for i in range(1, number + 1):
        value *= i
    return value


def test_range_of_a_float_raises_pythons_type_error_when_it_runs():
    # a range of a traced float counted in floats: range(1, 3.5) summed to 6.0
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        ag_jax.jit(count_up_to)(jnp.asarray(2.5))
    f = ag_jax.jit(checked_factorial)
    with pytest.raises(ValueError, match='only accepts integral values'):
        f(jnp.asarray(2.5))
    assert int(ag_jax.jit(checked_factorial)(jnp.asarray(4))) == 24
