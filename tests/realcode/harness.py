"""Runs each real-code call plain, converted, staged on the runtime, under jax.jit, and
exported with torch.export (where torch is installed).

Each call is classified by how the staged run compares with plain Python:

- `same value`: both return, equal (floats within 1e-9 relative; 1e-5 for float32);
- `same exception`: both raise the same exception class (the staged one may be a subclass);
- `staging error`: tracing (tf.function's get_concrete_function, jax.jit's lower,
  autograph.backends.torch.export) raised
  where plain Python did not raise that exception;
- `wrong value`: both return, or the staged run returns where Python raises, and the
  values differ;
- `crash`: the staged computation raised at run time where Python did not raise that.

`python -m tests.realcode` prints the table of docs/realcode.md.
"""

import collections
import contextlib
import copy
import importlib.util
import math

import numpy as np

import autograph as ag
from autograph.backends.jax_values import StagedList
from tests.realcode.registry import limitation_of

KINDS = ('same value', 'same exception', 'staging error', 'wrong value', 'crash')
def _installed(name):
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # as an import hook that hides the package says
        return False


# torch: where it is installed (the test extra installs it for the Python that CI tests with)
WAYS = ('converted', 'runtime', 'jax') + (('torch',) if _installed('torch') else ())

Outcome = collections.namedtuple('Outcome', 'value error traced')


def _python(value):
    """Tensors and arrays as Python values (nested), to compare with plain results."""
    if hasattr(value, 'numpy') and callable(value.numpy):
        value = value.numpy()
    if isinstance(value, (np.ndarray, np.generic)) or type(value).__module__.startswith(
            ('jax', 'jaxlib')):
        array = np.asarray(value)
        return array.item() if array.ndim == 0 else array.tolist()
    if isinstance(value, StagedList):  # JAX's list of a staged length, returned
        return _python(value.tolist())
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, (list, tuple)):
        return type(value)(_python(v) for v in value)
    if isinstance(value, dict):
        return {k: _python(v) for k, v in value.items()}
    return value


def same(expected, actual, rel=1e-9):
    """Whether a staged result equals the plain one (bools and ints exactly)."""
    if isinstance(expected, (list, tuple)):
        return (isinstance(actual, (list, tuple)) and len(actual) == len(expected)
                and all(same(e, a, rel) for e, a in zip(expected, actual)))
    if isinstance(expected, float) or isinstance(actual, float):
        if not isinstance(actual, (int, float)) or not isinstance(expected, (int, float)):
            return False
        if math.isnan(expected):
            return math.isnan(actual)
        return math.isclose(expected, actual, rel_tol=rel, abs_tol=rel)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return bool(expected) == bool(actual) and isinstance(actual, (bool, int))
    return expected == actual


def _run(fn):
    try:
        return Outcome(fn(), None, True)
    except Exception as e:  # noqa: BLE001 - classified by the caller
        return Outcome(None, e, True)


def plain(case, args):
    return _run(lambda: case.fn(*args))


def converted(case, args):
    return _run(lambda: ag.convert(case.fn)(*args))


def _split(args, to_tensor):
    """(the staged arguments, a function rebuilding the call from them)."""
    numeric = [type(a) in (int, float, bool) for a in args]
    staged = [to_tensor(a) for a, n in zip(args, numeric) if n]

    def rebuild(values):
        it = iter(values)
        return [next(it) if n else a for a, n in zip(args, numeric)]

    return staged, rebuild


# (function, the call's non-numeric arguments and where its numbers go) -> the staged function,
# so that the calls of a function share one tf.function (one trace per signature) and one jit
_STAGED = {}


def _staged(way, case, args, rebuild, make):
    key = (way, case.fn, repr([a if type(a) not in (int, float, bool) else type(a)
                               for a in args]))
    fn = _STAGED.get(key)
    if fn is None:
        fn = _STAGED[key] = make(lambda *values: case.fn(*rebuild(values)))
    return fn


def runtime(case, args):
    import runtime as tf  # pylint: disable=import-outside-toplevel

    dtypes = {int: tf.int64, float: tf.float64, bool: tf.bool}
    staged, rebuild = _split(args, lambda a: tf.constant(a, dtype=dtypes[type(a)]))
    fn = _staged('runtime', case, args, rebuild, tf.function)
    before = tf.config.x64_enabled()
    tf.config.enable_x64(True)  # Python's ints and floats are 64-bit (as JAX's x64 below)
    try:
        concrete = fn.get_concrete_function(*staged)
    except Exception as e:  # noqa: BLE001 - classified by the caller
        return Outcome(None, e, False)
    finally:
        tf.config.enable_x64(before)
    outcome = _run(lambda: concrete(*staged))
    return outcome._replace(value=_python(outcome.value))


