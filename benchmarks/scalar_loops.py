"""Scalar loops: nanoseconds per iteration of the runtime's generated code against the same loop
in plain Python ints and floats, and against a bit-exact hand-written reference where plain
Python's numbers compute something else.

Run `python -m benchmarks.scalar_loops [--quick]`. Each loop runs `ITERATIONS` times per call;
the staged function (`runtime.function`, numpy inputs), the plain Python loop and the bit-exact
reference are timed in interleaved rounds (each going first in turn), and the median time per
call divided by the iterations is printed. Before timing, every contender's result is checked
against the staged one, bit for bit where the table says the contender is exact.

The loops:
- int_if: an int32 counter loop with an `if` whose values the interval analysis bounds (no
  wrap test in the generated code; plain Python ints are exact);
- int_hash: an int32 hash whose values wrap (the generated code tests the range after each
  update; plain Python ints would grow without bound, so the reference masks to 32 bits);
- float32_if: a float32 update under an `if` (plain Python floats round as float64; the exact
  reference rounds each result to float32 by Veltkamp's split);
- float64_if: the same body on float64 (Python floats are float64: exact);
- float32_counter: a float32 counter and sum that hold small integers (exact in any float
  format, so plain Python floats are exact; the runtime rounds each result to float32), and
  in the column `bounded`, the code an analysis of integer-valued floats could generate.
"""
import argparse
import os
import statistics
import sys
import time

if __package__ in (None, ""):  # `python benchmarks/scalar_loops.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import runtime as tf  # noqa: E402

ITERATIONS = 20000
_COUNTER_LIMIT = float(ITERATIONS)  # float32_counter's bound: a constant in its graph
_SPLIT = 536870913.0  # 2**29 + 1: `c = t * _SPLIT; c - (c - t)` rounds double t to 24 bits
_F32_HALF, _F32_A, _F32_B = (float(np.float32(v)) for v in (0.5, 1.7, 0.1))


# -- int32 counter with an `if` (bounded: no wrap test) ---------------------------------------

def int_if(n):
    i = 0
    last = 0
    while i < n:
        r = i % 7
        if r < 3:
            last = r * 5 + i // 7
        else:
            last = r - i // 7
        i += 1
    return last


def int_if_python(n):
    last = 0
    for i in range(n):
        r = i % 7
        if r < 3:
            last = r * 5 + i // 7
        else:
            last = r - i // 7
    return np.int32(last)


# -- int32 hash (unbounded: wraps) ------------------------------------------------------------

def int_hash(n):
    h = tf.constant(17)
    i = 0
    while i < n:
        if h % 2 == 0:
            h = h * 31 + i
        else:
            h = h * 7 - i
        i += 1
    return h


def int_hash_masked(n):
    """Python ints kept in 32 bits by a mask (the same residues modulo 2**32, so the same
    parities and the same int32 result once made signed)."""
    h = 17
    for i in range(n):
        if h % 2 == 0:
            h = (h * 31 + i) & 0xFFFFFFFF
        else:
            h = (h * 7 - i) & 0xFFFFFFFF
    return np.int32(h - (1 << 32) if h >= 1 << 31 else h)


# -- a float update under an `if` (the same source staged on float32 and float64) ------------

def float_if(x, n):
    i = 0
    while i < n:
        if x > 1.0:
            x = x * 0.5
        else:
            x = x * 1.7 + 0.1
        i += 1
    return x


def float_if_python(x, n, dtype):
    """Python floats (float64): exact for float64, rounding differently from float32."""
    x = float(x)
    a, b = (_F32_A, _F32_B) if dtype == np.float32 else (1.7, 0.1)
    for _ in range(n):
        if x > 1.0:
            x = x * 0.5
        else:
            x = x * a + b
    return dtype(x)


def float32_if_exact(x, n):
    """Python floats rounded to float32 after each operation (Veltkamp's split; a double
    product or sum of two float32 values rounded so is their float32 result). `x * 0.5` is
    exact in float32 in this loop's range, so it needs no rounding."""
    x = float(x)
    a, b = _F32_A, _F32_B
    for _ in range(n):
        if x > 1.0:
            x = x * 0.5
        else:
            p = x * a
            c = p * _SPLIT
            p = c - (c - p)
            s = p + b
            c = s * _SPLIT
            x = c - (c - s)
    return np.float32(x)


# -- a float32 counter and sum holding small integers ---------------------------------------

def float32_counter(n):
    c = tf.constant(0.0)
    s = tf.constant(0.0)
    while c < _COUNTER_LIMIT:
        if c > n:
            s = s + 2.0
        else:
            s = s - 1.0
        c = c + 1.0
    return c, s


def float32_counter_python(n):
    """Python floats: exact here (every value is an integer far below 2**24)."""
    c = 0.0
    s = 0.0
    n = float(n)
    while c < _COUNTER_LIMIT:
        if c > n:
            s = s + 2.0
        else:
            s = s - 1.0
        c = c + 1.0
    return np.float32(c), np.float32(s)


