"""The real-code corpus run every way: converted == plain on every call; staged == plain on
at least 90% of the calls without a fair limitation, on the runtime and under JAX; no wrong
value anywhere; every fair limitation still fails (so the marks cannot go stale)."""

import warnings

import pytest

from tests.realcode import corpus
from tests.realcode import harness


@pytest.fixture(scope='module')
def tallies():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return harness.tally(corpus.FUNCTIONS)


def test_the_corpus_is_large_and_each_function_has_two_to_five_calls():
    assert len(corpus.FUNCTIONS) >= 150
    assert all(2 <= len(c.calls) <= 5 for c in corpus.FUNCTIONS)
    assert len({c.fn.__name__ for c in corpus.FUNCTIONS}) == len(corpus.FUNCTIONS)


def test_converted_matches_plain_on_every_call(tallies):
    totals, _ = tallies
    counted = totals['converted']['all']
    assert counted['same value'] + counted['same exception'] == sum(counted.values())


@pytest.mark.parametrize('way', ['runtime', 'jax'])
def test_staged_matches_plain_on_nine_calls_in_ten_and_never_gives_a_wrong_value(tallies, way):
    totals, details = tallies
    counted = totals[way]['counted']
    good = counted['same value'] + counted['same exception']
    assert good >= 0.9 * sum(counted.values()), counted
    wrong = [(c.fn.__name__, args) for c, results in details
             for args, kind, _ in results[way] if kind == 'wrong value']
    assert not wrong


def test_every_fair_limitation_still_fails_somewhere(tallies):
    _, details = tallies
    for case, results in details:
        if case.limitation is not None:
            kinds = {kind for way in ('runtime', 'jax') for _, kind, _ in results[way]}
            assert kinds - {'same value', 'same exception'}, case.fn.__name__
