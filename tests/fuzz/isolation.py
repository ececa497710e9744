"""Runs the fuzzer's programs in worker processes forked from the CLI, so that a program that
times out or crashes cannot leave a broken process to the programs after it.

A run that takes too long is stopped by a signal raised wherever it happens to be
(harness.run's time limit). Under torch that can be the middle of torch registering an
operator or filling one of its caches, which then fails for every later program of the
process: one timeout once invalidated the rest of a 2,000-program run. Here a worker runs
programs in order and sends each one's outcome back; after a program that timed out, or when
the worker dies or stops answering, the next program runs in a fresh fork of the CLI, which
itself runs no program.
"""

import collections
import multiprocessing

from tests.fuzz import harness

# seconds a worker may take over one program before it is killed (each run in it has its
# own, shorter, limit: this catches a hang that the signal cannot interrupt)
WORKER_LIMIT_S = 900.0


def outcomes(indices, task, isolate=True, limit_s=WORKER_LIMIT_S):
    """Runs task(index, stats) for each index; yields (index, failures, stats) in order.

    Args:
        indices: the program indices, a list.
        task: task(index, stats) -> a list of harness.Failures; counts into the
            collections.Counter `stats`.
        isolate: whether to run the tasks in forked workers (else here, one after another).
        limit_s: seconds a worker may take over one task before it is killed.

    Yields:
        (index, failures, stats) for each index: a timeout, or a worker that died or hung,
        is a Failure of kind 'timeout' or 'crash'.
    """
    if not isolate:
        for index in indices:
            stats = collections.Counter()
            failures = _run_one(task, index, stats)[0]
            yield index, failures, stats
        return
    pending = list(indices)
    while pending:
        done = 0
        for outcome in _worker_outcomes(pending, task, limit_s):
            done += 1
            yield outcome
        pending = pending[done:]


def _run_one(task, index, stats):
    """(failures, whether the process may be broken) of one task."""
    try:
        failures = task(index, stats)
    except harness.Timeout as e:
        return [harness.Failure('plain', 'timeout', (), str(e))], True
    return failures, any(f.kind == 'timeout' for f in failures)


def _work(indices, task, sender):
    """A worker: runs the tasks in order, sends each outcome, stops after a timeout."""
    for index in indices:
        stats = collections.Counter()
        failures, broken = _run_one(task, index, stats)
        sender.send((index, failures, stats))
        if broken:
            break
    sender.close()


def _worker_outcomes(pending, task, limit_s):
    """Yields the outcomes of one forked worker over a prefix of `pending`: all of it, or up to
    the task that timed out, killed the worker or hung it (a Failure, the worker gone)."""
    context = multiprocessing.get_context('fork')
    receiver, sender = context.Pipe(duplex=False)
    worker = context.Process(target=_work, args=(pending, task, sender), daemon=True)
    worker.start()
    sender.close()
    try:
        for index in pending:
            if not receiver.poll(limit_s):
                yield index, [harness.Failure('worker', 'timeout', (), 'no outcome in {}s'
                                              .format(limit_s))], collections.Counter()
                return
            try:
                outcome = receiver.recv()
            except EOFError:
                yield index, [harness.Failure('worker', 'crash', (), 'the worker died')], \
                    collections.Counter()
                return
            yield outcome
            if any(f.kind == 'timeout' for f in outcome[1]):
                return
    finally:
        receiver.close()
        if worker.is_alive():
            worker.kill()
        worker.join()
