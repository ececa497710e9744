"""The benchmark workloads: plain Python functions with data-dependent control flow, each with
its tightest hand-written reference and the inputs both run on.

Each staged function is written once, against the TensorFlow-shaped name `tf` (this module's
global, `runtime`). `with_backend(fn, module)` rebinds that global so the very same source runs
through TensorFlow's own `tf.function` (or JAX) when it is importable.

The references (`*_reference`) are the limit: the tightest plain Python + numpy a
performance-minded person would write for the same computation and result dtypes. Python ints
and floats for scalar state, `tolist()` and list indexing instead of numpy scalar indexing,
ufuncs with `out=` into buffers that are dead, arrays preallocated, constants made once. Each
says where it departs from the staged arithmetic (only where the result provably cannot
differ on the benchmark's input, or by float rounding, which the result check tolerates).
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
        reference_fn: The tightest hand-written version of the same computation.
        make_inputs: Callable returning the numpy input arrays (one per argument).
        calls: Calls per timing round in full mode (steady state).
        target: The steady-state ratio target to the reference.
        min_rounds: At least this many steady-state rounds (long calls need more rounds
            for a stable median on a noisy machine).
        exact_reference_fn: Where `reference_fn` rounds differently from the staged dtypes
            (a float32 sum kept in a Python float), the tightest code with the same results,
            bit for bit; else None.
    """

    def __init__(self, name, description, fn, reference_fn, make_inputs, calls, target,
                 min_rounds=1, exact_reference_fn=None):
        self.name = name
        self.description = description
        self.fn = fn
        self.reference_fn = reference_fn
        self.make_inputs = make_inputs
        self.calls = calls
        self.target = target
        self.min_rounds = min_rounds
        self.exact_reference_fn = exact_reference_fn


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
    # The helpers it calls (rnn_cell, ...) read the new `tf` too.
    for name, value in fn.__globals__.items():
        if isinstance(value, types.FunctionType) and value.__globals__ is fn.__globals__:
            namespace[name] = _rebound(value, namespace)
    return _rebound(fn, namespace)


def _rebound(fn, namespace):
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


def collatz_reference(n):
    """Tightest hand-written `collatz`: Python ints for the scalar state (the values stay far
    inside int32 for this input, so no wrap-around can differ), one int32 at the end."""
    n = int(n)
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return np.int32(steps)


# -- the guide's tanh loop --------------------------------------------------------------------

def tanh_loop(x):
    """The tf.function guide's loop: squash x with tanh until its sum is at most 1."""
    while tf.reduce_sum(x) > 1:
        x = tf.tanh(x)
    return x


def tanh_loop_reference(x):
    """Tightest hand-written `tanh_loop`: one copy of the input, then tanh in place (out=),
    the sum through the ufunc's reduce (no method dispatch)."""
    x = x.copy()
    tanh, total = np.tanh, np.add.reduce
    while total(x) > 1:
        tanh(x, out=x)
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


def fizzbuzz_reference(n):
    """Tightest hand-written `fizzbuzz`: Python ints and range (counts are at most n, far
    inside int32), int32 results at the end."""
    fizzbuzzes = fizzes = buzzes = others = 0
    for i in range(1, int(n) + 1):
        if i % 15 == 0:
            fizzbuzzes += 1
        elif i % 3 == 0:
            fizzes += 1
        elif i % 5 == 0:
            buzzes += 1
        else:
            others += 1
    i32 = np.int32
    return i32(fizzbuzzes), i32(fizzes), i32(buzzes), i32(others)


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
    outputs = tf.TensorArray(tf.float32, input_data.shape[0], element_shape=initial_state.shape)
    state = initial_state
    for i in tf.range(input_data.shape[0]):
        output, state = rnn_cell(input_data[i], state)
        outputs = outputs.write(i, output)
    return outputs.stack(), state


