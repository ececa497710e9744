"""Many short-lived functions, closures, instances and methods, converted and traced, do not
grow memory without bound: the caches hold user objects weakly."""

import gc
import tracemalloc
import weakref

import autograph as ag
import runtime as tf

import pytest

# Warnings these tests trigger on purpose: rounds make new functions of one method, on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")


class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        if x > 0:
            return x * self.k
        return -x


def _churn(i):
    big = [i] * 1000  # a large closure cell: leaks would show in tracemalloc

    def fn(x):
        if x > len(big):
            return x - 1
        return x + 1

    assert ag.convert(fn)(3) == 4
    assert int(tf.function(fn)(tf.constant(3)).numpy()) == 4
    obj = Scaler(i)
    assert ag.convert(obj.apply)(2) == 2 * i
    assert int(tf.function(obj.apply)(tf.constant(2)).numpy()) == 2 * i
    return weakref.ref(fn), weakref.ref(obj)


def test_converted_and_traced_objects_are_collected():
    refs = [_churn(i) for i in range(20)]
    gc.collect()
    alive = [r for pair in refs for r in pair if r() is not None]
    assert not alive, "{} of {} user objects kept alive by caches".format(len(alive), 40)


def test_memory_does_not_grow_without_bound():
    for i in range(30):  # warm-up: module-level caches, imports
        _churn(i)
    gc.collect()
    tracemalloc.start()
    try:
        for i in range(100):
            _churn(i)
        gc.collect()
        first, _ = tracemalloc.get_traced_memory()
        for i in range(300):
            _churn(i)
        gc.collect()
        second, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # 300 more functions would retain > 2.4 MB (8 KB closure each) if anything leaked them.
    assert second - first < 1_000_000, (first, second)
