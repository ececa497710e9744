"""The benchmark suite: staged workloads versus the tightest hand-written code (and TensorFlow
and JAX on the same source, when installed).

Run `python -m benchmarks` or `python benchmarks/run.py [--quick] [--output PATH]`. For every
workload in benchmarks/workloads.py it measures, in rounds (the median is reported, with the
min and max; the machine is noisy):

- steady state: the time per call of the `runtime.function`, side by side with the workload's
  reference (the tightest plain Python + numpy; rounds interleaved), and their ratio; the same
  for `tf.function` and `jax.jit(autograph.convert(fn))` when they import and run the source;
- first call, warm process: conversion + trace + compile + one run, from an empty conversion
  cache, in this process (everything imported, the source file read);
- first call, fresh process: the same as the first thing a new interpreter does after
  `import runtime` (a child process per round), with the on-disk conversion cache off, and
  again with it filled by an earlier run (the conversion is then loaded, not redone);
- cold conversion: `autograph.convert` from an empty conversion cache;
- repeat conversion: `autograph.convert` of a function whose conversion is cached.

It checks that every staged result equals its reference's, then measures `import runtime` in
fresh processes, the growth of conversion and trace+compile over generated 50..2000-line
functions (with exponents fitted on log-log), and the memory retained per converted and traced
small function. It prints tables and writes JSON (default benchmarks/results.json). `--quick` is
a smoke run: one round, few calls, tiny growth sizes; its timings mean nothing.
"""
import argparse
import datetime
import importlib.util
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

if __package__ in (None, ""):  # `python benchmarks/run.py`: make the repository importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import autograph  # noqa: E402
import runtime  # noqa: E402
from autograph.impl import conversion  # noqa: E402
from runtime.function import RetracingWarning  # noqa: E402
from benchmarks import workloads  # noqa: E402

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results.json")
GROWTH_SIZES = (50, 100, 250, 500, 1000, 2000)
QUICK_GROWTH_SIZES = (30, 60)
# Targets (seconds unless said otherwise).
COLD_CONVERT_TARGET = 5e-3
REPEAT_CONVERT_TARGET = 5e-6
FIRST_CALL_TARGET = 10e-3  # warm process
FRESH_FIRST_CALL_TARGET = 5e-3  # fresh process, after `import runtime`
IMPORT_TARGET = 30e-3
GROWTH_EXPONENT_TARGET = 1.1
GROWTH_2000_TARGET = 0.5  # convert, and trace+compile, of the 2,000-line function
MEMORY_TARGET_KB = 30.0
GROWTH_BUDGET = 120.0  # seconds for the whole growth check (each size in a child process)
MEMORY_FUNCTIONS = 100
MEMORY_LINES = 1000  # the generated function whose retained bytes per line are measured
QUICK_MEMORY_LINES = 60

_perf = time.perf_counter


class Settings:
    """How much to measure.

    Attributes:
        rounds: Timing rounds for steady-state calls (median reported).
        call_scale: Multiplier on each workload's calls per round.
        cold_rounds: Rounds for first-call and cold-conversion timings.
        repeat_calls: Calls per round of the repeat-conversion timing.
        growth_sizes: Line counts of the growth check.
        fresh_rounds: Child processes per fresh-process timing.
        growth_runs: Child processes per size of the growth check (medians reported).
        memory_functions: Small functions converted and traced by the memory check.
    """

    def __init__(self, quick):
        self.rounds = 1 if quick else 7
        self.call_scale = None if quick else 1.0
        self.cold_rounds = 1 if quick else 7
        self.repeat_calls = 10 if quick else 2000
        self.growth_sizes = QUICK_GROWTH_SIZES if quick else GROWTH_SIZES
        self.fresh_rounds = 1 if quick else 11
        self.growth_runs = 1 if quick else 3
        self.memory_functions = 10 if quick else MEMORY_FUNCTIONS

    def calls(self, workload):
        """Returns the calls per steady-state round for `workload`."""
        if self.call_scale is None:
            return 2
        return max(1, int(workload.calls * self.call_scale))


# -- measuring --------------------------------------------------------------------------------

def clear_conversion_cache():
    """Empties autograph's per-code-object conversion cache (cold conversions start here)."""
    conversion.clear_cache()


def summary(samples):
    """Returns {'median', 'min', 'max', 'rounds'} of a list of seconds."""
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples),
            "rounds": len(samples)}


def _per_call(fn, args, calls):
    start = _perf()
    for _ in range(calls):
        fn(*args)
    return (_perf() - start) / calls


def steady_state(contenders, calls, rounds):
    """Times several callables side by side: each round runs each of them `calls` times.

    Args:
        contenders: Dict name -> (callable, argument tuple); each is called once first.
        calls: Calls per round.
        rounds: Number of rounds.

    Returns:
        Dict name -> summary() of the time per call.
    """
    samples = {name: [] for name in contenders}
    for fn, args in contenders.values():
        fn(*args)
    for _ in range(rounds):
        for name, (fn, args) in contenders.items():
            samples[name].append(_per_call(fn, args, calls))
    return {name: summary(times) for name, times in samples.items()}