def dynamic_rnn_reference(input_data, initial_state):
    """Tightest hand-written `dynamic_rnn`: the output preallocated, every step computed with
    out= into two scratch buffers and the tanh written straight into its output row."""
    steps = input_data.shape[0]
    outputs = np.empty((steps,) + initial_state.shape, np.float32)
    scratch = np.empty(initial_state.shape, np.float32)
    recurrent_part = np.empty(initial_state.shape, np.float32)
    matmul, add, tanh = np.matmul, np.add, np.tanh
    kernel, recurrent, bias = RNN_KERNEL, RNN_RECURRENT, RNN_BIAS
    state = initial_state
    for i in range(steps):
        matmul(input_data[i], kernel, out=scratch)
        matmul(state, recurrent, out=recurrent_part)
        add(scratch, recurrent_part, out=scratch)
        add(scratch, bias, out=scratch)
        state = outputs[i]
        tanh(scratch, out=state)
    return outputs, state.copy()


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


_F0 = np.float32(0.0)


def first_crossing_reference(x, threshold):
    """Tightest hand-written `first_crossing`: the matrix as nested Python lists (tolist())
    and Python scalars for the state. The sum is accumulated in float64 where the staged
    version rounds to float32 after each add (a 1e-7 relative difference on this input)."""
    total = 0.0
    found = -1
    threshold = float(threshold)
    cols = x.shape[1]
    for i, row in enumerate(x.tolist()):
        for j, value in enumerate(row):
            if value < 0.0:
                continue
            total += value
            if total > threshold:
                found = i * cols + j
                break
        if found >= 0:
            break
    return np.int32(found), np.float32(total)


_SPLIT = 536870913.0  # 2**29 + 1
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def first_crossing_float32_reference(x, threshold):
    """Tightest `first_crossing` with the staged float32 sum, bit for bit: Python floats, each
    sum rounded to float32 by Veltkamp's split (`c = t * (2**29 + 1); c - (c - t)` rounds a
    double to 24 bits, ties to even; the double sum of two float32 values rounded so is their
    float32 sum), and numpy for a sum past float32's range (it is inf there)."""
    total = 0.0
    found = -1
    threshold = float(threshold)
    cols = x.shape[1]
    for i, row in enumerate(x.tolist()):
        for j, value in enumerate(row):
            if value < 0.0:
                continue
            exact = total + value
            c = exact * _SPLIT
            total = c - (c - exact)
            if not -_FLOAT32_MAX <= total <= _FLOAT32_MAX:  # inf (or nan) in float32
                total = float(np.float32(exact))
            if total > threshold:
                found = i * cols + j
                break
        if found >= 0:
            break
    return np.int32(found), np.float32(total)


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


def elementwise_chain_reference(x):
    """Tightest hand-written `elementwise_chain`: one new array, then every op in place
    (out=), float32 constants made once."""
    scale, shift, drop, floor = _F1_01, _F0_1, _F0_05, _FM0_5
    multiply, add, subtract, tanh, maximum = (np.multiply, np.add, np.subtract, np.tanh,
                                              np.maximum)
    x = multiply(x, scale)
    for k in range(10):
        if k:
            multiply(x, scale, out=x)
        add(x, shift, out=x)
        tanh(x, out=x)
        subtract(x, drop, out=x)
        maximum(x, floor, out=x)
    return x


# -- a large elementwise chain ----------------------------------------------------------------

LARGE_SIZE = 1000


def large_chain(x):
    """20 elementwise ops on a 1000x1000 float32 array (unrolled at trace time)."""
    for _ in range(5):
        x = x * 0.9 + 0.05
        x = tf.tanh(x)
        x = tf.maximum(x, -0.5)
    return x


_F0_9 = np.float32(0.9)
_F0_05B = np.float32(0.05)


def large_chain_reference(x):
    """Tightest hand-written `large_chain`: one new 4 MB array, then every op in place."""
    multiply, add, tanh, maximum = np.multiply, np.add, np.tanh, np.maximum
    scale, shift, floor = _F0_9, _F0_05B, _FM0_5
    x = multiply(x, scale)
    for k in range(5):
        if k:
            multiply(x, scale, out=x)
        add(x, shift, out=x)
        tanh(x, out=x)
        maximum(x, floor, out=x)
    return x


