"""Counted loops whose body reads xs[i] and writes ys[i] run as lax.scan over xs and ys.

Every function runs three ways on the same numbers: plain Python (numpy), converted under
jax.jit, and, where it matters, jax.grad of both. The jaxpr is checked too: the rewritten
loop has no indexing left (the test fails if the rewrite does not happen), and a loop it
must not rewrite still gives plain Python's result.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import autograph as ag
from autograph.backends import jax_values
from tests.autograph.backends.test_jax import _primitives

def running_sum(xs):  # reads only: xs become the scan's xs, no index left
    s = jnp.zeros(2, jnp.float32)
    for x in xs:
        s = s + x
    return s


def doubled_rows(xs):  # reads and a scatter write (.at[i].set): xs in, ys out
    out = jnp.zeros_like(xs)
    for i, x in enumerate(xs):
        out = out.at[i].set(x * 2.0 + 1.0)
    return out


def prefix_sums(xs):  # a dynamic_update_slice write of a (1, 2) row, and a carried state
    out = jnp.zeros(xs.shape, jnp.float32)
    s = jnp.zeros(2, jnp.float32)
    for i, x in enumerate(xs):
        s = s + x
        out = lax.dynamic_update_slice(out, s[None], (i, 0))
    return out, s


def index_weighted(xs):  # the index is used besides indexing: it stays a carried counter
    s = jnp.float32(0.0)
    for i, x in enumerate(xs):
        s = s + i * x[0] - x[1]
    return s


def rows_of_two_arrays(xs):  # two arrays read at the index
    ys = xs * 3.0
    s = jnp.float32(0.0)
    for i, x in enumerate(xs):
        s = s + x[1] * ys[i][0]
    return s


def reads_its_own_output(xs):  # the buffer is read in the body: kept as a carried buffer
    out = jnp.zeros(xs.shape[0], jnp.float32)
    for i, x in enumerate(xs):
        out = out.at[i].set(x[0] + out[i - 1])
    return out


def longer_buffer(xs):  # a buffer with more rows than iterations: kept
    out = jnp.ones(xs.shape[0] + 1, jnp.float32)
    for i, x in enumerate(xs):
        out = out.at[i].set(x[1])
    return out


def shifted_read(xs):  # xs[i + 1] is not the row at the index: kept (and clamped, as in JAX)
    s = jnp.float32(0.0)
    for i, x in enumerate(xs):
        s = s + xs[i - 1][0] * x[1]
    return s


# name -> (function, whether all its indexing becomes the scan's xs and ys)
CASES = {fn.__name__: (fn, rewritten) for fn, rewritten in [
    (running_sum, True), (doubled_rows, True), (prefix_sums, True), (index_weighted, True),
    (rows_of_two_arrays, True), (reads_its_own_output, False), (longer_buffer, False),
    (shifted_read, False)]}


XS = np.array([[0.5, -1.0], [2.0, 0.25], [-3.0, 1.5], [1.0, 1.0], [0.75, -0.5]], np.float32)


_INDEXING = {'dynamic_slice', 'dynamic_update_slice', 'scatter', 'gather'}


@pytest.mark.parametrize('name', sorted(CASES))
def test_converted_equals_plain(name):
    fn, rewritten = CASES[name]
    expected = fn(jnp.asarray(XS))  # plain Python on concrete jax arrays
    got = jax.jit(ag.convert(fn))(jnp.asarray(XS))
    for e, g in zip(jax.tree_util.tree_leaves(expected), jax.tree_util.tree_leaves(got)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-6)
        assert np.asarray(g).dtype == np.asarray(e).dtype
    primitives = _primitives(jax.make_jaxpr(ag.convert(fn))(jnp.asarray(XS)).jaxpr)
    assert 'scan' in primitives
    left = _INDEXING.intersection(primitives)
    if rewritten:
        assert not left, left
    else:
        assert left  # the loop keeps its indexing: the rewrite would have been wrong


def _rnn(xs, w):
    state = jnp.zeros(2, jnp.float32)
    out = jnp.zeros((xs.shape[0], 2), jnp.float32)
    for i, x in enumerate(xs):
        state = jnp.tanh(x * w + state)
        out = out.at[i].set(state)
    return jnp.sum(out * out) + jnp.sum(state)


def _rnn_by_hand(xs, w):
    def step(state, x):
        state = jnp.tanh(x * w + state)
        return state, state
    state, out = lax.scan(step, jnp.zeros(2, jnp.float32), xs)
    return jnp.sum(out * out) + jnp.sum(state)


def test_grad_through_the_scan():
    xs, w = jnp.asarray(XS), jnp.float32(0.7)
    got = jax.jit(jax.grad(ag.convert(_rnn), argnums=(0, 1)))(xs, w)
    expected = jax.grad(_rnn_by_hand, argnums=(0, 1))(xs, w)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-5, atol=1e-6)
    # and the converted loop is the hand-written scan: the same equations
    assert (_primitives(jax.make_jaxpr(ag.convert(_rnn))(xs, w).jaxpr).count('scan')
            == 1)


def _printing(xs):
    total = jnp.float32(0.0)
    for x in xs:
        total = total + x[0]
        print('row', x[0])
    return total


def test_effects_in_the_body_stay_in_order(capfd):
    result = jax.jit(ag.convert(_printing))(jnp.asarray(XS))
    jax.effects_barrier()
    out = capfd.readouterr().out
    assert float(result) == pytest.approx(float(XS[:, 0].sum()))
    printed = [line.split()[1] for line in out.splitlines() if line.startswith('row')]
    assert printed == ['0.5', '2.0', '-3.0', '1.0', '0.75']


# -- how bodies are traced ------------------------------------------------------------------

def _branchy(xs):
    total = jnp.float32(0.0)
    for x in xs:
        if x[0] > 0:
            total = total + jnp.tanh(x[0]) * x[1]
        else:
            total = total - x[1]
    return total


def test_jaxs_internal_tracer_matches_make_jaxpr():
    # Bodies are traced with the function lax.cond uses (half make_jaxpr's cost), checked
    # once against make_jaxpr. From jax 0.9 (the JAX the test extra installs on Python 3.11
    # and later) it must be found: a JAX that moved it makes this fail, so that the slower
    # fallback is a decision, not an accident. Python 3.10 gets jax 0.6, which has no such
    # function: there make_jaxpr is used (test_make_jaxpr_fallback_gives_the_same_results).
    trace = jax_values._internal_tracer()
    if jax.__version_info__ < (0, 9):
        assert trace is None
        return
    assert trace is not None, 'jax {} has no partial_eval.trace_to_jaxpr of the known form'.format(
        jax.__version__)

    def check(y):
        fn = lambda i, z: (jnp.sin(y) * i + z, (z > 0, y))  # noqa: E731 - closes over y
        fast, fast_tree = trace(fn, (0, jnp.float32(1.0)))
        slow, shape = jax.make_jaxpr(fn, return_shape=True)(0, jnp.float32(1.0))
        assert str(fast.jaxpr) == str(slow.jaxpr)
        assert fast_tree == jax.tree_util.tree_structure(shape)
        assert len(fast.consts) == len(slow.consts) == 1  # y, a tracer of the outer jit
        return y

    jax.jit(check)(jnp.float32(2.0))


def test_make_jaxpr_fallback_gives_the_same_results(monkeypatch):
    xs = jnp.asarray(XS)
    expected = [float(jax.jit(ag.convert(fn))(xs)) for fn in (_branchy, index_weighted)]
    monkeypatch.setattr(jax_values, '_tracers', [None])  # a JAX without the internal tracer
    got = [float(jax.jit(ag.convert(fn))(xs)) for fn in (_branchy, index_weighted)]
    assert got == expected
    assert got == [float(_branchy(xs)), float(index_weighted(xs))]