def cold_convert(fn, rounds):
    """Times `autograph.convert(fn)` from an empty conversion cache."""
    samples = []
    for _ in range(rounds):
        clear_conversion_cache()
        start = _perf()
        autograph.convert(fn)
        samples.append(_perf() - start)
    return summary(samples)


def repeat_convert(fn, calls, rounds):
    """Times `autograph.convert(fn)` when `fn`'s conversion is cached."""
    autograph.convert(fn)
    convert = autograph.convert
    samples = []
    for _ in range(rounds):
        start = _perf()
        for _ in range(calls):
            convert(fn)
        samples.append((_perf() - start) / calls)
    return summary(samples)


def first_call(fn, tensors, rounds):
    """Times the first call of a fresh `runtime.function(fn)`, from an empty conversion cache.

    Returns:
        (summary of the times, the call's result).
    """
    samples = []
    result = None
    for _ in range(rounds):
        clear_conversion_cache()
        start = _perf()
        staged = runtime.function(fn)
        with warnings.catch_warnings():  # a new Function per round is the point here
            warnings.simplefilter("ignore", RetracingWarning)
            result = staged(*tensors)
        samples.append(_perf() - start)
    return summary(samples), result


_FRESH_SCRIPT = """
import json, sys, time
start = time.perf_counter()
import numpy
numpy_done = time.perf_counter()
import runtime
runtime_done = time.perf_counter()
name = sys.argv[1]
if name:
    from benchmarks import workloads
    workload = {w.name: w for w in workloads.WORKLOADS}[name]
    tensors = [runtime.constant(a) for a in workload.make_inputs()]
    call_start = time.perf_counter()
    runtime.function(workload.fn)(*tensors)
    first_call = time.perf_counter() - call_start
else:
    first_call = None
print(json.dumps({"import_numpy": numpy_done - start, "import_runtime": runtime_done - numpy_done,
                  "first_call": first_call}))
"""


_BYTECODE_READY = []


