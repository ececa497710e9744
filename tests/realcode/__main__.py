"""`python -m tests.realcode [group ...]`: runs the real-code corpus and prints its table."""

import sys
import warnings

from tests.realcode import corpus
from tests.realcode import harness


def main(argv):
    warnings.simplefilter('ignore')
    groups = set(argv)
    functions = [c for c in corpus.FUNCTIONS if not groups or c.group in groups]
    totals, details = harness.tally(functions)
    for case, results in details:
        for way in harness.WAYS:
            for args, kind, outcome in results[way]:
                if kind not in ('same value', 'same exception'):
                    error = outcome.error
                    print('{:<8} {:<14} {}{} {}'.format(
                        way, kind, case.fn.__name__, args,
                        '' if error is None else '{}: {}'.format(
                            type(error).__name__, str(error).splitlines()[0][:150]
                            if str(error) else '')))
    print()
    print(table(functions, totals))
    return 0


def table(functions, totals):
    calls = sum(len(c.calls) for c in functions)
    limited = sum(len(c.calls) for c in functions if c.limitation is not None)
    lines = ['{} functions, {} calls ({} calls of {} functions with a fair limitation)'.format(
        len(functions), calls, limited, sum(c.limitation is not None for c in functions)), '',
        '| way | ' + ' | '.join(harness.KINDS) + ' | matches plain (counted calls) |',
        '|---' * (len(harness.KINDS) + 2) + '|']
    for way in harness.WAYS:
        counted = totals[way]['counted']
        n = sum(counted.values())
        good = counted['same value'] + counted['same exception']
        every = totals[way]['all']
        lines.append('| {} | '.format(way) + ' | '.join(
            str(every[k]) for k in harness.KINDS) + ' | {}/{} = {:.1f}% |'.format(
                good, n, 100.0 * good / max(n, 1)))
    return '\n'.join(lines)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
