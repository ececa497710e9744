"""Training cost: one step (forward + gradient) against the forward pass alone, and memory.

    python -m benchmarks.training [--rounds 5]

The model is `examples/train_rnn.py`'s LengthRNN: a staged `while` loop whose trip count comes
from the data. Two figures, each against its limit:

- time: forward + gradient (forward under a GradientTape, gradient through the staged loop),
  and the whole step with the Adam update, each divided by the forward pass alone, all as
  steady calls of a tf.function. The forward loop saves what the backward products read, so
  the backward loop recomputes nothing; the target is at most 3x.
- memory: the forward loop keeps one entry per iteration for the backward loop, so the peak
  memory of one gradient call must grow linearly with the trip count. It is measured with
  tracemalloc at 100, 1,000 and 10,000 iterations, with the exponent fitted over them
  (1.0 is linear).
"""
import argparse
import math
import os
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import runtime as tf  # noqa: E402
from examples import train_rnn  # noqa: E402


def _best_per_call(fns, args, calls, rounds):
    """Best seconds per call of each function, timed in interleaved rounds (so that load on
    the machine hits every contender alike)."""
    for fn in fns:
        fn(*args)  # trace and compile
    best = [float('inf')] * len(fns)
    for _ in range(rounds):
        for k, fn in enumerate(fns):
            start = time.perf_counter()
            for _ in range(calls):
                fn(*args)
            best[k] = min(best[k], (time.perf_counter() - start) / calls)
    return best


def step_vs_forward(batch=16, calls=50, rounds=5):
    """Returns seconds per call of (forward, forward + gradient, full step), best of `rounds`."""
    model = train_rnn.LengthRNN(seed=0)
    optimizer = tf.optimizers.Adam(learning_rate=0.001)

    @tf.function
    def forward(inputs, lengths, targets):
        return train_rnn.loss_fn(model, inputs, lengths, targets)

    @tf.function
    def gradient(inputs, lengths, targets):
        with tf.GradientTape() as tape:
            loss = train_rnn.loss_fn(model, inputs, lengths, targets)
        return loss, tape.gradient(loss, model.trainable_variables)

    @tf.function
    def step(inputs, lengths, targets):
        with tf.GradientTape() as tape:
            loss = train_rnn.loss_fn(model, inputs, lengths, targets)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    data = [tf.constant(a) for a in train_rnn.make_batch(np.random.RandomState(0), batch)]
    data[1] = tf.constant(np.full(batch, train_rnn.MAX_LEN, np.int32))  # every step runs
    return _best_per_call([forward, gradient, step], data, calls, rounds)


def gradient_peak_bytes(length, batch=4):
    """Peak traced memory (bytes) of one gradient call through a loop of `length` steps."""
    model = train_rnn.LengthRNN(seed=0)

    @tf.function
    def gradients(inputs, lengths, targets):
        with tf.GradientTape() as tape:
            loss = train_rnn.loss_fn(model, inputs, lengths, targets)
        return tape.gradient(loss, model.trainable_variables)

    rng = np.random.RandomState(0)
    inputs = tf.constant(rng.uniform(-1, 1, (batch, length, train_rnn.FEATURES))
                         .astype(np.float32))
    lengths = tf.constant(np.full(batch, length, np.int32))
    targets = tf.constant(np.zeros(batch, np.float32))
    gradients(inputs, lengths, targets)  # trace and compile outside the measurement
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        gradients(inputs, lengths, targets)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak - base


def fitted_exponent(xs, ys):
    """Least-squares slope of log y against log x."""
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return (sum((a - mx) * (b - my) for a, b in zip(lx, ly))
            / sum((a - mx) ** 2 for a in lx))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--calls', type=int, default=50)
    args = parser.parse_args(argv)
    fwd, grd, stp = step_vs_forward(calls=args.calls, rounds=args.rounds)
    print('training step vs forward (LengthRNN, batch 16, %d loop steps):'
          % train_rnn.MAX_LEN)
    print('  forward alone               %7.1f us' % (fwd * 1e6))
    print('  forward + gradient          %7.1f us   %.2fx forward (target <= 3x)'
          % (grd * 1e6, grd / fwd))
    print('  forward + gradient + Adam   %7.1f us   %.2fx forward' % (stp * 1e6, stp / fwd))
    lengths = [100, 1000, 10000]
    peaks = [gradient_peak_bytes(n) for n in lengths]
    print('gradient memory by trip count (tracemalloc peak of one gradient call):')
    for n, peak in zip(lengths, peaks):
        print('  %6d iterations: %8.1f KB  (%.0f bytes per iteration)'
              % (n, peak / 1024, peak / n))
    print('  fitted exponent %.2f (1.0 is linear)' % fitted_exponent(lengths, peaks))


if __name__ == '__main__':
    main()
