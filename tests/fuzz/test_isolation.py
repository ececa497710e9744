"""Fuzz programs in forked workers (tests/fuzz/isolation.py): a timeout, a dead worker or a
hung one costs only its own program; the programs after it run in a clean process."""

import os
import subprocess
import sys
import time

from tests.fuzz import harness
from tests.fuzz import isolation

_state = []  # what a task left behind in its process


def _task(index, stats):
    stats['programs'] += 1
    failures = [harness.Failure('torch', 'result', (index,), 'broken')] if _state else []
    if index == 1:
        _state.append('half-registered operator')  # the damage a timeout can leave
        raise harness.Timeout('run took longer than 10s')
    if index == 3:
        _state.append('damage')
        os._exit(3)  # the worker dies
    if index == 5:
        _state.append('damage')
        time.sleep(60)  # the worker hangs where the signal cannot reach
    return failures


def _kinds(isolate):
    return [(i, [f.kind for f in failures], stats['programs'])
            for i, failures, stats in isolation.outcomes(range(7), _task, isolate, 5.0)]


def check_isolated():
    """The isolated run's outcomes (run in a fresh process by the test below)."""
    assert _kinds(isolate=True) == [
        (0, [], 1), (1, ['timeout'], 1), (2, [], 1), (3, ['crash'], 0), (4, [], 1),
        (5, ['timeout'], 0), (6, [], 1)]
    assert not _state  # the CLI's own process ran no program


def test_each_program_after_a_timeout_crash_or_hang_runs_in_a_fresh_worker():
    # in a process of its own, as the CLI: forking this one, where other tests have started
    # JAX's threads, could deadlock the child (and JAX warns so)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run([sys.executable, '-c', 'from tests.fuzz import test_isolation; '
                           'test_isolation.check_isolated(); print("checked")'],
                          cwd=root, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and done.stdout.split() == ['checked'], done.stderr


def test_without_isolation_a_timeout_breaks_the_programs_after_it():
    try:
        kinds = [(i, [f.kind for f in failures]) for i, failures, _ in
                 isolation.outcomes(range(3), _task, isolate=False)]
    finally:
        _state.clear()
    assert kinds == [(0, []), (1, ['timeout']), (2, ['result'])]
