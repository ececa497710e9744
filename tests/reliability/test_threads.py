"""Conversion and tracing from 8 threads at once give the right results."""

import threading

import autograph as ag
import runtime as tf
from tests.reliability.test_module_memory import load_fresh_module

import pytest

# Warnings these tests trigger on purpose: threads trace the same function at once, on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")

N_THREADS = 8


def _make(k):
    # A fresh function per thread (its own cache entries) plus one shared function.
    def fn(x):
        s = 0
        for i in range(x):
            if i % 2 == 0:
                s += i * k
            else:
                s -= 1
        return s
    return fn


def shared(x):
    total = 0
    while x > 0:
        total += x
        x -= 1
    return total


def _expected(k, x):
    return sum(i * k if i % 2 == 0 else -1 for i in range(x))


def test_convert_and_trace_from_eight_threads():
    barrier = threading.Barrier(N_THREADS)
    errors, results = [], {}

    def work(k):
        try:
            barrier.wait()
            for x in range(6):
                got_conv = ag.convert(_make(k))(x)
                got_shared = ag.convert(shared)(x)
                traced = tf.function(_make(k))
                got_traced = int(traced(tf.constant(x)).numpy())
                got_shared_traced = int(tf.function(shared)(tf.constant(x)).numpy())
                results[(k, x)] = (got_conv, got_shared, got_traced, got_shared_traced)
        except Exception as e:  # noqa: BLE001 - reported below with the thread's k
            errors.append((k, repr(e)))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    assert len(results) == N_THREADS * 6
    for (k, x), got in results.items():
        want = _expected(k, x)
        assert got == (want, x * (x + 1) // 2, want, x * (x + 1) // 2), (k, x, got)


def test_one_function_traced_from_eight_threads_traces_once_per_signature():
    fn = tf.function(shared)
    barrier = threading.Barrier(N_THREADS)
    out = []

    def work(x):
        barrier.wait()
        out.append((x, int(fn(tf.constant(x)).numpy())))

    threads = [threading.Thread(target=work, args=(x,)) for x in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert sorted(out) == [(x, x * (x + 1) // 2) for x in range(N_THREADS)]
    assert fn.experimental_get_tracing_count() == 1


def test_fresh_modules_converted_traced_and_called_from_eight_threads(tmp_path):
    # Each thread loads its own modules (identical code in different files) while the others
    # convert, trace and call theirs: each converted function must name its own file.
    barrier = threading.Barrier(N_THREADS)
    errors, results = [], []

    def work(k):
        try:
            barrier.wait()
            for round_ in range(3):
                directory = tmp_path / ('t%d_%d' % (k, round_))
                directory.mkdir()
                module = load_fresh_module(directory)
                converted = ag.convert(module.step)
                assert converted.__code__.co_filename == module.__file__
                traced = tf.function(module.step)
                x = k + round_
                results.append((x, converted(x), int(traced(tf.constant(x)).numpy()),
                                int(tf.function(module.Counter().count)(
                                    tf.constant(10 + x)).numpy())))
        except Exception as e:  # noqa: BLE001 - reported below with the thread's k
            errors.append((k, repr(e)))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    assert len(results) == N_THREADS * 3

    def step(x):  # the module's step, in plain Python
        return sum(i if i % 2 == 0 else -1 for i in range(x))

    def count(x):
        while x > 10:
            x -= 3
        return x

    for x, got_conv, got_traced, got_count in results:
        assert (got_conv, got_traced, got_count) == (step(x), step(x), count(10 + x)), x
