"""The real-code corpus's registry: `@realcode(*calls, limitation=None, jax_limitation=None)`
adds a function.

Every numeric argument of a call becomes a scalar tensor when the function is staged (ints
int64, floats float64, bools bool: Python's own precision); other arguments (lists, strings)
stay Python values. `limitation` marks a function that a static graph cannot run as Python
does, with the reason (see docs/realcode.md): its staged calls are reported but not counted
in the target. `jax_limitation` marks one that only JAX cannot run so (a list whose length is
a staged value: JAX's shapes are static), with the reason: its JAX calls are not counted.
`fair_calls` marks single calls, `[(args, reason)]`, where only those arguments meet a
limitation (a bool argument that makes the function return a tuple instead of a list).
"""

import collections

FUNCTIONS = []

RealCode = collections.namedtuple('RealCode',
                                  'fn calls limitation group jax_limitation fair_calls')


def realcode(*calls, limitation=None, jax_limitation=None, fair_calls=()):
    """Registers a function with its argument tuples (a bare value is a one-argument call)."""

    def register(fn):
        group = fn.__module__.rsplit('.', 1)[-1]
        FUNCTIONS.append(RealCode(fn, [c if isinstance(c, tuple) else (c,) for c in calls],
                                  limitation, group, jax_limitation,
                                  [(tuple(a), reason) for a, reason in fair_calls]))
        return fn

    return register


def limitation_of(case, way, args=None):
    """The fair limitation that keeps `case`'s calls on `way` (the call with `args`, when
    given) out of the target, or None."""
    if way == 'converted':
        return None
    for fair_args, reason in case.fair_calls:
        if args is not None and tuple(args) == fair_args:
            return reason
    return case.limitation or (case.jax_limitation if way == 'jax' else None)
