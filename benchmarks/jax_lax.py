"""Hand-written lax next to converted-then-jitted code, for the benchmark workloads.

Run `python -m benchmarks.jax_lax [--quick]`; `--gpu-sized [--full]` runs the GPU workloads of
benchmarks/jax_gpu.py instead (small sizes unless `--full`). For every workload of benchmarks/workloads.py,
the workload's own source runs as `jax.jit(autograph.convert(fn))` (on jax.numpy), next to the
lax a JAX user writes by hand for the same computation (`lax.while_loop`, `lax.cond`,
`lax.fori_loop`; Python loops where the bound is a Python constant, as the converter keeps
them). It reports, with targets:

- steady call: median time per call of the jitted function (target: within 1.1x of hand lax);
- compile time: trace + lower + XLA compile of a fresh `jax.jit` (target: within 1.2x);
- jaxpr equations: counted recursively through cond branches and loop bodies, after jit's
  dead-code elimination (target: within 1.2x: no bloat from the converter's state threading);
  the count before it is in the record too (autograph evaluates a loop's test once outside
  the loop to decide whether to stage it; that copy is dead code).

It first checks that both give the same result. The two contenders are timed in alternation,
round after round, each going first in every other round, so that a change in the machine's
load hits both alike; the figures are medians of 9 rounds (1,000 calls a round). Two
identical programs (collatz, whose jaxprs are equal) differ by up to 8% in steady call: that is
the noise of a 9 us call on this machine. `--quick` is a smoke run (its timings mean nothing).
"""
import argparse
import os
import statistics
import sys
import time
import warnings

if __package__ in (None, ""):  # `python benchmarks/jax_lax.py`: make the repository importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

import autograph  # noqa: E402
from benchmarks import jax_gpu  # noqa: E402
from benchmarks import workloads  # noqa: E402
from autograph.backends.jax import staged_range  # noqa: E402
from benchmarks.run import _JaxNamespace  # noqa: E402

TARGETS = {"steady": 1.1, "compile": 1.2, "eqns": 1.2}


# -- hand-written lax, one per workload ------------------------------------------------------

