"""GPU-sized workloads for benchmarks/jax_lax.py: converted Python next to hand-written lax.

Each workload is a plain function on jax.numpy with data-dependent control flow (what
`jax.jit(autograph.convert(fn))` runs) and the lax a JAX user writes for it. Sizes are small
by default (a CPU smoke run) and GPU-sized with `python -m benchmarks.jax_lax --gpu-sized
--full`:

- mandelbrot_4096, mandelbrot_1024x1024: an escape-time loop over a batch of points,
  `while i < max_iter and jnp.any(inside)` (4,096 points; a 1024x1024 grid);
- rnn_512x1024: an RNN of 512 steps, hidden size 1024 (`for x in xs`, a scan);
- newton_2p20: Newton's square root on 2^20 elements with a convergence test in the loop;
- greedy_topk: greedy masked top-k (argmax, mask the winner, k times) over 2^16 scores.
"""
import collections

import jax.numpy as jnp
import numpy as np
from jax import lax

GpuWorkload = collections.namedtuple("GpuWorkload", "name fn hand make_inputs")


def mandelbrot(cr, ci, max_iter):
    zr = jnp.zeros_like(cr)
    zi = jnp.zeros_like(ci)
    count = jnp.zeros(cr.shape, jnp.int32)
    i = 0
    while i < max_iter and jnp.any(zr * zr + zi * zi <= 4.0):
        inside = zr * zr + zi * zi <= 4.0
        zr, zi = (jnp.where(inside, zr * zr - zi * zi + cr, zr),
                  jnp.where(inside, 2.0 * zr * zi + ci, zi))
        count = count + inside.astype(jnp.int32)
        i += 1
    return count


def mandelbrot_lax(cr, ci, max_iter):
    def body(state):
        i, zr, zi, count = state
        inside = zr * zr + zi * zi <= 4.0
        zr, zi = (jnp.where(inside, zr * zr - zi * zi + cr, zr),
                  jnp.where(inside, 2.0 * zr * zi + ci, zi))
        return i + 1, zr, zi, count + inside.astype(jnp.int32)

    def test(state):
        i, zr, zi, _ = state
        return (i < max_iter) & jnp.any(zr * zr + zi * zi <= 4.0)

    init = (0, jnp.zeros_like(cr), jnp.zeros_like(ci), jnp.zeros(cr.shape, jnp.int32))
    return lax.while_loop(test, body, init)[3]


def rnn(xs, h, kernel, recurrent):
    for x in xs:
        h = jnp.tanh(x @ kernel + h @ recurrent)
    return h


def rnn_lax(xs, h, kernel, recurrent):
    def step(h, x):
        return jnp.tanh(x @ kernel + h @ recurrent), None
    return lax.scan(step, h, xs)[0]


def newton_sqrt(a, tol):
    x = jnp.maximum(a, 1.0)
    i = 0
    while i < 100 and jnp.max(jnp.abs(x * x - a)) > tol:
        x = 0.5 * (x + a / x)
        i += 1
    return x, i


def newton_sqrt_lax(a, tol):
    def test(state):
        x, i = state
        return (i < 100) & (jnp.max(jnp.abs(x * x - a)) > tol)

    def body(state):
        x, i = state
        return 0.5 * (x + a / x), i + 1

    return lax.while_loop(test, body, (jnp.maximum(a, 1.0), 0))


def greedy_topk(scores, k):
    picked = jnp.full((16,), -1, jnp.int32)
    masked = scores
    j = 0
    while j < k:
        best = jnp.argmax(masked).astype(jnp.int32)
        picked = picked.at[j].set(best)
        masked = masked.at[best].set(-jnp.inf)
        j += 1
    return picked


def greedy_topk_lax(scores, k):
    def body(state):
        j, picked, masked = state
        best = jnp.argmax(masked).astype(jnp.int32)
        return j + 1, picked.at[j].set(best), masked.at[best].set(-jnp.inf)

    init = (0, jnp.full((16,), -1, jnp.int32), scores)
    return lax.while_loop(lambda s: s[0] < k, body, init)[1]


def _grid(shape):
    rng = np.random.default_rng(0)
    cr = rng.uniform(-2.0, 0.6, shape).astype(np.float32)
    ci = rng.uniform(-1.2, 1.2, shape).astype(np.float32)
    return cr, ci, np.int32(64)


def _rnn_inputs(steps, hidden):
    rng = np.random.default_rng(1)
    scale = np.float32(1.0 / np.sqrt(hidden))
    return (rng.standard_normal((steps, 1, hidden)).astype(np.float32),
            np.zeros((1, hidden), np.float32),
            (rng.standard_normal((hidden, hidden)) * scale).astype(np.float32),
            (rng.standard_normal((hidden, hidden)) * scale).astype(np.float32))


def _newton_inputs(n):
    rng = np.random.default_rng(2)
    return rng.uniform(0.5, 1e4, (n,)).astype(np.float32), np.float32(1e-2)


def _topk_inputs(n):
    rng = np.random.default_rng(3)
    return rng.standard_normal((n,)).astype(np.float32), np.int32(16)


def workloads(full):
    """The GPU workloads, GPU-sized when `full`, else small enough for a CPU smoke run."""
    return [
        GpuWorkload("mandelbrot_4096", mandelbrot, mandelbrot_lax,
                    lambda: _grid((4096,) if full else (256,))),
        GpuWorkload("mandelbrot_1024x1024", mandelbrot, mandelbrot_lax,
                    lambda: _grid((1024, 1024) if full else (32, 32))),
        GpuWorkload("rnn_512x1024", rnn, rnn_lax,
                    lambda: _rnn_inputs(*((512, 1024) if full else (16, 64)))),
        GpuWorkload("newton_2p20", newton_sqrt, newton_sqrt_lax,
                    lambda: _newton_inputs(2 ** 20 if full else 2 ** 12)),
        GpuWorkload("greedy_topk", greedy_topk, greedy_topk_lax,
                    lambda: _topk_inputs(2 ** 16 if full else 2 ** 10)),
    ]