# -- matmul loop ------------------------------------------------------------------------------

MATMUL_SIZE = 512


def matmul_loop(a, b):
    """a @ b, ten times over, in a staged loop."""
    for _ in tf.range(10):
        a = tf.matmul(a, b)
    return a


def matmul_loop_reference(a, b):
    """Tightest hand-written `matmul_loop`: two buffers, each product written with out= into
    the one not being read."""
    matmul = np.matmul
    current = matmul(a, b)
    spare = np.empty_like(current)
    for _ in range(9):
        matmul(current, b, out=spare)
        current, spare = spare, current
    return current


# -- collatz over a vector, counts in a TensorArray ------------------------------------------

def collatz_vector(ns):
    """Collatz steps of every element of ns, written into a TensorArray in a nested loop."""
    steps = tf.TensorArray(tf.int32, size=tf.shape(ns)[0], element_shape=())
    for k in tf.range(tf.shape(ns)[0]):
        n = ns[k]
        count = 0
        while n > 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            count += 1
        steps = steps.write(k, count)
    return steps.stack()


def collatz_vector_reference(ns):
    """Tightest hand-written `collatz_vector`: the input as a list of Python ints, the counts
    in a Python list, one int32 array at the end (the values stay far inside int32)."""
    counts = []
    append = counts.append
    for n in ns.tolist():
        count = 0
        while n > 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            count += 1
        append(count)
    return np.array(counts, np.int32)


# -- an elementwise RNN writing a TensorArray per step ----------------------------------------

STEPS_T, STEPS_UNITS = 100, 8
STEPS_WEIGHT = np.float32(0.5)


def rnn_steps(xs, state):
    """A tanh recurrence over time, one TensorArray row per step (the cost of each step is
    small, so what the TensorArray costs shows)."""
    outputs = tf.TensorArray(tf.float32, size=tf.shape(xs)[0], element_shape=state.shape)
    for i in tf.range(tf.shape(xs)[0]):
        state = tf.tanh(xs[i] * STEPS_WEIGHT + state)
        outputs = outputs.write(i, state)
    return outputs.stack(), state


def rnn_steps_reference(xs, state):
    """Tightest hand-written `rnn_steps`: the output preallocated, each step computed with out=
    into one scratch buffer and the tanh written straight into its output row."""
    steps = xs.shape[0]
    outputs = np.empty((steps,) + state.shape, np.float32)
    scratch = np.empty(state.shape, np.float32)
    multiply, add, tanh, weight = np.multiply, np.add, np.tanh, STEPS_WEIGHT
    for i in range(steps):
        multiply(xs[i], weight, out=scratch)
        add(scratch, state, out=scratch)
        state = outputs[i]
        tanh(scratch, out=state)
    return outputs, state.copy()


# -- float32 running sums with continue and break ---------------------------------------------

def first_exceed(x, limit):
    """Index of the first element where the float32 running sum of the non-negative elements
    of vector x passes `limit` (-1 if none), and the sum there."""
    total = tf.constant(0.0)
    index = -1
    for i in tf.range(tf.shape(x)[0]):
        value = x[i]
        if value < _F0:
            continue
        total += value
        if total > limit:
            index = i
            break
    return index, total


def first_exceed_reference(x, limit):
    """Tightest hand-written `first_exceed`: the vector as a list of Python floats, the sum in
    a Python float (float64: it rounds differently from the staged float32 sum, a 1e-7
    relative difference on this input)."""
    total = 0.0
    index = -1
    limit = float(limit)
    for i, value in enumerate(x.tolist()):
        if value < 0.0:
            continue
        total += value
        if total > limit:
            index = i
            break
    return np.int32(index), np.float32(total)


def first_exceed_float32_reference(x, limit):
    """Tightest `first_exceed` with the staged float32 sum, bit for bit (each sum rounded to
    float32 by Veltkamp's split, as in first_crossing_float32_reference)."""
    total = 0.0
    index = -1
    limit = float(limit)
    for i, value in enumerate(x.tolist()):
        if value < 0.0:
            continue
        exact = total + value
        c = exact * _SPLIT
        total = c - (c - exact)
        if not -_FLOAT32_MAX <= total <= _FLOAT32_MAX:  # inf (or nan) in float32
            total = float(np.float32(exact))
        if total > limit:
            index = i
            break
    return np.int32(index), np.float32(total)


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