def float32_counter_bounded(n):
    """What an interval analysis of integer-valued float32 values could generate: the counter,
    bounded by the constant test and starting at 0.0, as a Python float (exact); the sum,
    whose bound needs the number of iterations, stays a numpy float32."""
    one, two = np.float32(1.0), np.float32(2.0)
    n = float(n)
    c = 0.0
    s = np.float32(0.0)
    while c < _COUNTER_LIMIT:
        if c > n:
            s = s + two
        else:
            s = s - one
        c = c + 1.0
    return np.float32(c), s


class Loop:
    """One measured loop: its staged source, inputs and references.

    Attributes:
        name: The table's row name.
        staged: The function `runtime.function` stages.
        inputs: The numpy inputs of the staged function.
        python: Callable(*inputs): the same loop on plain Python ints and floats, or None.
        python_exact: Whether `python` computes the staged results bit for bit.
        exact: Callable(*inputs): the tightest bit-exact hand-written loop, where `python`
            is not exact (or None).
        iterations: The iterations of one call (default: the last input).
        bounded: Callable(*inputs): bit-exact code an analysis of integer-valued floats could
            generate (or None).
    """

    def __init__(self, name, staged, inputs, python, python_exact, exact=None,
                 iterations=None, bounded=None):
        self.name, self.staged, self.inputs = name, staged, inputs
        self.python, self.python_exact, self.exact = python, python_exact, exact
        self.iterations = int(inputs[-1]) if iterations is None else iterations
        self.bounded = bounded


def loops(iterations=ITERATIONS):
    """The measured loops, each running `iterations` times per call."""
    n = np.int32(iterations)
    return [
        Loop("int_if", int_if, (n,), int_if_python, True),
        Loop("int_hash", int_hash, (n,), None, False, int_hash_masked),
        Loop("float32_if", float_if, (np.float32(0.3), n),
             lambda x, k: float_if_python(x, k, np.float32), False, float32_if_exact),
        Loop("float64_if", float_if, (np.float64(0.3), n),
             lambda x, k: float_if_python(x, k, np.float64), True),
        Loop("float32_counter", float32_counter, (np.float32(ITERATIONS // 2),),
             float32_counter_python, True, iterations=ITERATIONS,
             bounded=float32_counter_bounded),
    ]


def _bits(value):
    """A result as a tuple of (dtype, bytes): equal exactly when the results are bit-equal."""
    values = value if isinstance(value, tuple) else (value,)
    return tuple((np.asarray(v).dtype.str, np.asarray(v).tobytes()) for v in values)


def _contenders(loop):
    """[(column, callable)] of `loop`, each checked against the staged result."""
    staged = tf.function(loop.staged)
    want = _bits(staged(*loop.inputs))
    found = [("runtime", lambda: staged(*loop.inputs))]
    for column, fn, exact in (("python", loop.python, loop.python_exact),
                              ("exact", loop.exact, True), ("bounded", loop.bounded, True)):
        if fn is None:
            continue
        got = _bits(fn(*loop.inputs))
        if exact and got != want:
            raise AssertionError(f"{loop.name}: {column} is not bit-exact: {got} != {want}")
        found.append((column, lambda fn=fn: fn(*loop.inputs)))
    return found


def measure(loop, rounds):
    """Median ns per iteration of each contender of `loop`, in interleaved rounds."""
    contenders = _contenders(loop)
    samples = {column: [] for column, _ in contenders}
    for r in range(rounds):
        shift = r % len(contenders)  # each contender goes first in turn
        for column, call in contenders[shift:] + contenders[:shift]:
            start = time.perf_counter()
            call()
            samples[column].append((time.perf_counter() - start) / loop.iterations * 1e9)
    return {column: statistics.median(times) for column, times in samples.items()}


def main(argv=None):
    """Prints ns per iteration of every loop: runtime, plain Python, bit-exact reference.

    Returns:
        A list of {"name", "ns": {column: ns per iteration}} (a column only where the loop
        has that contender), one per loop.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds")
    parser.add_argument("--quick", action="store_true", help="a smoke run (timings mean nothing)")
    args = parser.parse_args(argv)
    iterations, rounds = (200, 1) if args.quick else (ITERATIONS, args.rounds)
    print(f"ns per iteration, median of {rounds} interleaved rounds, {iterations} iterations"
          f" (float32_counter: {ITERATIONS})")
    columns = ("runtime", "python", "exact", "bounded")
    print(f"{'loop':17s} " + " ".join(f"{c:>8s}" for c in columns) + "  python exact?")
    records = []
    for loop in loops(iterations):
        ns = measure(loop, rounds)
        cells = [f"{ns[c]:8.1f}" if c in ns else f"{'-':>8s}" for c in columns]
        exact = "yes" if loop.python_exact else "no" if loop.python else "-"
        print(f"{loop.name:17s} {' '.join(cells)}  {exact}")
        records.append({"name": loop.name, "ns": ns})
    return records


if __name__ == "__main__":
    main()
