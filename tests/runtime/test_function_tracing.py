"""The frequent-tracing detector sees the same call history as a deque of the last calls, and
warns for a tf.function made anew in a loop, naming the line that makes it."""
import collections
import random
import warnings

import pytest

import runtime as tf
from runtime.function import RetracingWarning
from runtime.function import tracing as function_tracing
from runtime.function.tracing import HISTORY
from runtime.function.tracing import MAX_WARNINGS
from runtime.function.tracing import THRESHOLD


class _Reference:
    """TensorFlow's rule over an explicit deque of every call (what the detector compacts)."""

    def __init__(self):
        self.recent = collections.deque(maxlen=HISTORY)
        self.warnings = 0

    def call(self, kind):
        self.recent.append(kind)
        if not kind or self.warnings >= MAX_WARNINGS:
            return None
        traced = sum(1 for c in self.recent if c)
        if traced < THRESHOLD or sum(1 for c in self.recent if c == 2) < 2:
            return None
        self.warnings += 1
        return (traced, len(self.recent))


def _run(detector, kind):
    if kind == 0:
        detector.called_without_tracing()
        return None
    text = detector.traced(kind == 2, "f")
    return text and text.split(" calls to ")[0]


def test_detector_matches_a_deque_of_every_call_on_random_histories():
    rng = random.Random(20261123)
    for _ in range(300):
        detector, reference = function_tracing.Detector(), _Reference()
        for _ in range(rng.randrange(1, 60)):
            kind = rng.choice([0, 0, 0, 1, 2] if rng.random() < 0.5 else [0, 2])
            if kind == 0 and rng.random() < 0.3:
                for _ in range(rng.randrange(1, 30)):
                    _run(detector, 0)
                    reference.call(0)
                continue
            got = _run(detector, kind)
            expected = reference.call(kind)
            assert got == (expected and "%d out of the last %d" % expected)
            assert detector.calls() == tuple(reference.recent)
        assert detector.calls() == tuple(reference.recent)


def test_detector_warns_on_new_functions_in_a_loop_and_at_most_twice():
    detector = function_tracing.Detector()
    texts = [detector.traced(True, "f") for _ in range(THRESHOLD + 3)]
    assert texts[:THRESHOLD - 1] == [None] * (THRESHOLD - 1)
    assert texts[THRESHOLD - 1].startswith("5 out of the last 5 calls to f triggered")
    assert texts[THRESHOLD].startswith("6 out of the last 6 calls to f triggered")
    assert texts[THRESHOLD + 1:] == [None, None]
    for _ in range(1000):
        detector.called_without_tracing()
    assert detector.calls() == (0,) * HISTORY


def _line(marker):
    """The line of this file holding `marker` (a comment)."""
    with open(__file__, encoding="utf-8") as f:
        return next(i for i, text in enumerate(f, 1) if text.rstrip().endswith(marker))


def test_a_tf_function_defined_in_a_loop_warns_naming_the_line_that_creates_it():
    with pytest.warns(RetracingWarning) as caught:
        for i in range(THRESHOLD + 1):
            @tf.function  # created here
            def step(x):
                return x + 1

            step(tf.constant(i))
    message = str(caught[0].message)
    assert message.startswith("5 out of the last 5 calls to ")
    assert message.endswith(f'The tf.function is created anew at File "{__file__}", line '
                            f'{_line("# created here")}: create it once, outside the loop.')


def test_a_tf_function_of_a_new_lambda_in_a_loop_warns_too():
    with pytest.warns(RetracingWarning, match=r"created anew at File .*, line \d+: create it "
                                              r"once, outside the loop"):
        for i in range(THRESHOLD + 1):
            tf.function(lambda x: x * 2)(tf.constant(i))


def test_one_tf_function_made_once_and_called_in_a_loop_does_not_warn():
    @tf.function
    def step(x):
        return x + 1

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for i in range(3 * THRESHOLD):
            step(tf.constant(i))


def _scaler(factor):
    def scale(x):
        return x * factor
    return scale


def test_functions_one_factory_made_are_not_one_function_made_anew():
    # They share a code object but not their closure cells (tf.add and tf.multiply are
    # made so): a tf.function of each, in a loop, is no mistake. TensorFlow keys by code
    # alone and would warn here.
    scalers = [_scaler(k) for k in range(2 * THRESHOLD)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for k, scale in enumerate(scalers):
            assert int(tf.function(scale)(tf.constant(3))) == 3 * k
        for op in (tf.add, tf.subtract, tf.multiply, tf.maximum, tf.minimum, tf.pow):
            tf.function(op)(tf.constant(2), tf.constant(3))


def test_a_closure_defined_in_a_loop_still_warns():
    # every iteration's function closes over the same cell of `offset`
    offset = 1
    with pytest.warns(RetracingWarning, match="created anew"):
        for i in range(THRESHOLD + 1):
            tf.function(lambda x: x + offset)(tf.constant(i))
