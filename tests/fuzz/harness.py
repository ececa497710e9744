"""Runs a fuzz program three ways (plain, converted, traced) and reports every disagreement.

The plain run is the reference. The converted run (Python inputs) must agree exactly: same
result, same stdout, same exception type and message, and no conversion warning (a function
that silently runs unconverted would agree trivially). The traced run (every parameter a
tensor, one `tf.function` called once per input) must agree on the values (floats within
float32 rounding), the printed lines in order, and the exception type (or a subclass: a failing
staged `assert` raises the runtime's AssertionFailedError, an AssertionError that is also
TensorFlow's `tf.errors.InvalidArgumentError`).

Two classes of disagreement are not failures but are counted separately (in `stats`, printed
by `python -m tests.fuzz`), never dropped silently:
- limitations: the documented StagingErrors the stageability analysis predicted (none is left
  since issue #11). An exception that tracing itself raises after staged side effects is
  raised when the trace runs, after them (`runtime.function`), so it must agree too. Under
  jax.jit (tests/fuzz/test_fuzz_jax.py) it is raised while tracing, before the staged prints
  and asserts before it run: `_trace_time_error` and `_trace_time_error_after_assert` count
  those there.
- known bugs (KNOWN_BUGS): an open converter/runtime bug the fuzzer found, with its minimal
  reproducer in tests/fuzz/regressions.py (a strict xfail that flips when it is fixed).
"""

import atexit
import contextlib
import dataclasses
import hashlib
import io
import itertools
import linecache
import math
import os
import shutil
import signal
import tempfile
import threading
import warnings

import numpy as np

import autograph as ag
import runtime as tf
from tests.fuzz import stageability

TIME_LIMIT_S = 10.0  # per program and way; a converter bug must not hang the fuzzer

_files = itertools.count()
_tmpdir = []
# [directory] when programs are written to files named after their text (set_program_directory)
_program_dir = []


class Timeout(Exception):
    """A run took longer than TIME_LIMIT_S."""


@dataclasses.dataclass
class Outcome:
    """What one call did: its result, exception (type and message) and printed text."""

    result: object
    exc_type: type
    exc_msg: str
    stdout: str


@dataclasses.dataclass
class Failure:
    """One disagreement: which way, which kind of difference, on which input."""

    mode: str  # 'converted' or 'traced'
    kind: str  # 'result', 'stdout', 'exception', 'warning', 'crash'
    args: tuple
    detail: str

    def signature(self):
        return (self.mode, self.kind)

    def __str__(self):
        return "{} run, {} differs on input {}: {}".format(
            self.mode, self.kind, self.args, self.detail)


def set_program_directory(directory):
    """Writes each program to `directory`, in a file named after a digest of its text.

    The same program then has the same file name in every run (the disk cache's key
    includes it).

    Args:
        directory: a path (created when absent).
    """
    os.makedirs(directory, exist_ok=True)
    _program_dir[:] = [directory]


def _program_file(source):
    if _program_dir:
        digest = hashlib.blake2b(source.encode("utf-8"), digest_size=10).hexdigest()
        return os.path.join(_program_dir[0], "prog_{}.py".format(digest))
    if not _tmpdir:
        _tmpdir.append(tempfile.mkdtemp(prefix="agfuzz_"))
        atexit.register(shutil.rmtree, _tmpdir[0], True)
    return os.path.join(_tmpdir[0], "prog_{}_{}.py".format(os.getpid(), next(_files)))


def load(source, name="fuzz_fn"):
    """Executes `source` from a real file (so that its source can be inspected).

    Args:
        source: module source text.
        name: the function to return.

    Returns:
        (function, filename); call `unload(filename)` when done.
    """
    filename = _program_file(source)
    with open(filename, "w") as f:
        f.write(source)
    namespace = {"__name__": "agfuzz_prog", "__file__": filename}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - generated test code
    return namespace[name], filename


def unload(filename):
    """Deletes a file written by `load` and drops it from linecache.

    Args:
        filename: as returned by load.
    """
    with contextlib.suppress(OSError):
        os.remove(filename)
    linecache.checkcache(filename)


@contextlib.contextmanager
def _time_limit(seconds):
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum, frame):
        raise Timeout("run took longer than {}s".format(seconds))

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run(fn, args, limit=None):
    """Calls fn(*args), capturing stdout and any exception.

    Args:
        fn: the callable.
        args: tuple of arguments.
        limit: seconds before Timeout is raised (default TIME_LIMIT_S).

    Returns:
        An Outcome.
    """
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            with _time_limit(limit or TIME_LIMIT_S):
                result = fn(*args)
            exc_type, exc_msg = None, None
        except Timeout:
            raise
        except Exception as e:  # noqa: BLE001 - the type and message are what is compared
            result, exc_type, exc_msg = None, type(e), str(e)
    return Outcome(result, exc_type, exc_msg, out.getvalue())