def _inputs_collatz_vector():
    return [np.arange(1, 33, dtype=np.int32)]


def _inputs_steps():
    rng = np.random.default_rng(7)
    xs = rng.standard_normal((STEPS_T, STEPS_UNITS)).astype(np.float32)
    return [xs, np.zeros(STEPS_UNITS, np.float32)]


def _inputs_exceed():
    rng = np.random.default_rng(8)
    return [rng.uniform(-1.0, 1.0, size=400).astype(np.float32), np.array(40.0, np.float32)]


def _inputs_chain():
    return [np.linspace(-1.0, 1.0, 10).astype(np.float32)]


def _inputs_large():
    rng = np.random.default_rng(4)
    return [rng.uniform(-1.0, 1.0, size=(LARGE_SIZE, LARGE_SIZE)).astype(np.float32)]


def _inputs_matmul():
    rng = np.random.default_rng(3)
    size = MATMUL_SIZE
    a = rng.standard_normal((size, size)).astype(np.float32)
    b = (rng.standard_normal((size, size)) / np.sqrt(size)).astype(np.float32)
    return [a, b]


CONTROL_FLOW_TARGET = 1.5
MATMUL_TARGET = 1.1
LARGE_TARGET = 1.1

WORKLOADS = [
    Workload("collatz", "collatz steps for n=27 (while + if/else on a scalar)",
             collatz, collatz_reference, _inputs_collatz, 2000, CONTROL_FLOW_TARGET),
    Workload("tanh_loop", "the guide's tanh loop on a 5-vector (while reduce_sum(x) > 1)",
             tanh_loop, tanh_loop_reference, _inputs_tanh, 5000, CONTROL_FLOW_TARGET),
    Workload("fizzbuzz", "fizzbuzz counter over range(1, n+1), if/elif chain, n=100",
             fizzbuzz, fizzbuzz_reference, _inputs_fizzbuzz, 500, CONTROL_FLOW_TARGET),
    Workload("dynamic_rnn", "dynamic_rnn with a TensorArray, batch 2, T=100, 4 features",
             dynamic_rnn, dynamic_rnn_reference, _inputs_rnn, 200, CONTROL_FLOW_TARGET),
    Workload("nested_break", "nested loops with break/continue: first running-sum crossing",
             first_crossing, first_crossing_reference, _inputs_crossing, 1000,
             CONTROL_FLOW_TARGET, exact_reference_fn=first_crossing_float32_reference),
    Workload("collatz_vector", "collatz steps of a 32-vector, counts in a TensorArray (nested loop)",
             collatz_vector, collatz_vector_reference, _inputs_collatz_vector, 300,
             CONTROL_FLOW_TARGET),
    Workload("rnn_steps", "elementwise tanh RNN, 8 units, T=100, a TensorArray row per step",
             rnn_steps, rnn_steps_reference, _inputs_steps, 500, CONTROL_FLOW_TARGET),
    Workload("first_exceed", "float32 running sum of a 400-vector with continue and break",
             first_exceed, first_exceed_reference, _inputs_exceed, 500, CONTROL_FLOW_TARGET,
             exact_reference_fn=first_exceed_float32_reference),
    Workload("elementwise_50", "50 chained elementwise ops on a 10-vector, no control flow",
             elementwise_chain, elementwise_chain_reference, _inputs_chain, 2000,
             CONTROL_FLOW_TARGET),
    Workload("large_chain", "20 chained elementwise ops on a 1000x1000 float32 array",
             large_chain, large_chain_reference, _inputs_large, 3, LARGE_TARGET, min_rounds=9),
    Workload("matmul_loop", "512x512 float32 matmul, 10 times in a staged loop",
             matmul_loop, matmul_loop_reference, _inputs_matmul, 1, MATMUL_TARGET, min_rounds=15),
]
