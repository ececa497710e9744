"""Per-call overhead of runtime.Function.__call__ on a tiny graph, next to bare numpy.

Run: `.venv/bin/python benchmarks/call_overhead.py [--number N]`. Prints microseconds per
call for: the bare numpy computation, the graph's executor called directly, a
ConcreteFunction call, and Function.__call__ (cache lookup + flattening + executor), for both
executors. The overhead column is the difference to the direct executor call.
"""
import argparse
import timeit

import numpy as np

import runtime as tf


def _tiny(a, b):
    return a * b + a


def _best_us(fn, number, repeat=5):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def main(argv=None):
    """Runs the benchmark and prints a table.

    Args:
        argv: Command-line arguments (default: sys.argv[1:]).
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20000, help="calls per measurement")
    args = parser.parse_args(argv)
    x_np = np.arange(4, dtype=np.float32)
    y_np = np.full(4, 2.0, np.float32)
    x, y = tf.constant(x_np), tf.constant(y_np)
    numpy_us = _best_us(lambda: _tiny(x_np, y_np), args.number)
    print(f"{'what':42s} {'us/call':>9s} {'overhead':>9s}")
    print(f"{'bare numpy (a * b + a)':42s} {numpy_us:9.2f}")
    for executor in ("compiled", "interpreter"):
        fn = tf.function(_tiny, executor=executor)
        fn(x, y)
        concrete = fn.get_concrete_function(x, y)
        run = concrete._run
        run_us = _best_us(lambda: run(x_np, y_np), args.number)
        concrete_us = _best_us(lambda: concrete(x, y), args.number)
        call_us = _best_us(lambda: fn(x, y), args.number)
        print(f"{executor + ': executor called directly':42s} {run_us:9.2f}")
        print(f"{executor + ': ConcreteFunction(x, y)':42s} {concrete_us:9.2f} "
              f"{concrete_us - run_us:9.2f}")
        print(f"{executor + ': Function(x, y)':42s} {call_us:9.2f} {call_us - run_us:9.2f}")


if __name__ == "__main__":
    main()