_DTYPES = {"int": "int32", "float": "float32", "bool": "bool", "vec": "float32",
           "ivec": "int32", "imat": "int32"}


def to_tensors(args, param_types):
    """Turns Python inputs into tensors of the dtype of each parameter's type."""
    return tuple(tf.constant(a, dtype=getattr(tf, _DTYPES[t]))
                 for a, t in zip(args, param_types))


def to_python(value):
    """Turns (nested) tensors and numpy values into Python values."""
    if isinstance(value, tf.Tensor):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        value = value.item() if value.ndim == 0 else value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (list, tuple)):
        return type(value)(to_python(v) for v in value)
    return value


def _same_value(expected, actual):
    if isinstance(expected, (list, tuple)):
        return (isinstance(actual, (list, tuple)) and len(actual) == len(expected)
                and all(_same_value(e, a) for e, a in zip(expected, actual)))
    if type(expected) is not type(actual):
        return False
    if isinstance(expected, float):
        return math.isclose(expected, actual, rel_tol=1e-5, abs_tol=1e-6)
    return expected == actual


def _same_token(e, a):
    if e == a:
        return True
    try:
        # tf.print shows a float32 2.0 as `2`, as TensorFlow does.
        return math.isclose(float(e), float(a), rel_tol=1e-5, abs_tol=1e-6)
    except ValueError:
        return False


def _same_stdout(expected, actual):
    e_lines, a_lines = expected.splitlines(), actual.splitlines()
    if len(e_lines) != len(a_lines):
        return False
    for e_line, a_line in zip(e_lines, a_lines):
        e_tok, a_tok = e_line.replace("|", " ").split(), a_line.replace("|", " ").split()
        if len(e_tok) != len(a_tok) or not all(map(_same_token, e_tok, a_tok)):
            return False
    return True


def _staged_exc_ok(expected, actual):
    # a subclass is what `except expected` catches: a failing staged `assert` raises the
    # runtime's AssertionFailedError, an AssertionError (and TensorFlow's InvalidArgumentError)
    return expected is actual or (
        expected is not None and actual is not None and issubclass(actual, expected))


# Open bugs the fuzzer found: name -> test(expected, actual) on a disagreement, each with its
# minimal reproducer in regressions.py (a strict xfail). None is open now.
KNOWN_BUGS = {}


def _trace_time_error(expected, actual):
    """The same exception, raised while tracing: the staged prints before it never ran."""
    return (expected.exc_type is not None and expected.exc_type is actual.exc_type
            and "While executing" not in actual.exc_msg and not actual.stdout
            and expected.stdout)


def _trace_time_error_after_assert(expected, actual):
    """Plain Python failed an assert; tracing raised an error after it before the graph ran."""
    return (expected.exc_type is AssertionError and actual.exc_type is not None
            and actual.exc_type is not AssertionError and not _staged_exc_ok(
                AssertionError, actual.exc_type)
            and "While executing" not in actual.exc_msg and not actual.stdout)


def _diff_stdout(expected, actual):
    return "expected stdout {!r}, got {!r}".format(expected[-300:], actual[-300:])


def check_converted(fn, inputs):
    """Compares fn with ag.convert(fn) on Python inputs.

    Args:
        fn: the plain function.
        inputs: list of argument tuples.

    Returns:
        A list of Failures.
    """
    failures = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            converted = ag.convert(fn)
        except Exception as e:  # noqa: BLE001 - any crash of the converter is a finding
            return [Failure("converted", "crash", (), "{}: {}".format(type(e).__name__, e))]
        for args in inputs:
            expected, actual = run(fn, args), run(converted, args)
            if expected.exc_type is not actual.exc_type or expected.exc_msg != actual.exc_msg:
                failures.append(Failure("converted", "exception", args, "expected {}({!r}), "
                                        "got {}({!r})".format(
                                            _name(expected.exc_type), expected.exc_msg,
                                            _name(actual.exc_type), actual.exc_msg)))
            elif expected.stdout != actual.stdout:
                failures.append(Failure("converted", "stdout", args,
                                        _diff_stdout(expected.stdout, actual.stdout)))
            elif not _same_value(expected.result, actual.result):
                failures.append(Failure("converted", "result", args, "expected {!r}, got {!r}"
                                        .format(expected.result, actual.result)))
    if caught:  # the plain programs warn about nothing
        failures.append(Failure("converted", "warning", (), "{}: {}".format(
            caught[0].category.__name__, str(caught[0].message)[:300])))
    return failures