def _child_env():
    """The environment of the fresh processes: a user's, with bytecode caching on.

    `pip install` compiles a package's bytecode, and Python caches it for a checkout on first
    import. With PYTHONDONTWRITEBYTECODE set (as on some CI machines), every fresh process
    would compile autograph and runtime from source (~110 ms) and time that instead.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not _BYTECODE_READY:
        subprocess.run([sys.executable, "-m", "compileall", "-q", "autograph", "runtime",
                        "benchmarks"], cwd=_ROOT, env=env, capture_output=True, check=False)
        _BYTECODE_READY.append(True)
    return env


def _fresh_child(name, env):
    """One child process of `_FRESH_SCRIPT`: its row of times (seconds)."""
    proc = subprocess.run([sys.executable, "-c", _FRESH_SCRIPT, name], capture_output=True,
                          text=True, cwd=_ROOT, timeout=120, check=False, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"the fresh-process run of {name or 'import'} failed:\n"
                           f"{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def fresh_processes(names, rounds, disk_cache_dirs=None):
    """Runs `_FRESH_SCRIPT` in `rounds` new interpreters per name (bytecode cached, see
    _child_env), interleaved: each round runs one child per name, so that a burst of load on
    the machine falls on a few samples of every name rather than on all samples of one.

    The on-disk cache of converted code is off unless `disk_cache_dirs` is given (name ->
    directory): then one untimed child per name first fills it, and the timed ones load the
    conversion from it (what every run of a script after its first does).

    Args:
        names: Workload names (each one's first call is timed right after `import runtime`),
            or '' to time the imports only.
        rounds: Child processes per name.
        disk_cache_dirs: None, or a dict name -> cache directory.

    Returns:
        Dict name -> dict with summaries of 'import_numpy', 'import_runtime' (numpy already
        imported) and, for a workload, 'first_call'.
    """
    base = _child_env()
    envs, filled = {}, {}
    for name in names:
        directory = (disk_cache_dirs or {}).get(name, "")
        envs[name] = dict(base, AUTOGRAPH_CACHE_DIR=directory,
                          AUTOGRAPH_BENCH_CACHE_DIR=directory)
        if directory:
            _fresh_child(name, envs[name])  # the untimed run that fills the disk cache
            filled[name] = _cache_entries(directory)
            if not filled[name] and name:
                raise RuntimeError(f"the run of {name} that fills the disk cache wrote no "
                                   f"entry in {directory}")
    samples = {name: {"import_numpy": [], "import_runtime": [], "first_call": []}
               for name in names}
    for _ in range(rounds):
        for name in names:
            for key, value in _fresh_child(name, envs[name]).items():
                if value is not None:
                    samples[name][key].append(value)
    for name, entries in filled.items():
        if _cache_entries(disk_cache_dirs[name]) != entries:
            raise RuntimeError(f"the timed runs of {name} converted again instead of loading "
                               f"the disk cache in {disk_cache_dirs[name]}")
    return {name: {key: summary(values) for key, values in rows.items() if values}
            for name, rows in samples.items()}


def fresh_process(name, rounds, disk_cache_dir=""):
    """`fresh_processes` for one name (see there)."""
    dirs = {name: disk_cache_dir} if disk_cache_dir else None
    return fresh_processes([name], rounds, dirs)[name]


def _cache_entries(directory):
    """The entries of an on-disk conversion cache directory (a set of relative paths)."""
    return {os.path.join(sub, entry) for sub in os.listdir(directory)
            if os.path.isdir(os.path.join(directory, sub))
            for entry in os.listdir(os.path.join(directory, sub))}


def flatten_result(value):
    """Returns the numpy arrays of a (nested) staged or numpy result, in order."""
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in flatten_result(item)]
    if hasattr(value, "numpy"):
        value = value.numpy()
    return [np.asarray(value)]


def results_match(staged, expected, exact=False):
    """Returns (True, '') if the staged result equals the reference's, else (False, why).

    The values are compared to a relative 1e-5, or bit for bit when `exact`.
    """
    got, want = flatten_result(staged), flatten_result(expected)
    if len(got) != len(want):
        return False, f"{len(got)} outputs, reference has {len(want)}"
    for i, (a, b) in enumerate(zip(got, want)):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False, (f"output {i}: {a.dtype}{list(a.shape)}, reference has "
                           f"{b.dtype}{list(b.shape)}")
        if not (np.array_equal(a, b) if exact else np.allclose(a, b, rtol=1e-5, atol=1e-6)):
            return False, f"output {i}: values differ: {a!r} versus {b!r}"
    return True, ""


def _import_tensorflow():
    if importlib.util.find_spec("tensorflow") is None:
        return None
    try:
        import tensorflow  # pylint: disable=import-outside-toplevel
    except Exception:  # noqa: BLE001 - a broken optional install is simply not compared
        return None
    return tensorflow


def _rounds(settings, workload):
    """Steady-state rounds for `workload` (a full run gives slow workloads more)."""
    return settings.rounds if settings.call_scale is None else max(settings.rounds,
                                                                   workload.min_rounds)


def tensorflow_row(name, quick):
    """The internal `--tensorflow-row`: workload `name` under `tf.function` in this process.

    TensorFlow runs in a process of its own, so that its import (about 2 s), its thread pools
    and its memory stay out of the process that times the runtime and numpy (whose BLAS
    threads share the same cores).

    Returns:
        Dict with 'version' (None when TensorFlow is not importable) and 'first_call' and
        'steady' (a summary()).
    """
    tensorflow = _import_tensorflow()
    if tensorflow is None:
        return {"version": None}
    settings = Settings(quick)
    workload = {w.name: w for w in workloads.WORKLOADS}[name]
    fn = tensorflow.function(workloads.with_backend(workload.fn, tensorflow))
    inputs = [tensorflow.constant(a) for a in workload.make_inputs()]
    start = _perf()
    fn(*inputs)
    first = _perf() - start
    timings = steady_state({"tensorflow": (fn, inputs)}, settings.calls(workload),
                           _rounds(settings, workload))
    return {"version": tensorflow.__version__, "first_call": first,
            "steady": timings["tensorflow"]}


def tensorflow_contender(workload, settings):
    """Runs tensorflow_row for `workload` in a child process; None without TensorFlow."""
    if importlib.util.find_spec("tensorflow") is None:
        return None
    command = [sys.executable, "-m", "benchmarks.run", "--tensorflow-row", workload.name]
    proc = subprocess.run(command + (["--quick"] if settings.call_scale is None else []),
                          capture_output=True, text=True, cwd=_ROOT, timeout=600, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"the TensorFlow run of {workload.name} failed:\n{proc.stderr}")
    row = json.loads(proc.stdout.strip().splitlines()[-1])
    return row if row["version"] is not None else None


class _JaxNamespace:
    """The names the workloads use from `tf`, on jax.numpy (for the same source under JAX)."""

    def __init__(self, jnp):
        self.reduce_sum = jnp.sum
        self.tanh = jnp.tanh
        self.maximum = jnp.maximum
        self.matmul = jnp.matmul
        self.constant = jnp.asarray
        self.shape = jnp.shape
        self.range = range
        self.float32 = jnp.float32
        self.int32 = jnp.int32
        self.TensorArray = _jax_tensor_array(jnp)  # pylint: disable=invalid-name


_JAX_TENSOR_ARRAY = {}


def _jax_tensor_array(jnp):
    """tf.TensorArray's fixed-size `write`/`stack` on jax: a preallocated array updated in place
    (`lax.dynamic_update_slice`, `.at[i].set` without its negative-index handling), as a
    JAX user writes it by hand; a pytree, so it can be a loop variable of lax loops."""
    if "class" in _JAX_TENSOR_ARRAY:
        return _JAX_TENSOR_ARRAY["class"]
    import jax  # pylint: disable=import-outside-toplevel

    @jax.tree_util.register_pytree_node_class
    class TensorArray:
        def __init__(self, dtype, size, element_shape=None, buffer=None):
            self.dtype, self.size, self.element_shape = dtype, size, tuple(element_shape)
            self.buffer = (jnp.zeros((size,) + self.element_shape, dtype) if buffer is None
                           else buffer)

        def write(self, index, value):
            # a TensorArray index is never negative: no wrap-around select, as by hand
            return TensorArray(self.dtype, self.size, self.element_shape,
                               jax.lax.dynamic_update_slice(
                                   self.buffer, jnp.expand_dims(value, 0),
                                   (index,) + (0,) * len(self.element_shape),
                                   allow_negative_indices=False))

        def stack(self):
            return self.buffer

        def tree_flatten(self):
            return (self.buffer,), (self.dtype, self.size, self.element_shape)

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*aux, buffer=children[0])

    _JAX_TENSOR_ARRAY["class"] = TensorArray
    return TensorArray


def _import_jax():
    if importlib.util.find_spec("jax") is None:
        return None
    try:
        import jax  # pylint: disable=import-outside-toplevel
    except Exception:  # noqa: BLE001 - a broken optional install is simply not compared
        return None
    return jax


def jax_contender(workload, inputs, jax):
    """Returns (callable, arguments, first-call seconds, None) running `workload.fn`'s source as
    `jax.jit(autograph.convert(fn))`, or (None, None, None, why) when JAX cannot run it."""
    fn = workloads.with_backend(workload.fn, _JaxNamespace(jax.numpy))
    args = [jax.numpy.asarray(a) for a in inputs]
    start = _perf()
    try:
        with warnings.catch_warnings():  # autograph's notes about jax's own functions
            warnings.simplefilter("ignore")
            jitted = jax.jit(autograph.convert(fn))
            result = jitted(*args)
            jax.block_until_ready(result)
    except Exception as e:  # noqa: BLE001 - reported in the table's notes, not raised
        first_line = (str(e).strip().splitlines() or [""])[0]
        return None, None, None, f"{type(e).__name__}: {first_line[:90]}"
    first = _perf() - start

    def call(*a):
        return jax.block_until_ready(jitted(*a))
    return call, args, first, None


def add_fresh_first_calls(records, rounds):
    """Adds 'fresh_first_call' and 'fresh_cached_first_call' to each workload record: the
    first call in new processes, from scratch and with the disk cache filled, all workloads
    interleaved (see fresh_processes)."""
    names = [r["name"] for r in records]
    fresh = fresh_processes(names, rounds)
    with tempfile.TemporaryDirectory() as root:
        dirs = {name: os.path.join(root, name) for name in names}
        for directory in dirs.values():
            os.makedirs(directory)
        cached = fresh_processes(names, rounds, dirs)
    for record in records:
        record["fresh_first_call"] = fresh[record["name"]]["first_call"]
        record["fresh_cached_first_call"] = cached[record["name"]]["first_call"]
        record["targets"]["fresh_first_call"] = (record["fresh_first_call"]["median"]
                                                 < FRESH_FIRST_CALL_TARGET)
        record["targets"]["fresh_cached_first_call"] = (
            record["fresh_cached_first_call"]["median"] < FRESH_FIRST_CALL_TARGET)


def run_workload(workload, settings, tensorflow=False, jax=None):
    """Measures one workload and returns its JSON record (with TensorFlow, in a child
    process, when `tensorflow` is true and it is installed)."""
    inputs = workload.make_inputs()
    tensors = [runtime.constant(a) for a in inputs]
    record = {"name": workload.name, "description": workload.description,
              "target_ratio": workload.target}
    record["cold_convert"] = cold_convert(workload.fn, settings.cold_rounds)
    record["repeat_convert"] = repeat_convert(workload.fn, settings.repeat_calls,
                                              settings.rounds)
    record["first_call"], staged_result = first_call(workload.fn, tensors,
                                                     settings.cold_rounds)
    expected = workload.reference_fn(*inputs)
    record["match"], record["mismatch"] = results_match(staged_result, expected)
    staged = runtime.function(workload.fn)
    contenders = {"staged": (staged, tensors), "reference": (workload.reference_fn, inputs)}
    if workload.exact_reference_fn is not None:
        same, why = results_match(staged_result, workload.exact_reference_fn(*inputs),
                                  exact=True)
        if not same:
            record["match"] = False
            record["mismatch"] = f"against the exact reference: {why}"
        contenders["exact"] = (workload.exact_reference_fn, inputs)
    tf_row = tensorflow_contender(workload, settings) if tensorflow else None
    if tf_row is not None:
        record["tensorflow_version"] = tf_row["version"]
        record["tf_first_call"] = tf_row["first_call"]
    if jax is not None:
        jax_fn, jax_args, record["jax_first_call"], record["jax_error"] = jax_contender(
            workload, inputs, jax)
        if jax_fn is not None:
            contenders["jax"] = (jax_fn, jax_args)
    timings = steady_state(contenders, settings.calls(workload), _rounds(settings, workload))
    if tf_row is not None:
        timings["tensorflow"] = tf_row["steady"]
    record["steady"] = timings["staged"]
    record["reference"] = timings["reference"]
    record["ratio"] = timings["staged"]["median"] / timings["reference"]["median"]
    if "exact" in timings:
        record["exact_reference"] = timings["exact"]
        record["exact_ratio"] = timings["staged"]["median"] / timings["exact"]["median"]
    for other in ("tensorflow", "jax"):
        if other in timings:
            record[other] = timings[other]
            record[other + "_ratio"] = timings[other]["median"] / timings["staged"]["median"]
    record["targets"] = {
        "steady_ratio": record["ratio"] <= workload.target,
        "cold_convert": record["cold_convert"]["median"] < COLD_CONVERT_TARGET,
        "repeat_convert": record["repeat_convert"]["median"] < REPEAT_CONVERT_TARGET,
        "first_call": record["first_call"]["median"] < FIRST_CALL_TARGET,
    }
    return record


# -- the growth check -------------------------------------------------------------------------

_GROWTH_HEADER = "import runtime as tf\n\n\ndef generated(x, y):\n"
_GROWTH_BLOCK = (
    "    x = tf.tanh(x * 0.5 + y)\n"
    "    if tf.reduce_sum(x) > 0.0:\n"
    "        y = y - x\n"
    "    else:\n"
    "        y = y + 1.0\n"
    "    while tf.reduce_sum(y) > 100.0:\n"
    "        y = y * 0.5\n"
)
_GROWTH_FOOTER = "    return x + y\n"


def growth_source(lines):
    """Returns the source of a module defining `generated(x, y)`, a function of about `lines`
    lines made of repeated blocks (elementwise ops, an if/else and a while loop on tensors)."""
    blocks = max(1, (lines - 2) // _GROWTH_BLOCK.count("\n"))
    return _GROWTH_HEADER + _GROWTH_BLOCK * blocks + _GROWTH_FOOTER


def _load_generated(source, directory, lines):
    path = os.path.join(directory, f"generated_{lines}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(f"_bench_generated_{lines}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generated


def count_nodes(graph):
    """Returns the number of nodes of `graph`, including those of its subgraphs."""
    total = 0
    stack = [graph]
    while stack:
        g = stack.pop()
        for node in g.nodes:
            total += 1
            for value in node.attrs.values():
                if isinstance(value, runtime.graph.Graph):
                    stack.append(value)
    return total


def growth_row(lines):
    """Measures conversion, tracing, graph size and compilation of one generated function.

    Args:
        lines: The approximate line count of the generated function.

    Returns:
        A JSON-ready dict (times in seconds).
    """
    from runtime import executor  # pylint: disable=import-outside-toplevel
    from runtime.executor import optimize  # pylint: disable=import-outside-toplevel
    x = np.linspace(-1.0, 1.0, 4).astype(np.float32)
    y = np.full(4, 0.25, np.float32)
    with tempfile.TemporaryDirectory() as directory:
        source = growth_source(lines)
        fn = _load_generated(source, directory, lines)
        clear_conversion_cache()
        start = _perf()
        autograph.convert(fn)
        convert_time = _perf() - start
        staged = runtime.function(fn)
        spec = runtime.TensorSpec([4], runtime.float32)
        start = _perf()
        concrete = staged.get_concrete_function(spec, spec)
        trace_and_compile = _perf() - start
        graph = concrete.graph
        start = _perf()
        optimized = optimize.optimize(graph, list(graph.inputs), list(graph.outputs))
        optimize_time = _perf() - start
        start = _perf()
        executor.compile(graph, list(graph.inputs), list(graph.outputs))
        compile_time = _perf() - start
        got = concrete(runtime.constant(x), runtime.constant(y)).numpy()
        want = fn(runtime.constant(x), runtime.constant(y)).numpy()
    return {
        "lines": source.count("\n") - _GROWTH_HEADER.count("\n") + 1, "convert": convert_time,
        "trace_and_compile": trace_and_compile, "nodes": count_nodes(graph),
        "nodes_optimized": count_nodes(optimized), "optimize": optimize_time,
        "compile": compile_time, "match": bool(np.allclose(got, want, rtol=1e-5)),
    }


def growth_check(sizes, budget=GROWTH_BUDGET, runs=1):
    """Runs growth_row for each size, each in `runs` child processes with a time limit.

    A size that does not finish in the remaining budget is reported as a timeout (and the
    larger sizes are not tried), so a superlinear converter cannot hang the suite. Each time
    of a size is the median of its runs (one run's time can be 1.5x off on a shared machine).

    Args:
        sizes: Increasing line counts.
        budget: Total seconds allowed for the whole check.
        runs: Child processes per size.

    Returns:
        A list of growth_row dicts; a timed-out size is {'lines', 'timeout'}.
    """
    root = _ROOT
    deadline = _perf() + budget * runs
    rows = []
    for lines in sizes:
        samples = []
        for _ in range(runs):
            remaining = deadline - _perf()
            try:
                proc = subprocess.run(
                    [sys.executable, "-m", "benchmarks.run", "--growth-row", str(lines)],
                    capture_output=True, text=True, cwd=root, timeout=max(remaining, 1.0),
                    check=False)
            except subprocess.TimeoutExpired:
                rows.append({"lines": lines, "timeout": max(remaining, 1.0)})
                return rows
            if proc.returncode != 0:
                raise RuntimeError(f"the growth check for {lines} lines failed:\n{proc.stderr}")
            samples.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        row = dict(samples[0])
        for key in _GROWTH_TIMES:
            row[key] = statistics.median(sample[key] for sample in samples)
        row["match"] = all(sample["match"] for sample in samples)
        row["runs"] = runs
        rows.append(row)
    return rows


_GROWTH_TIMES = ("convert", "trace_and_compile", "optimize", "compile")


def fit_exponent(sizes, times):
    """Returns the exponent k of the least-squares fit time = c * size**k (on log-log)."""
    xs = [math.log(v) for v in sizes]
    ys = [math.log(v) for v in times]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / spread


# -- the memory check -------------------------------------------------------------------------

_MEMORY_FUNCTION = """
def small_{k}(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps + {k}
"""


def _count_ast_nodes(gc, ast, gast):
    return sum(1 for o in gc.get_objects() if isinstance(o, (ast.AST, gast.AST)))


def memory_row(count):
    """Converts and traces `count` small functions of one module and measures what stays.

    Args:
        count: How many distinct functions (each a collatz loop, 9 lines).

    Returns:
        A JSON-ready dict: 'functions', 'kb_per_function' (traced memory still allocated after
        a collection, per function, with every `runtime.function` kept alive),
        'ast_nodes_alive' (ast/gast node objects that the conversions left alive) and
        'module_ast_nodes' (the node count of the module's whole tree, for comparison).
    """
    import ast  # pylint: disable=import-outside-toplevel
    import gc  # pylint: disable=import-outside-toplevel
    import tracemalloc  # pylint: disable=import-outside-toplevel
    import gast  # pylint: disable=import-outside-toplevel
    source = "".join(_MEMORY_FUNCTION.format(k=k) for k in range(count))
    module_nodes = sum(1 for _ in ast.walk(ast.parse(source)))
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "small_functions.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        spec = importlib.util.spec_from_file_location("_bench_small_functions", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        functions = [getattr(module, f"small_{k}") for k in range(count)]
        n = runtime.constant(np.int32(27))
        warm = runtime.function(workloads.collatz)  # first-use caches are not per function
        warm(n)
        gc.collect()
        nodes_before = _count_ast_nodes(gc, ast, gast)
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        kept = []
        for fn in functions:
            staged = runtime.function(fn)
            staged(n)
            kept.append(staged)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        alive = _count_ast_nodes(gc, ast, gast) - nodes_before
    lines = MEMORY_LINES if count >= MEMORY_FUNCTIONS else QUICK_MEMORY_LINES
    return {"functions": count, "kb_per_function": (after - before) / count / 1024,
            "ast_nodes_alive": alive, "module_ast_nodes": module_nodes,
            "lines": lines, "bytes_per_line": retained_per_line(lines)}


def retained_per_line(lines):
    """Bytes still allocated per source line after tracing the growth check's generated
    function of about `lines` lines (its `runtime.function` kept alive; tracemalloc)."""
    import gc  # pylint: disable=import-outside-toplevel
    import tracemalloc  # pylint: disable=import-outside-toplevel
    x = np.linspace(-1.0, 1.0, 4).astype(np.float32)
    y = np.full(4, 0.25, np.float32)
    with tempfile.TemporaryDirectory() as directory:
        source = growth_source(lines)
        fn = _load_generated(source, directory, lines)
        autograph.convert(fn)  # the conversion is cached: what is measured is the trace's
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        staged = runtime.function(fn)
        staged(x, y)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    return (after - before) / source.count("\n")


def memory_check(count):
    """Runs memory_row in a child process (a clean heap) and returns its dict."""
    proc = subprocess.run([sys.executable, "-m", "benchmarks.run", "--memory-row", str(count)],
                          capture_output=True, text=True, cwd=_ROOT, timeout=300, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"the memory check failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# -- reporting --------------------------------------------------------------------------------

def fmt_time(seconds):
    """Formats seconds with a readable unit (ns, us, ms or s)."""
    if seconds is None:
        return "-"
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f}ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f}us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.2f}ms"
    return f"{seconds:.2f}s"


def _mark(ok):
    return " " if ok else "!"


def _span(stats):
    return f"{fmt_time(stats['median'])} [{fmt_time(stats['min'])}-{fmt_time(stats['max'])}]"


def format_table(records):
    """Returns the workload table as text ('!' marks a missed target)."""
    header = (f"{'workload':<15}{'staged median [min-max]':>28}{'reference':>10}{'ratio':>8}"
              f"{'TF':>9}{'JAX':>9}{'1st warm':>10}{'1st fresh':>11}{'+disk':>9}"
              f"{'cold conv':>11}")
    lines = [header, "-" * len(header)]
    notes = []
    for r in records:
        met = r["targets"]
        tf_text = fmt_time(r["tensorflow"]["median"]) if "tensorflow" in r else "n/a"
        if "jax" in r:
            jax_text = fmt_time(r["jax"]["median"])
        elif r.get("jax_error"):
            jax_text = "fails"
            notes.append(f"JAX on {r['name']}: {r['jax_error']}")
        else:
            jax_text = "n/a"
        lines.append(
            f"{r['name']:<15}{_span(r['steady']):>28}{fmt_time(r['reference']['median']):>10}"
            f"{r['ratio']:>6.2f}x{_mark(met['steady_ratio'])}{tf_text:>9}{jax_text:>9}"
            f"{fmt_time(r['first_call']['median']):>9}{_mark(met['first_call'])}"
            f"{fmt_time(r['fresh_first_call']['median']):>10}{_mark(met['fresh_first_call'])}"
            f"{fmt_time(r['fresh_cached_first_call']['median']):>8}"
            f"{_mark(met['fresh_cached_first_call'])}"
            f"{fmt_time(r['cold_convert']['median']):>10}{_mark(met['cold_convert'])}")
    lines.append("-" * len(header))
    lines.append(f"targets: ratio <= 1.5x (matmul_loop, large_chain 1.1x), first call warm < "
                 f"{fmt_time(FIRST_CALL_TARGET)}, fresh < {fmt_time(FRESH_FIRST_CALL_TARGET)}, "
                 f"cold conversion < {fmt_time(COLD_CONVERT_TARGET)}; '!' = missed")
    lines.append("1st fresh: the first call as the first thing a new process does (after "
                 "`import runtime`), converting from scratch; +disk: the same with the "
                 "conversion loaded from the on-disk cache that an earlier run filled")
    lines.append("reference = the tightest hand-written Python + numpy (benchmarks/workloads.py);"
                 " TF, JAX: the same source under tf.function, jax.jit(autograph.convert(fn))")
    for r in records:
        if "exact_ratio" in r:
            lines.append(f"{r['name']}: its reference rounds differently (see its docstring); "
                         f"the tightest code with the same results bit for bit takes "
                         f"{fmt_time(r['exact_reference']['median'])}: staged is "
                         f"{r['exact_ratio']:.2f}x that")
    lines.extend(notes)
    return "\n".join(lines)


def format_growth(rows):
    """Returns the growth table as text, with per-line costs and fitted exponents."""
    header = (f"{'lines':>6}{'convert':>10}{'us/line':>9}{'trace+compile':>15}{'us/line':>9}"
              f"{'nodes':>7}{'optimize':>10}{'compile':>10}  match")
    lines = [header, "-" * len(header)]
    done = [row for row in rows if "timeout" not in row]
    for row in rows:
        if "timeout" in row:
            lines.append(f"{row['lines']:>6}  conversion + trace did not finish in "
                         f"{row['timeout']:.0f}s (larger sizes not run)")
            continue
        lines.append(
            f"{row['lines']:>6}{fmt_time(row['convert']):>10}"
            f"{row['convert'] / row['lines'] * 1e6:>9.1f}"
            f"{fmt_time(row['trace_and_compile']):>15}"
            f"{row['trace_and_compile'] / row['lines'] * 1e6:>9.1f}{row['nodes']:>7}"
            f"{fmt_time(row['optimize']):>10}{fmt_time(row['compile']):>10}  {row['match']}")
    if len(done) >= 2:
        sizes = [row["lines"] for row in done]
        last = done[-1]
        convert_k = fit_exponent(sizes, [row["convert"] for row in done])
        trace_k = fit_exponent(sizes, [row["trace_and_compile"] for row in done])
        lines.append(
            f"fitted exponent over {sizes[0]}-{sizes[-1]} lines: convert {convert_k:.2f}"
            f"{_mark(convert_k <= GROWTH_EXPONENT_TARGET)}, trace+compile {trace_k:.2f}"
            f"{_mark(trace_k <= GROWTH_EXPONENT_TARGET)} (target <= {GROWTH_EXPONENT_TARGET}); "
            f"{last['lines']} lines: convert {fmt_time(last['convert'])}"
            f"{_mark(last['convert'] < GROWTH_2000_TARGET)}, trace+compile "
            f"{fmt_time(last['trace_and_compile'])}"
            f"{_mark(last['trace_and_compile'] < GROWTH_2000_TARGET)} (targets < "
            f"{fmt_time(GROWTH_2000_TARGET)} at 2000 lines)")
        before = done[-2]
        scale = last["lines"] / before["lines"]
        lines.append(
            f"last step x{scale:.1f} lines: convert x{last['convert'] / before['convert']:.2f}, "
            f"trace+compile x{last['trace_and_compile'] / before['trace_and_compile']:.2f}, "
            f"executor compile x{last['compile'] / before['compile']:.2f}"
            f" (linear = x{scale:.1f})")
    runs = max((row.get("runs", 1) for row in done), default=1)
    if runs > 1:
        lines.append(f"each time: the median of {runs} child processes per size")
    return "\n".join(lines)


def format_process(imports, memory):
    """Returns the import-time and memory rows as text."""
    lines = []
    if imports:
        runtime_ms = imports["import_runtime"]["median"]
        lines.append(
            f"import runtime (fresh process, numpy already imported): {fmt_time(runtime_ms)}"
            f"{_mark(runtime_ms < IMPORT_TARGET)} (target < {fmt_time(IMPORT_TARGET)}); "
            f"import numpy itself: {fmt_time(imports['import_numpy']['median'])}")
    if memory:
        kb = memory["kb_per_function"]
        lines.append(
            f"memory: {kb:.1f} KB{_mark(kb <= MEMORY_TARGET_KB)} retained per converted and "
            f"traced small function ({memory['functions']} functions; target <= "
            f"{MEMORY_TARGET_KB:.0f} KB); AST nodes they left alive: "
            f"{memory['ast_nodes_alive']} (the module's whole tree has "
            f"{memory['module_ast_nodes']})")
        lines.append(
            f"memory: {memory['bytes_per_line']:.0f} bytes retained per source line of a "
            f"traced {memory['lines']}-line function (its graph, kept for gradients, export and "
            f"listing, and its generated code)")
    return "\n".join(lines)


def run_suite(settings, names=None, growth=True, log=print):
    """Runs the workloads (and the growth check) and returns the JSON-ready results.

    Args:
        settings: A Settings.
        names: Workload names to run (default all).
        growth: Whether to run the growth check.
        log: Callable receiving each line of progress and table text.

    Returns:
        A dict with 'workloads' (one record each), 'growth' (rows), 'imports' and 'memory'
        (empty without the growth check), plus run metadata.

    Raises:
        ValueError: for an unknown workload name.
    """
    known = {w.name: w for w in workloads.WORKLOADS}
    unknown = sorted(set(names or ()) - set(known))
    if unknown:
        raise ValueError(f"unknown workload(s) {', '.join(unknown)}; expected some of "
                         f"{', '.join(known)}.")
    selected = [w for w in workloads.WORKLOADS if not names or w.name in names]
    jax = _import_jax()
    records = []
    for workload in selected:
        log(f"running {workload.name} ...")
        records.append(run_workload(workload, settings, True, jax))
    log("first calls in fresh processes ...")
    add_fresh_first_calls(records, settings.fresh_rounds)
    results = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": f"{platform.machine()} {platform.processor() or ''} {os.cpu_count()} cpus",
        "python": platform.python_version(), "numpy": np.__version__,
        "tensorflow": next((r["tensorflow_version"] for r in records
                            if "tensorflow_version" in r), None),
        "jax": getattr(jax, "__version__", None),
        "rounds": settings.rounds, "workloads": records,
        "growth": (growth_check(settings.growth_sizes, runs=settings.growth_runs)
                   if growth else []),
        "imports": fresh_process("", settings.fresh_rounds) if growth else {},
        "memory": memory_check(settings.memory_functions) if growth else {},
    }
    return results


def main(argv=None):
    """Runs the suite, prints the tables and writes the JSON.

    Args:
        argv: Command-line arguments (default sys.argv[1:]).

    Returns:
        The exit code: 0, or 1 if a staged result differs from its reference.
    """
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split(
        "\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 1 round, few calls, tiny growth check")
    parser.add_argument("--output", default=DEFAULT_OUTPUT,
                        help="JSON output path (default benchmarks/results.json)")
    parser.add_argument("--workload", action="append", dest="names",
                        help="run only this workload (repeatable)")
    parser.add_argument("--no-growth", action="store_true", help="skip the growth check")
    parser.add_argument("--ops", action="store_true",
                        help="run the per-op benchmark (benchmarks.ops_bench) instead")
    parser.add_argument("--growth-row", type=int, metavar="LINES",
                        help=argparse.SUPPRESS)  # internal: one growth_check row as JSON
    parser.add_argument("--memory-row", type=int, metavar="FUNCTIONS",
                        help=argparse.SUPPRESS)  # internal: the memory check as JSON
    parser.add_argument("--tensorflow-row", metavar="WORKLOAD",
                        help=argparse.SUPPRESS)  # internal: one workload under TensorFlow
    args = parser.parse_args(argv)
    if args.tensorflow_row:
        print(json.dumps(tensorflow_row(args.tensorflow_row, args.quick)))
        return 0
    if args.growth_row:
        print(json.dumps(growth_row(args.growth_row)))
        return 0
    if args.memory_row:
        print(json.dumps(memory_row(args.memory_row)))
        return 0
    if args.ops:
        from benchmarks import ops_bench  # pylint: disable=import-outside-toplevel
        return ops_bench.main(["--quick"] if args.quick else [])
    start = _perf()
    results = run_suite(Settings(args.quick), args.names, growth=not args.no_growth)
    print()
    print(f"{results['date']}  python {results['python']}  numpy {results['numpy']}  "
          f"tensorflow {results['tensorflow'] or 'not installed'}  "
          f"jax {results['jax'] or 'not installed'}")
    print(format_table(results["workloads"]))
    if results["growth"]:
        print()
        print(format_growth(results["growth"]))
    if results["imports"] or results["memory"]:
        print()
        print(format_process(results["imports"], results["memory"]))
    results["total_seconds"] = _perf() - start
    print(f"\nsuite time {results['total_seconds']:.1f}s; JSON written to {args.output}")
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
    mismatched = [r["name"] for r in results["workloads"] if not r["match"]]
    mismatched += [f"growth {row['lines']}" for row in results["growth"]
                   if not row.get("match", True)]
    for r in results["workloads"]:
        if not r["match"]:
            print(f"MISMATCH {r['name']}: {r['mismatch']}")
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
