"""The differential fuzzer under jax.jit: generated programs, converted and jitted on jax
values, must agree with plain Python (the JAX backend's counterpart of the traced mode).

A few hundred programs from a fixed seed; `JAX_FUZZ_PROGRAMS=N` runs more. Programs are run
with `autograph.backends.jax.jit`, which re-raises a failed staged check (an assert, or a read
of a variable that no path that ran assigned) as the exception plain Python raises. The
harness's KNOWN_BUGS and trace-time errors are counted as in the traced mode.
"""

import collections
import os

import jax
import jax.numpy as jnp
import pytest

import autograph as ag
from autograph.backends import jax as ag_jax
from tests.fuzz import harness
from tests.fuzz import stageability

PROGRAMS = int(os.environ.get('JAX_FUZZ_PROGRAMS', '200'))
CHUNK = 100
SEED = 'jax'
CI_SIZE = dict(max_stmts=6, max_locals=4, max_helpers=1)
_DTYPES = {'int': jnp.int32, 'float': jnp.float32, 'bool': jnp.bool_, 'vec': jnp.float32,
           'ivec': jnp.int32, 'imat': jnp.int32}
# The traced mode's comparisons (prints of float32 values compare numerically).
same_stdout = harness._same_stdout  # pylint: disable=protected-access
same_value = harness._same_value  # pylint: disable=protected-access


def check_jitted(fn, inputs, param_types, report, stats):
    """Compares fn with autograph.backends.jax.jit(fn) on jax inputs; returns a list of Failures."""
    failures = []
    jitted = ag_jax.jit(fn)

    def call(*args):
        result = jitted(*args)
        jax.effects_barrier()  # staged prints are written before stdout is read
        return result

    for args in inputs:
        expected = harness.run(fn, args)
        actual = harness.run(call, tuple(jnp.asarray(a, dtype=_DTYPES[t])
                                         for a, t in zip(args, param_types)))
        if (actual.exc_type is not None and issubclass(actual.exc_type, ag.StagingError)
                and report.accepts(actual.exc_msg)):
            stats['limitation'] += 1
            return failures
        if actual.exc_type is not None and issubclass(actual.exc_type, ag.StagingError) and (
                'cannot change its size inside a staged loop' in actual.exc_msg
                or 'cannot make it a staged list without a bound' in actual.exc_msg):
            # JAX's documented limitation (README, "AutoGraph for JAX"): a list that a staged
            # loop appends to needs `set_loop_options(maximum_iterations=N)` or lax.scan, and
            # one that a traced if appends to cannot be staged (an array has a fixed size).
            stats['limitation: a list grows in a JAX-staged loop'] += 1
            return failures
        if actual.exc_type is TypeError and 'its length is a traced value and an array ' \
                'needs a static size' in (actual.exc_msg or ''):
            # Documented (docs/jax.md): a list a bounded staged loop appended to has a traced
            # length, so inside the computation it is no array (`stack` of it); returned, it is.
            stats['limitation: a list of a traced length made an array inside jit'] += 1
            return failures
        known = [k for k, test in harness.KNOWN_BUGS.items() if test(expected, actual)]
        if known:
            stats['known bug: ' + known[0]] += 1
            continue
        if harness._trace_time_error(expected, actual):  # pylint: disable=protected-access
            stats['limitation: trace-time error, prints before it not run'] += 1
            continue
        if harness._trace_time_error_after_assert(expected, actual):  # pylint: disable=protected-access
            stats['limitation: trace-time error, a staged assert before it not run'] += 1
            continue
        stats['jitted'] += 1
        if expected.exc_type is not actual.exc_type:
            failures.append(harness.Failure('jax', 'exception', args, 'expected {}({!r}), got '
                                            '{}({!r})'.format(expected.exc_type,
                                                              expected.exc_msg, actual.exc_type,
                                                              actual.exc_msg)))
        elif not same_stdout(expected.stdout, actual.stdout):
            failures.append(harness.Failure('jax', 'stdout', args, '{!r} != {!r}'.format(
                expected.stdout[-200:], actual.stdout[-200:])))
        elif actual.exc_type is None and not same_value(
                expected.result, _to_python(actual.result, expected.result)):
            failures.append(harness.Failure('jax', 'result', args, 'expected {!r}, got {!r}'
                                            .format(expected.result, actual.result)))
    return failures


def _to_python(value, like):
    """jax arrays -> Python values of the type plain Python gave (bool/int/float)."""
    value = harness.to_python(jax.device_get(value))
    if isinstance(like, (list, tuple)) and isinstance(value, (list, tuple)):
        return type(like)(_to_python(v, l) for v, l in zip(value, like))
    if type(like) in (bool, int, float) and type(value) in (bool, int, float):
        return type(like)(value) if type(value) is not float or type(like) is float else value
    return value


def check_program(program, stats):
    fn, filename = harness.load(program.source, program.name)
    try:
        report = stageability.analyse(program.source, program.name)
        stats['programs'] += 1
        if not report.traceable:
            return []
        stats['traceable'] += 1
        return check_jitted(fn, program.inputs, program.param_types, report, stats)
    finally:
        harness.unload(filename)


@pytest.mark.parametrize('chunk', range(max(1, PROGRAMS // CHUNK)))
def test_generated_programs_agree_under_jit(chunk):
    stats = collections.Counter()
    seeds = ['{}:{}'.format(SEED, i) for i in range(chunk * CHUNK, (chunk + 1) * CHUNK)]
    problems = harness.disagreements(seeds, CI_SIZE, check_program, stats)
    assert not problems, '{} of {} programs disagree:\n\n{}'.format(
        len(problems), CHUNK, '\n'.join(problems[:3]))
    assert stats['programs'] == CHUNK
    assert stats['jitted'] >= 0.7 * CHUNK, stats  # most programs really run under jit
