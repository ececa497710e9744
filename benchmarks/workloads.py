"""The benchmark workloads: plain Python functions with data-dependent control flow, each with
its hand-written numpy twin and the inputs both run on.

Each staged function is written once, against the TensorFlow-shaped name `tf` (this module's
global, `runtime`). `with_backend(fn, module)` rebinds that global so the very same source runs
through TensorFlow's own `tf.function` when TensorFlow is importable. The numpy twins are the
tightest plain Python + numpy code for the same computation, on the same dtypes.
"""
import types

import numpy as np

import runtime as tf


class Workload:
    """One benchmark case.

    Attributes:
        name: Short identifier used in the table and the JSON.
        description: One line saying what it computes.
        fn: The plain Python function that `tf.function` stages.
        numpy_fn: The hand-written numpy version of the same computation.
        make_inputs: Callable returning the numpy input arrays (one per argument).
        calls: Calls per timing round in full mode (steady state).
        control_flow: Whether the workload has data-dependent control flow (target 1.5x)
            or not (matmul: target 1.1x).
        target: The steady-state ratio target to hand-written numpy.
        min_rounds: At least this many steady-state rounds (long calls need more rounds
            for a stable median on a noisy machine).
    """

    def __init__(self, name, description, fn, numpy_fn, make_inputs, calls, target,
                 min_rounds=1):
        self.name = name
        self.description = description
        self.fn = fn
        self.numpy_fn = numpy_fn
        self.make_inputs = make_inputs
        self.calls = calls
        self.target = target
        self.min_rounds = min_rounds


def with_backend(fn, module):
    """Returns a copy of `fn` whose global `tf` is `module` (e.g. the real TensorFlow).

    Args:
        fn: A workload function of this module.
        module: The module to bind to the name `tf`.

    Returns:
        A new function with the same code, closure and defaults.
    """
    namespace = dict(fn.__globals__)
    namespace["tf"] = module
    copy = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__qualname__ = fn.__qualname__
    copy.__module__ = fn.__module__
    return copy


# -- collatz ----------------------------------------------------------------------------------

def collatz(n):
    """Number of Collatz steps from n to 1."""
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


# numpy scalar constants, made once (as the tightest hand-written code would)
_I0, _I1, _I2, _I3 = np.int32(0), np.int32(1), np.int32(2), np.int32(3)
_I5, _I15 = np.int32(5), np.int32(15)


def collatz_numpy(n):
    """Hand-written numpy twin of `collatz` (int32 scalars)."""
    n = n[()]
    steps = _I0
    while n > _I1:
        if n % _I2 == _I0:
            n = n // _I2
        else:
            n = _I3 * n + _I1
        steps += _I1
    return steps


# -- the guide's tanh loop --------------------------------------------------------------------

def tanh_loop(x):
    """The tf.function guide's loop: squash x with tanh until its sum is at most 1."""
    while tf.reduce_sum(x) > 1:
        x = tf.tanh(x)
    return x


def tanh_loop_numpy(x):
    """Hand-written numpy twin of `tanh_loop`."""
    tanh = np.tanh
    while x.sum() > 1:
        x = tanh(x)
    return x


# -- fizzbuzz counter -------------------------------------------------------------------------

def fizzbuzz(n):
    """Counts fizzbuzz, fizz, buzz and other numbers in range(1, n + 1)."""
    fizzbuzzes = 0
    fizzes = 0
    buzzes = 0
    others = 0
    for i in range(1, n + 1):
        if i % 15 == 0:
            fizzbuzzes += 1
        elif i % 3 == 0:
            fizzes += 1
        elif i % 5 == 0:
            buzzes += 1
        else:
            others += 1
    return fizzbuzzes, fizzes, buzzes, others


def fizzbuzz_numpy(n):
    """Hand-written numpy twin of `fizzbuzz` (int32 scalars)."""
    one, zero, three, five, fifteen = _I1, _I0, _I3, _I5, _I15
    fizzbuzzes = fizzes = buzzes = others = zero
    for i in np.arange(1, n + 1, dtype=np.int32):
        if i % fifteen == zero:
            fizzbuzzes += one
        elif i % three == zero:
            fizzes += one
        elif i % five == zero:
            buzzes += one
        else:
            others += one
    return fizzbuzzes, fizzes, buzzes, others


# -- dynamic_rnn ------------------------------------------------------------------------------

RNN_BATCH, RNN_STEPS, RNN_FEATURES, RNN_UNITS = 2, 100, 4, 4
_rng = np.random.default_rng(6)
RNN_KERNEL = (_rng.standard_normal((RNN_FEATURES, RNN_UNITS)) * 0.5).astype(np.float32)
RNN_RECURRENT = (_rng.standard_normal((RNN_UNITS, RNN_UNITS)) * 0.5).astype(np.float32)
RNN_BIAS = (_rng.standard_normal((RNN_UNITS,)) * 0.1).astype(np.float32)


def rnn_cell(inputs, state):
    """A plain tanh RNN cell: returns (output, new state), both the new state."""
    state = tf.tanh(tf.matmul(inputs, RNN_KERNEL) + tf.matmul(state, RNN_RECURRENT) + RNN_BIAS)
    return state, state


def dynamic_rnn(input_data, initial_state):
    """The AutoGraph guide's dynamic_rnn (time-major): runs `rnn_cell` over time, collecting
    the outputs in a TensorArray.

    input_data is [time, batch, features]; returns ([time, batch, units], final state).
    """
    outputs = tf.TensorArray(tf.float32, input_data.shape[0])
    state = initial_state
    for i in tf.range(input_data.shape[0]):
        output, state = rnn_cell(input_data[i], state)
        outputs = outputs.write(i, output)
    return outputs.stack(), state