def check_traced(fn, inputs, param_types, report, executor=None, stats=None, accept=True,
                 known_bugs=True):
    """Compares fn with tf.function(fn) called with tensor inputs.

    Args:
        fn: the plain function.
        inputs: list of argument tuples (Python values).
        param_types: the fuzz type of each parameter ('int', 'float', 'bool').
        report: the stageability.Report of fn: a StagingError it predicts is accepted.
        executor: None for the default, else 'interpreter' or 'compiled'.
        stats: optional collections.Counter, counts 'traced' and 'limitation' runs.
        accept: whether a limitation error predicted by `report` is accepted.
        known_bugs: whether a disagreement matching KNOWN_BUGS is counted instead of failing.

    Returns:
        A list of Failures.
    """
    failures = []
    try:
        traced = tf.function(fn) if executor is None else tf.function(fn, executor=executor)
    except Exception as e:  # noqa: BLE001
        return [Failure("traced", "crash", (), "{}: {}".format(type(e).__name__, e))]
    for args in inputs:
        expected = run(fn, args)
        actual = run(traced, to_tensors(args, param_types))
        if (accept and actual.exc_type is not None and issubclass(actual.exc_type, ag.StagingError)
                and report.accepts(actual.exc_msg)):
            if stats is not None:
                stats["limitation"] += 1
            return failures  # a documented limitation that the analysis predicted
        known = [k for k, test in KNOWN_BUGS.items() if known_bugs and test(expected, actual)]
        if known:
            if stats is not None:
                stats["known bug: " + known[0]] += 1
            continue
        if stats is not None:
            stats["traced"] += 1
        if not _staged_exc_ok(expected.exc_type, actual.exc_type):
            failures.append(Failure("traced", "exception", args, "expected {}({!r}), got {}({!r})"
                                    .format(_name(expected.exc_type), expected.exc_msg,
                                            _name(actual.exc_type), actual.exc_msg)))
        elif not _same_stdout(expected.stdout, actual.stdout):
            failures.append(Failure("traced", "stdout", args,
                                    _diff_stdout(expected.stdout, actual.stdout)))
        elif actual.exc_type is None and not _same_value(expected.result,
                                                         to_python(actual.result)):
            failures.append(Failure("traced", "result", args, "expected {!r}, got {!r}".format(
                expected.result, to_python(actual.result))))
    return failures


def _name(exc_type):
    return "no exception" if exc_type is None else exc_type.__name__


def check_source(source, inputs, param_types, name="fuzz_fn", modes=("converted", "traced"),
                 executor=None, stats=None, accept=True, known_bugs=True):
    """Runs a program's source all three ways.

    Args:
        source: module source defining `name`.
        inputs: list of argument tuples.
        param_types: the fuzz type of each parameter.
        name: the function name.
        modes: which ways to compare with plain Python; 'traced' only runs when the program is
            stageable.
        executor: passed to check_traced.
        stats: optional collections.Counter: counts programs, traced runs and limitations.
        accept: whether documented limitation errors predicted by the analysis are accepted.
        known_bugs: passed to check_traced.

    Returns:
        A list of Failures (empty when all ways agree).
    """
    fn, filename = load(source, name)
    try:
        failures = []
        if "converted" in modes:
            failures += check_converted(fn, inputs)
        report = stageability.analyse(source, name)
        if stats is not None:
            stats["programs"] += 1
            stats["traceable"] += report.traceable
        if "traced" in modes and report.traceable:
            failures += check_traced(fn, inputs, param_types, report, executor, stats, accept,
                                     known_bugs)
        return failures
    finally:
        unload(filename)


def check_program(program, **kwargs):
    """check_source for a generator Program.

    Args:
        program: a generator.Program.
        **kwargs: passed to check_source.

    Returns:
        A list of Failures.
    """
    return check_source(program.source, program.inputs, program.param_types, program.name,
                        **kwargs)


def disagreements(seeds, size, check, stats):
    """Generates a program from each of `seeds` and checks it; returns one text per program
    that disagreed (its seed, first failure and source).

    Args:
        seeds: generator seeds.
        size: the generator's size options (max_stmts, ...).
        check: check(program, stats) -> a list of Failures (a backend's way).
        stats: a collections.Counter the check counts into.

    Returns:
        A list of strings.
    """
    from tests.fuzz.generator import generate  # pylint: disable=import-outside-toplevel

    problems = []
    for seed in seeds:
        program = generate(seed, **size)
        failures = check(program, stats)
        if failures:
            problems.append('seed {!r}: {}\n{}'.format(program.seed, failures[0],
                                                        program.source))
    return problems
