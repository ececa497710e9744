"""`python -m tests.realcode [--verbatim | --written] [group ...]`: runs the real-code corpus
and prints its failures and tables: one for the functions written for this project, one for
those copied verbatim from public repositories (`--verbatim` or `--written` runs one set)."""

import sys
import warnings

from tests.realcode import corpus
from tests.realcode import harness


def main(argv):
    warnings.simplefilter('ignore')
    sets = {'written': corpus.WRITTEN, 'verbatim': corpus.VERBATIM}
    chosen = [name for name in sets if '--' + name in argv] or list(sets)
    groups = {a for a in argv if not a.startswith('--')}
    tables = []
    for name in chosen:
        functions = [c for c in sets[name] if not groups or c.group in groups]
        if functions:
            tables.append('{}: {}'.format(name, _report(functions)))
    print()
    print('\n\n'.join(tables))
    return 0


def _report(functions):
    """Prints every call that does not match plain Python; returns the table."""
    totals, details = harness.tally(functions)
    for case, results in details:
        for way in harness.WAYS:
            for args, kind, outcome in results[way]:
                if kind not in ('same value', 'same exception'):
                    error = outcome.error
                    print('{:<8} {:<14} {}{} {}'.format(
                        way, kind, case.group + '.' + case.fn.__name__, args,
                        '' if error is None else '{}: {}'.format(
                            type(error).__name__, str(error).splitlines()[0][:150]
                            if str(error) else '')))
    return table(functions, totals)


def table(functions, totals):
    calls = sum(len(c.calls) for c in functions)
    both = [c for c in functions if c.limitation is not None]
    jax = [c for c in functions if c.limitation is None and c.jax_limitation is not None]
    single = sum(len(c.fair_calls) for c in functions if c.limitation is None)
    singles = '; {} more single call{} with one'.format(single, 's' if single > 1 else '')
    lines = ['{} functions, {} calls ({} calls of {} functions with a fair limitation; {} calls '
             'of {} more functions with one under JAX only{})'.format(
                 len(functions), calls, sum(len(c.calls) for c in both), len(both),
                 sum(len(c.calls) for c in jax), len(jax), singles if single else ''), '',
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
