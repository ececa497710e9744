"""The shared corpus's registry: `@case(*inputs)` adds a function to CORPUS."""

import collections

CORPUS = []

Case = collections.namedtuple("Case", ["fn", "inputs", "stageable"])


def case(*inputs, stageable=True):
    """Registers a corpus function with the argument tuples to call it with."""

    def register(fn):
        CORPUS.append(Case(fn, [tuple(i) if isinstance(i, (tuple, list)) else (i,)
                                for i in inputs], stageable))
        return fn

    return register