def jax(case, args):
    import jax as jax_  # pylint: disable=import-outside-toplevel
    from autograph.backends import jax as ag_jax  # pylint: disable=import-outside-toplevel
    from autograph.backends.jax_values import enable_x64  # pylint: disable=import-outside-toplevel

    with enable_x64():  # Python's ints and floats are 64-bit
        staged, rebuild = _split(args, jax_.numpy.asarray)
        fn = _staged('jax', case, args, rebuild, ag_jax.jit)
        try:
            fn.jitted.lower(*staged)  # traces: a staging error is raised here
        except Exception as e:  # noqa: BLE001 - classified by the caller
            return Outcome(None, e, False)
        outcome = _run(lambda: fn(*staged))
        if outcome.error is None:
            jax_.effects_barrier()
        return outcome._replace(value=_python(outcome.value))


class _Exported:
    """A function exported once (autograph.backends.torch.export), on the first call's
    tensors; its program, or the exception the export raised, serves every call."""

    def __init__(self, fn):
        self.fn = fn
        self.result = None

    def program(self, args):
        if self.result is None:
            from autograph.backends import torch as ag_torch  # pylint: disable=import-outside-toplevel
            try:
                self.result = ag_torch.export(self.fn, tuple(args)).module()
            except Exception as e:  # noqa: BLE001 - raised again for every call
                self.result = e
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


@contextlib.contextmanager
def _float64(torch_):
    """Python's floats are 64-bit: torch's default dtype (of `n / 2` of an int tensor) too,
    as x64 for the runtime and JAX."""
    before = torch_.get_default_dtype()
    torch_.set_default_dtype(torch_.float64)
    try:
        yield
    finally:
        torch_.set_default_dtype(before)


def torch(case, args):
    import torch as torch_  # pylint: disable=import-outside-toplevel

    dtypes = {int: torch_.int64, float: torch_.float64, bool: torch_.bool}
    with _float64(torch_):
        staged, rebuild = _split(args, lambda a: torch_.tensor(a, dtype=dtypes[type(a)]))
        exported = _staged('torch', case, args, rebuild, _Exported)
        try:
            program = exported.program(staged)
        except Exception as e:  # noqa: BLE001 - classified by the caller
            return Outcome(None, e, False)
        outcome = _run(lambda: program(*staged))
    return outcome._replace(value=_python(outcome.value))


RUNNERS = {'converted': converted, 'runtime': runtime, 'jax': jax, 'torch': torch}


def classify(expected, actual):
    """The kind of a staged (or converted) outcome against the plain one (see module doc)."""
    if actual.error is not None:
        # an instance of Python's class: what `except` of that class catches (the runtime's
        # IndexOutOfRangeError is an IndexError, as TensorFlow's InvalidArgumentError too)
        if expected.error is not None and isinstance(actual.error, type(expected.error)):
            return 'same exception'
        return 'staging error' if not actual.traced else 'crash'
    if expected.error is not None:
        return 'wrong value'
    return 'same value' if same(expected.value, actual.value) else 'wrong value'


def run_case(case, ways=WAYS):
    """{way: [(args, kind, outcome)]} for every call of a corpus function."""
    results = {way: [] for way in ways}
    for args in case.calls:
        # each run gets its own copy: a function that changes its list argument changes none
        # of the other runs' input
        expected = plain(case, copy.deepcopy(args))
        for way in ways:
            outcome = RUNNERS[way](case, copy.deepcopy(args))
            results[way].append((args, classify(expected, outcome), outcome))
    return results


def tally(functions, ways=WAYS):
    """{way: {'all' or 'counted': Counter of kinds}} and the details per function."""
    totals = {way: {'all': collections.Counter(), 'counted': collections.Counter()}
              for way in ways}
    details = []
    for case in functions:
        results = run_case(case, ways)
        details.append((case, results))
        for way in ways:
            for args, kind, _ in results[way]:
                totals[way]['all'][kind] += 1
                if limitation_of(case, way, args) is None:
                    totals[way]['counted'][kind] += 1
    return totals, details
