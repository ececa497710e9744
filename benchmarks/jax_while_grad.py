"""Memory and time of `jax.grad` through an unbounded staged `while` (jax_while_grad.py).

Run `python -m benchmarks.jax_while_grad [--quick]`. The loop relaxes a vector of `size`
float32 values for `steps` iterations (a data-dependent test: the trip count is a traced
value). Three ways to get its gradient:

- checkpointed: `jax.grad(autograph.backends.jax.jit(f))`, the custom VJP with bisection
  checkpoints (about log2(n) states held, about n log2(n) / 2 extra body runs);
- store_all: the same loop as a `lax.scan` of exactly `steps` iterations (a static count, so
  JAX's own reverse mode stores the residuals of every step), as a JAX user writes it when the
  count is known;
- bounded: autograph's `set_loop_options(maximum_iterations=steps)`, a scan of at most
  `steps` iterations that stores every step too.

Memory is XLA's own figure for the compiled gradient (`memory_analysis()`: temporaries plus
outputs); time is the median of the jitted gradient's steady calls.
"""
import argparse
import os
import statistics
import sys
import time

if __package__ in (None, ""):  # `python benchmarks/jax_while_grad.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

import autograph  # noqa: E402
from autograph.backends import jax as ag_jax  # noqa: E402


def relax(x, n):
    i = 0
    while i < n:
        x = jnp.tanh(x * 0.9 + 0.05)
        i += 1
    return jnp.sum(x)


def relax_bounded(x, n):
    i = 0
    while i < n:
        autograph.experimental.set_loop_options(maximum_iterations=BOUND[0])
        x = jnp.tanh(x * 0.9 + 0.05)
        i += 1
    return jnp.sum(x)


BOUND = [0]  # the bounded version's maximum_iterations (a Python int, set per run)


def relax_scan(x, n, steps):
    def step(x, i):
        return jnp.where(i < n, jnp.tanh(x * 0.9 + 0.05), x), None
    return jnp.sum(lax.scan(step, x, jnp.arange(steps))[0])


def _bytes(grad_fn, args):
    stats = jax.jit(grad_fn).lower(*args).compile().memory_analysis()
    if stats is None:
        return None
    return stats.temp_size_in_bytes + stats.output_size_in_bytes


def _seconds(grad_fn, args, calls):
    jitted = jax.jit(grad_fn)
    jax.block_until_ready(jitted(*args))
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        jax.block_until_ready(jitted(*args))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(size, steps, calls):
    """One row: bytes and seconds of each way, and the gradients' agreement."""
    x = jnp.linspace(-1.0, 1.0, size, dtype=jnp.float32)
    n = jnp.int32(steps)
    BOUND[0] = steps
    ways = {
        "checkpointed": jax.grad(ag_jax.jit(relax)),
        "store_all": jax.grad(lambda x, n: relax_scan(x, n, steps)),
        "bounded": jax.grad(autograph.convert(relax_bounded)),
    }
    grads = {k: fn(x, n) for k, fn in ways.items()}
    row = {"size": size, "steps": steps, "agree": all(
        bool(jnp.allclose(grads["store_all"], g, rtol=1e-4, atol=1e-6)) for g in grads.values())}
    for name, fn in ways.items():
        row[name] = {"bytes": _bytes(fn, (x, n)), "seconds": _seconds(fn, (x, n), calls)}
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few calls")
    opts = parser.parse_args(argv)
    cases = [(256, 100)] if opts.quick else [(1024, 100), (1024, 1000), (1024, 10000)]
    calls = 3 if opts.quick else 20
    print("jax {} on {}".format(jax.__version__, jax.devices()[0].platform))
    print("{:>6} {:>6}  {:>22} {:>22} {:>22}".format(
        "size", "steps", "checkpointed MB / ms", "store_all MB / ms", "bounded MB / ms"))
    rows = []
    for size, steps in cases:
        row = measure(size, steps, calls)
        rows.append(row)
        cells = ["{:>10.2f} / {:>8.2f}".format((row[k]["bytes"] or 0) / 2 ** 20,
                                             row[k]["seconds"] * 1e3)
                 for k in ("checkpointed", "store_all", "bounded")]
        print("{:>6} {:>6}  {}{}".format(size, steps, " ".join(cells),
                                         "" if row["agree"] else "  GRADIENTS DIFFER"))
    return rows


if __name__ == "__main__":
    main()