def dynamic_rnn_numpy(input_data, initial_state):
    """Hand-written numpy twin of `dynamic_rnn`."""
    steps = input_data.shape[0]
    outputs = np.empty((steps,) + initial_state.shape, np.float32)
    state = initial_state
    kernel, recurrent, bias = RNN_KERNEL, RNN_RECURRENT, RNN_BIAS
    for i in range(steps):
        state = np.tanh(input_data[i] @ kernel + state @ recurrent + bias)
        outputs[i] = state
    return outputs, state


# -- nested loops with break and continue -----------------------------------------------------

def first_crossing(x, threshold):
    """Row-major index of the first element where the running sum of the non-negative
    elements of matrix x passes `threshold`, or -1."""
    total = tf.constant(0.0)
    found = -1
    for i in tf.range(tf.shape(x)[0]):
        for j in tf.range(tf.shape(x)[1]):
            value = x[i, j]
            if value < _F0:
                continue
            total += value
            if total > threshold:
                found = i * tf.shape(x)[1] + j
                break
        if found >= 0:
            break
    return found, total


_F0, _IM1 = np.float32(0.0), np.int32(-1)


def first_crossing_numpy(x, threshold):
    """Hand-written numpy twin of `first_crossing`."""
    total = _F0
    found = _IM1
    threshold = threshold[()]
    rows, cols = x.shape
    for i in range(rows):
        row = x[i]
        for j in range(cols):
            value = row[j]
            if value < _F0:
                continue
            total += value
            if total > threshold:
                found = np.int32(i * cols + j)
                break
        if found >= _I0:
            break
    return found, total


# -- 50 chained elementwise ops ---------------------------------------------------------------

def elementwise_chain(x):
    """50 elementwise ops on x (the Python loop unrolls at trace time: no graph control flow)."""
    for _ in range(10):
        x = x * 1.01 + 0.1
        x = tf.tanh(x)
        x = x - 0.05
        x = tf.maximum(x, -0.5)
    return x


_F1_01, _F0_1, _F0_05, _FM0_5 = (np.float32(v) for v in (1.01, 0.1, 0.05, -0.5))


def elementwise_chain_numpy(x):
    """Hand-written numpy twin of `elementwise_chain`."""
    scale, shift, drop, floor = _F1_01, _F0_1, _F0_05, _FM0_5
    tanh, maximum = np.tanh, np.maximum
    for _ in range(10):
        x = x * scale + shift
        x = tanh(x)
        x = x - drop
        x = maximum(x, floor)
    return x


# -- matmul loop ------------------------------------------------------------------------------

MATMUL_SIZE = 512


def matmul_loop(a, b):
    """a @ b, ten times over, in a staged loop."""
    for _ in tf.range(10):
        a = tf.matmul(a, b)
    return a


def matmul_loop_numpy(a, b):
    """Hand-written numpy twin of `matmul_loop`."""
    for _ in range(10):
        a = a @ b
    return a


# -- the suite --------------------------------------------------------------------------------

def _inputs_collatz():
    return [np.array(27, np.int32)]


def _inputs_tanh():
    return [np.array([0.9, 0.8, 0.7, 0.6, 0.5], np.float32)]


def _inputs_fizzbuzz():
    return [np.array(100, np.int32)]


def _inputs_rnn():
    rng = np.random.default_rng(1)
    data = rng.standard_normal((RNN_STEPS, RNN_BATCH, RNN_FEATURES)).astype(np.float32)
    return [data, np.zeros((RNN_BATCH, RNN_UNITS), np.float32)]


def _inputs_crossing():
    rng = np.random.default_rng(2)
    x = rng.uniform(-1.0, 1.0, size=(10, 10)).astype(np.float32)
    return [x, np.array(8.0, np.float32)]


def _inputs_chain():
    return [np.linspace(-1.0, 1.0, 10).astype(np.float32)]


def _inputs_matmul():
    rng = np.random.default_rng(3)
    size = MATMUL_SIZE
    a = rng.standard_normal((size, size)).astype(np.float32)
    b = (rng.standard_normal((size, size)) / np.sqrt(size)).astype(np.float32)
    return [a, b]


CONTROL_FLOW_TARGET = 1.5
MATMUL_TARGET = 1.1

WORKLOADS = [
    Workload("collatz", "collatz steps for n=27 (while + if/else on a scalar)",
             collatz, collatz_numpy, _inputs_collatz, 2000, CONTROL_FLOW_TARGET),
    Workload("tanh_loop", "the guide's tanh loop on a 5-vector (while reduce_sum(x) > 1)",
             tanh_loop, tanh_loop_numpy, _inputs_tanh, 5000, CONTROL_FLOW_TARGET),
    Workload("fizzbuzz", "fizzbuzz counter over range(1, n+1), if/elif chain, n=100",
             fizzbuzz, fizzbuzz_numpy, _inputs_fizzbuzz, 500, CONTROL_FLOW_TARGET),
    Workload("dynamic_rnn", "dynamic_rnn with a TensorArray, batch 2, T=100, 4 features",
             dynamic_rnn, dynamic_rnn_numpy, _inputs_rnn, 200, CONTROL_FLOW_TARGET),
    Workload("nested_break", "nested loops with break/continue: first running-sum crossing",
             first_crossing, first_crossing_numpy, _inputs_crossing, 1000,
             CONTROL_FLOW_TARGET),
    Workload("elementwise_50", "50 chained elementwise ops on a 10-vector, no control flow",
             elementwise_chain, elementwise_chain_numpy, _inputs_chain, 2000,
             CONTROL_FLOW_TARGET),
    Workload("matmul_loop", "512x512 float32 matmul, 10 times in a staged loop",
             matmul_loop, matmul_loop_numpy, _inputs_matmul, 1, MATMUL_TARGET, min_rounds=15),
]