def collatz_lax(n):
    def body(state):
        n, steps = state
        n = lax.cond(n % 2 == 0, lambda n: n // 2, lambda n: 3 * n + 1, n)
        return n, steps + 1
    return lax.while_loop(lambda s: s[0] > 1, body, (n, 0))[1]


def tanh_loop_lax(x):
    return lax.while_loop(lambda x: jnp.sum(x) > 1, jnp.tanh, x)


def fizzbuzz_lax(n):
    def body(i, counts):
        index = jnp.where(i % 15 == 0, 0, jnp.where(i % 3 == 0, 1, jnp.where(i % 5 == 0, 2, 3)))
        return lax.switch(index, [
            lambda c: (c[0] + 1, c[1], c[2], c[3]), lambda c: (c[0], c[1] + 1, c[2], c[3]),
            lambda c: (c[0], c[1], c[2] + 1, c[3]), lambda c: (c[0], c[1], c[2], c[3] + 1)],
            counts)
    return lax.fori_loop(1, n + 1, body, (0, 0, 0, 0))


def dynamic_rnn_lax(input_data, initial_state):
    def step(state, inputs):
        state = jnp.tanh(inputs @ workloads.RNN_KERNEL + state @ workloads.RNN_RECURRENT
                         + workloads.RNN_BIAS)
        return state, state
    state, outputs = lax.scan(step, initial_state, input_data)
    return outputs, state


def first_crossing_lax(x, threshold):
    rows, cols = x.shape

    def inner(state):
        i, j, total, found = state
        value = x[i, j]
        keep = value >= 0
        total = lax.select(keep, total + value, total)
        found = lax.select(keep & (total > threshold), i * cols + j, found)
        return i, j + 1, total, found

    def outer(state):
        i, total, found = state
        _, _, total, found = lax.while_loop(
            lambda s: (s[1] < cols) & (s[3] < 0), inner, (i, 0, total, found))
        return i + 1, total, found

    _, total, found = lax.while_loop(lambda s: (s[0] < rows) & (s[2] < 0), outer,
                                     (0, jnp.float32(0.0), -1))
    return found, total


def elementwise_chain_lax(x):
    for _ in range(10):
        x = jnp.maximum(jnp.tanh(x * 1.01 + 0.1) - 0.05, -0.5)
    return x


def large_chain_lax(x):
    for _ in range(5):
        x = jnp.maximum(jnp.tanh(x * 0.9 + 0.05), -0.5)
    return x


def matmul_loop_lax(a, b):
    return lax.fori_loop(0, 10, lambda _, a: a @ b, a)


def collatz_vector_lax(ns):
    def one(k, steps):
        return steps.at[k].set(collatz_lax(ns[k]))
    return lax.fori_loop(0, ns.shape[0], one, jnp.zeros(ns.shape, jnp.int32))


def rnn_steps_lax(xs, state):
    def step(state, x):
        state = jnp.tanh(x * workloads.STEPS_WEIGHT + state)
        return state, state
    state, outputs = lax.scan(step, state, xs)
    return outputs, state


def first_exceed_lax(x, limit):
    def body(state):
        i, total, index = state
        value = x[i]
        keep = value >= 0
        total = lax.select(keep, total + value, total)
        index = lax.select(keep & (total > limit), i, index)
        return i + 1, total, index

    _, total, index = lax.while_loop(lambda s: (s[0] < x.shape[0]) & (s[2] < 0), body,
                                     (0, jnp.float32(0.0), -1))
    return index, total


HAND_WRITTEN = {
    "collatz": collatz_lax, "collatz_vector": collatz_vector_lax, "rnn_steps": rnn_steps_lax,
    "first_exceed": first_exceed_lax, "tanh_loop": tanh_loop_lax, "fizzbuzz": fizzbuzz_lax,
    "dynamic_rnn": dynamic_rnn_lax, "nested_break": first_crossing_lax,
    "elementwise_50": elementwise_chain_lax, "large_chain": large_chain_lax,
    "matmul_loop": matmul_loop_lax,
}


# -- measurements ---------------------------------------------------------------------------

def count_eqns(jaxpr):
    """Equations of a jaxpr, including those of the jaxprs in its equations' parameters."""
    total = 0
    for eqn in jaxpr.eqns:
        total += 1
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else (param,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    total += count_eqns(inner)
    return total


def _namespace():
    """The workloads' `tf` names on jax.numpy; `tf.range` is a staged range, as in TF."""
    namespace = _JaxNamespace(jnp)
    namespace.range = staged_range
    return namespace


def count_live_eqns(fn, args):
    """Equations left after dead-code elimination (what jit hands to XLA)."""
    from jax._src.interpreters import partial_eval as pe  # pylint: disable=import-outside-toplevel
    closed = jax.make_jaxpr(fn)(*args)
    jaxpr, _ = pe.dce_jaxpr(closed.jaxpr, [True] * len(closed.jaxpr.outvars))
    return count_eqns(jaxpr)


def _compile_seconds(fn, args):
    fresh = lambda *a: fn(*a)  # noqa: E731 - a new function: nothing cached by jax.jit
    start = time.perf_counter()
    jax.jit(fresh).lower(*args).compile()
    return time.perf_counter() - start


def _steady_seconds(jitted, args, calls):
    jax.block_until_ready(jitted(*args))
    start = time.perf_counter()
    for _ in range(calls):
        jax.block_until_ready(jitted(*args))
    return (time.perf_counter() - start) / calls


def _same(a, b):
    a, b = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    return len(a) == len(b) and all(
        np.allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-5) for x, y in zip(a, b))


def measure(workload, rounds, calls):
    """Returns the record of one workload: both contenders' figures and their ratios."""
    if isinstance(workload, jax_gpu.GpuWorkload):
        args = [jnp.asarray(a) for a in workload.make_inputs()]
        return compare(workload.name, autograph.convert(workload.fn), workload.hand, args,
                       (rounds, calls))
    args = [jnp.asarray(a) for a in workload.make_inputs()]
    converted = autograph.convert(workloads.with_backend(workload.fn, _namespace()))
    return compare(workload.name, converted, HAND_WRITTEN[workload.name], args,
                   (rounds, calls))


def compare(name, converted, hand, args, repeats):
    """Times `jax.jit` of the converted function against the hand-written lax on `args`;
    `repeats` is (rounds, calls per round)."""
    rounds, calls = repeats
    record = {"name": name}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            converted_result = jax.jit(converted)(*args)
    except Exception as e:  # noqa: BLE001 - reported in the table
        record["error"] = "{}: {}".format(type(e).__name__, str(e).splitlines()[0][:80])
        return record
    record["match"] = _same(jax.jit(hand)(*args), converted_result)
    contenders = (("hand", hand), ("converted", converted))
    jitted = {key: jax.jit(fn) for key, fn in contenders}
    times = {key: {"compile": [], "steady": []} for key, _ in contenders}
    for index in range(rounds):
        # Interleaved, so that a change in the machine's load hits both alike, and each goes
        # first in every other round (the second of two identical programs runs faster).
        order = contenders if index % 2 == 0 else contenders[::-1]
        for key, fn in order:
            times[key]["compile"].append(_compile_seconds(fn, args))
        for key, _ in order:
            times[key]["steady"].append(_steady_seconds(jitted[key], args, calls))
    for key, fn in contenders:
        record[key] = {
            "eqns": count_live_eqns(fn, args),
            "traced_eqns": count_eqns(jax.make_jaxpr(fn)(*args).jaxpr),
            "compile": statistics.median(times[key]["compile"]),
            "steady": statistics.median(times[key]["steady"]),
        }
    for key in TARGETS:
        record[key + "_ratio"] = record["converted"][key] / record["hand"][key]
    return record


def _fmt_seconds(s):
    return "{:8.1f} us".format(s * 1e6) if s < 1e-3 else "{:8.2f} ms".format(s * 1e3)


def _calls(workload, calls, opts):
    if opts.gpu_sized or workload.name in ("large_chain", "matmul_loop"):
        return max(1, calls // 20)
    return calls


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one round, one call: a smoke run")
    parser.add_argument("--gpu-sized", action="store_true",
                        help="the GPU workloads of benchmarks/jax_gpu.py instead")
    parser.add_argument("--full", action="store_true",
                        help="with --gpu-sized: full GPU sizes (default: small ones)")
    opts = parser.parse_args(argv)
    rounds, calls = (1, 1) if opts.quick else (9, 1000)
    print("jax {} on {}; medians of {} rounds".format(jax.__version__, jax.devices()[0].platform,
                                                      rounds))
    header = "{:<20} {:>22} {:>22} {:>17}  {}".format(
        "workload", "steady hand/conv", "compile hand/conv", "eqns hand/conv", "ratios (targets)")
    print(header)
    records = []
    cases = jax_gpu.workloads(opts.full) if opts.gpu_sized else workloads.WORKLOADS
    for workload in cases:
        record = measure(workload, rounds, _calls(workload, calls, opts))
        records.append(record)
        _print_record(record)
    return records


def _print_record(record):
    if "error" in record:
        print("{:<20} converted code cannot run: {}".format(record["name"], record["error"]))
        return
    h, c = record["hand"], record["converted"]
    ratios = " ".join("{} {:.2f}{}".format(k, record[k + "_ratio"],
                                         "" if record[k + "_ratio"] <= t else "!")
                      for k, t in TARGETS.items())
    print("{:<20} {}/{} {}/{} {:>7}/{:<7}  {}{}".format(
        record["name"], _fmt_seconds(h["steady"]), _fmt_seconds(c["steady"]).strip(),
        _fmt_seconds(h["compile"]), _fmt_seconds(c["compile"]).strip(), h["eqns"],
        c["eqns"], ratios, "" if record["match"] else "  RESULTS DIFFER"))


if __name__ == "__main__":
    main()
