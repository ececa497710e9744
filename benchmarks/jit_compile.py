"""`tf.function(jit_compile=True)` (the runtime's graph lowered to XLA) next to hand-written
`jax.jit` code and the runtime's own numpy executor, for the benchmark workloads.

Run `python -m benchmarks.jit_compile [--quick]`. For every workload of benchmarks/workloads.py:

- steady call: the median time per call of `tf.function(fn, jit_compile=True)`, of the
  workload's hand-written lax under `jax.jit` (benchmarks/jax_lax.py; its result made ready
  with `jax.block_until_ready`, as the runtime's call returns numpy values), and of the
  default `tf.function(fn)` (generated numpy code); all three take the same numpy inputs, in
  interleaved rounds, each going first in turn. Target: jit_compile within 1.2x of the hand
  lax on every loop-heavy workload.
- first call: a fresh `tf.function(fn, jit_compile=True)` (trace, lower, XLA compile, run),
  a fresh `jax.jit` of the hand lax (trace, compile, run) and a fresh `tf.function(fn)`.

It first checks that jit_compile's results equal the numpy executor's (float32 to 1e-5).
`--quick` is a smoke run (one round, few calls: its timings mean nothing).
"""
import argparse
import os
import statistics
import sys
import time
import warnings

if __package__ in (None, ""):  # `python benchmarks/jit_compile.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax  # noqa: E402
import numpy as np  # noqa: E402

import runtime  # noqa: E402
from benchmarks import jax_lax  # noqa: E402
from benchmarks import workloads  # noqa: E402

STEADY_TARGET = 1.2
# The workloads without a staged loop (their Python loops unroll while tracing).
NO_LOOP = {"elementwise_50", "large_chain"}


def _flat(value):
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flat(v)]
    return [np.asarray(value)]


def _same(a, b):
    a, b = _flat(a), _flat(b)
    return len(a) == len(b) and all(
        x.dtype == y.dtype and x.shape == y.shape and np.allclose(x, y, rtol=1e-5, atol=1e-5)
        for x, y in zip(a, b))


def _contenders(workload, inputs):
    hand = jax.jit(jax_lax.HAND_WRITTEN[workload.name])
    xla = runtime.function(workload.fn, jit_compile=True)
    numpy_code = runtime.function(workload.fn)
    return [("xla", lambda: xla(*inputs)),
            ("hand", lambda: jax.block_until_ready(hand(*inputs))),
            ("numpy", lambda: numpy_code(*inputs))]


def _first_calls(workload, inputs):
    """Seconds of each contender's first call, made fresh."""
    hand_fn = jax_lax.HAND_WRITTEN[workload.name]
    makers = {"xla": lambda: runtime.function(workload.fn, jit_compile=True),
              "hand": lambda: jax.jit(lambda *a: hand_fn(*a)),
              "numpy": lambda: runtime.function(workload.fn)}
    seconds = {}
    for key, make in makers.items():
        fn = make()
        start = time.perf_counter()
        jax.block_until_ready(fn(*inputs)) if key == "hand" else fn(*inputs)
        seconds[key] = time.perf_counter() - start
    return seconds


def measure(workload, rounds, calls):
    """The record of one workload: steady and first-call seconds per contender, ratios."""
    inputs = workload.make_inputs()
    record = {"name": workload.name, "loop": workload.name not in NO_LOOP}
    contenders = _contenders(workload, inputs)
    results, first = {}, {}
    for key, fn in contenders:  # the first call of each: the first sample of its first calls
        start = time.perf_counter()
        results[key] = fn()
        first[key] = [time.perf_counter() - start]
    record["match"] = _same(results["xla"], results["numpy"]) and _same(
        results["xla"], results["hand"])
    steady = {key: [] for key, _ in contenders}
    for index in range(rounds):
        order = contenders if index % 2 == 0 else contenders[::-1]
        for key, fn in order:
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            steady[key].append((time.perf_counter() - start) / calls)
        if index:
            for key, seconds in _first_calls(workload, inputs).items():
                first[key].append(seconds)
    record["steady"] = {k: statistics.median(v) for k, v in steady.items()}
    record["first_call"] = {k: statistics.median(v) for k, v in first.items()}
    record["ratio"] = record["steady"]["xla"] / record["steady"]["hand"]
    return record


def _fmt(s):
    return "{:9.1f}us".format(s * 1e6) if s < 1e-3 else "{:9.2f}ms".format(s * 1e3)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one round, few calls")
    parser.add_argument("--workload", action="append", dest="names")
    opts = parser.parse_args(argv)
    rounds, calls = (1, 2) if opts.quick else (7, 300)
    print("jax {} on {}; medians of {} rounds".format(jax.__version__, jax.devices()[0].platform,
                                                      rounds))
    print("{:<15} {:>11} {:>11} {:>11} {:>7}   {:>11} {:>11} {:>11}".format(
        "workload", "jit_compile", "hand jit", "numpy", "ratio", "1st jit_c", "1st hand",
        "1st numpy"))
    records = []
    for workload in workloads.WORKLOADS:
        if opts.names and workload.name not in opts.names:
            continue
        heavy = workload.name in ("large_chain", "matmul_loop")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = measure(workload, rounds, max(1, calls // 30) if heavy else calls)
        records.append(record)
        s, f = record["steady"], record["first_call"]
        flag = "!" if record["loop"] and record["ratio"] > STEADY_TARGET else " "
        print("{:<15} {} {} {} {:>6.2f}{}  {} {} {}{}".format(
            workload.name, _fmt(s["xla"]), _fmt(s["hand"]), _fmt(s["numpy"]), record["ratio"],
            flag, _fmt(f["xla"]), _fmt(f["hand"]), _fmt(f["numpy"]),
            "" if record["match"] else "  RESULTS DIFFER"), flush=True)
    print(f"ratio = jit_compile / hand jit (target <= {STEADY_TARGET}x on loop workloads; "
          f"'!' = missed); 1st = a fresh function's first call")
    return records


if __name__ == "__main__":
    main()
