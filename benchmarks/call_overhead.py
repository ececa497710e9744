"""Per-call overhead of runtime.Function.__call__ on a tiny graph, next to bare numpy.

Run: `python benchmarks/call_overhead.py [--number N] [--rounds R]`. Prints microseconds per
call for: the bare numpy computation, the graph's executor called directly, a
ConcreteFunction call, and Function.__call__ (the generated entry of the steady signature:
checks, unwrapping, executor, wrapping; see runtime/function/calls.py), also with a Python
number argument, and with its own result fed back (a new tensor at every call), for both
executors.
The overhead column is the difference to the direct executor call. Every measurement is taken
once per round, the rounds interleaved, and the minimum over the rounds is printed (the
machine may be shared).
"""
import argparse
import os
import sys
import timeit

import numpy as np

if __package__ in (None, ""):  # `python benchmarks/call_overhead.py`: this checkout's runtime
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import runtime as tf  # noqa: E402 - after the path set-up


def _tiny(a, b):
    return a * b + a


def main(argv=None):
    """Runs the benchmark and prints a table.

    Args:
        argv: Command-line arguments (default: sys.argv[1:]).
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20000, help="calls per measurement")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds")
    args = parser.parse_args(argv)
    x_np = np.arange(4, dtype=np.float32)
    y_np = np.full(4, 2.0, np.float32)
    zero_np = np.zeros(4, np.float32)
    x, y, zero = tf.constant(x_np), tf.constant(y_np), tf.constant(zero_np)
    rows = [("bare numpy (a * b + a)", lambda: _tiny(x_np, y_np), None)]
    for executor in ("compiled", "interpreter"):
        fn = tf.function(_tiny, executor=executor)
        fn(x, y)
        concrete = fn.get_concrete_function(x, y)
        run = concrete._run
        direct = executor + ": executor called directly"
        rows += [(direct, lambda run=run: run(x_np, y_np), None),
                 (executor + ": ConcreteFunction(x, y)", lambda c=concrete: c(x, y), direct),
                 (executor + ": Function(x, y)", lambda fn=fn: fn(x, y), direct)]
        # a Python number argument is part of the trace's key; the graph has one input
        run_2 = fn.get_concrete_function(x, 2.0)._run
        direct_2 = executor + ": the (x, 2.0) trace's executor"
        rows += [(direct_2, lambda run=run_2: run(x_np), None),
                 (executor + ": Function(x, 2.0)", lambda fn=fn: fn(x, 2.0), direct_2)]
        # the result fed back (x = f(x, 0)): a new tensor at every call, checked and marked
        held, held_np = [fn(x, zero)], [x_np]
        fed = executor + ": the executor fed its result"

        def run_fed(run=run, held_np=held_np):
            held_np[0] = run(held_np[0], zero_np)[0]

        def call_fed(fn=fn, held=held):
            held[0] = fn(held[0], zero)

        rows += [(fed, run_fed, None), (executor + ": Function fed its result", call_fed, fed)]
    best = {}
    for _ in range(args.rounds):
        for name, call, _ in rows:
            us = timeit.timeit(call, number=args.number) / args.number * 1e6
            best[name] = min(best.get(name, us), us)
    print(f"{'what':42s} {'us/call':>9s} {'overhead':>9s}")
    for name, _, baseline in rows:
        overhead = f" {best[name] - best[baseline]:9.2f}" if baseline else ""
        print(f"{name:42s} {best[name]:9.2f}{overhead}")


if __name__ == "__main__":
    main()
