"""Per-op benchmark: one op run from a compiled graph versus the direct numpy call.

Run `python -m benchmarks.ops_bench [--quick]`. For each op it builds a one-node graph, compiles
it with runtime.executor.compile, and times a call against the numpy expression a person would
write, on a rank-0 value, a 10-element vector and a 100x100 matrix. It prints the median time
per call of each (over rounds of repeated calls) and their ratio.
"""
import argparse
import statistics
import sys
import timeit

import numpy as np

import runtime as tf
from runtime import context
from runtime.executor import compile as compile_graph
from runtime.graph import Graph

# name -> (graph builder on placeholders, hand-written numpy on arrays, number of inputs)
OPS = {
    "add": (lambda x, y: x + y, lambda x, y: x + y, 2),
    "multiply": (lambda x, y: x * y, lambda x, y: x * y, 2),
    "truediv": (lambda x, y: x / y, lambda x, y: x / y, 2),
    "maximum": (tf.maximum, np.maximum, 2),
    "less": (lambda x, y: x < y, lambda x, y: x < y, 2),
    "equal": (tf.equal, lambda x, y: x == y, 2),
    "tanh": (tf.tanh, np.tanh, 1),
    "exp": (tf.exp, np.exp, 1),
    "sigmoid": (tf.sigmoid, lambda x: 1 / (1 + np.exp(-x)), 1),
    "cast": (lambda x: tf.cast(x, tf.float64), lambda x: x.astype(np.float64), 1),
    "reduce_sum": (tf.reduce_sum, lambda x: np.sum(x, dtype=x.dtype), 1),
    "reduce_max": (tf.reduce_max, np.max, 1),
    "chain_of_5": (lambda x, y: tf.tanh(x * y + x) - y * 2.0,
                   lambda x, y: np.tanh(x * y + x) - y * np.float32(2.0), 2),
}
SHAPES = {"scalar": (), "vector10": (10,), "matrix100": (100, 100)}


def _inputs(shape, count):
    rng = np.random.default_rng(0)
    values = [rng.uniform(0.5, 1.5, size=shape).astype(np.float32) for _ in range(count)]
    if shape == ():
        values = [np.float32(v) for v in values]
    return values


def build(fn, shape, count):
    """Compiles a graph applying `fn` to `count` float32 placeholders of `shape`.

    Args:
        fn: The op (a function of symbolic tensors).
        shape: The static input shape.
        count: The number of inputs.

    Returns:
        The compiled callable.
    """
    graph = Graph("bench")
    with context.graph_scope(graph):
        inputs = [graph.placeholder(tf.float32, shape, name=f"x{i}") for i in range(count)]
        graph.outputs = [fn(*inputs)]
    return compile_graph(graph, graph.inputs, graph.outputs)


def measure(fn, args, rounds, number):
    """Returns the median over `rounds` of the time per call of fn(*args), in seconds."""
    times = timeit.repeat(lambda: fn(*args), number=number, repeat=rounds)
    return statistics.median(times) / number


def main(argv=None):
    """Prints the table.

    Args:
        argv: Command-line arguments (`--quick` for fewer rounds).

    Returns:
        The exit code (0).
    """
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ops_bench")
    parser.add_argument("--quick", action="store_true", help="fewer rounds (noisier)")
    args = parser.parse_args(argv)
    rounds, number = (3, 200) if args.quick else (7, 1000)
    header = f"{'op':<12} {'shape':<10} {'graph (us)':>11} {'numpy (us)':>11} {'ratio':>7}"
    print(header)
    print("-" * len(header))
    ratios = []
    for name, (op, numpy_fn, count) in OPS.items():
        for shape_name, shape in SHAPES.items():
            values = _inputs(shape, count)
            compiled = build(op, shape, count)
            expected = numpy_fn(*values)
            actual = compiled(*values)[0]
            np.testing.assert_allclose(actual, expected, rtol=1e-5)
            t_graph = measure(compiled, values, rounds, number)
            t_numpy = measure(numpy_fn, values, rounds, number)
            ratio = t_graph / t_numpy
            ratios.append(ratio)
            print(f"{name:<12} {shape_name:<10} {t_graph * 1e6:>11.2f} {t_numpy * 1e6:>11.2f} "
                  f"{ratio:>6.2f}x")
    print("-" * len(header))
    print(f"median ratio {statistics.median(ratios):.2f}x over {len(ratios)} cases "
          f"(graph call includes the function call and returning a tuple)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
