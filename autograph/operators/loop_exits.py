"""What a staged if in the body of a staged for loop may rely on about the loop's exit.

Exit lowering guards the rest of an iteration after a `break` (or a `return`) with
`if not break_:`, and the loop stops once the flag is set. So in a guard of the innermost
staged for loop, a variable of that loop that no one reads after it is read only when the
guard's condition holds: in the iteration that sets the flag, nothing reads what the guard
leaves in it. The staged if may then give it the guarded branch's value whichever branch is
taken (`Backend.cond_true_only`): a select fewer per such variable and iteration.

Only for loops: their test reads the index and the flags, not the user's variables (a while
loop's test is computed from them, even once the flag stops the loop).
"""

import contextlib
import threading

from autograph.operators import variables
from autograph.operators.variables import Symbol


# Flags that the converters put in every loop's test (`while not break_ and ...`): the loop
# ends once one is set (`continue_` ends only the iteration).
EXIT_FLAGS = (Symbol.BREAK, Symbol.DO_RETURN)

_LOCAL = threading.local()  # .bodies: the loop bodies being traced, innermost last


class _Body:
    """One staged loop body being traced: its loop (None for a while loop) and the
    negations computed in it (`not_` results, by id, each with its operand)."""

    def __init__(self, loop):
        self.loop = loop
        self.negations = {}


@contextlib.contextmanager
def tracing_body(loop):
    """While the body of `loop` (a `staged_loops.StagedLoop`) is traced."""
    bodies = _bodies()
    bodies.append(_Body(loop if loop.head and loop.dead else None))
    try:
        yield
    finally:
        bodies.pop()


def note_negation(operand, result):
    """Records that `result` is the staged `not operand` (by `operators.logical.not_`)."""
    bodies = _bodies()
    if bodies and bodies[-1].loop is not None:
        bodies[-1].negations[id(result)] = (result, operand)


def read_only_if(cond, get_state):
    """The names of `get_state`'s variables that no one reads unless `cond` holds: the
    innermost staged for loop's variables dead after it, when `cond` is `not flag` of one of
    its exit flags as the body left it so far. Each must be the loop's own variable (the
    same closure cell), not a name alike in a function the body calls."""
    bodies = _bodies()
    loop = bodies[-1].loop if bodies else None
    if loop is None:
        return frozenset()
    negated = bodies[-1].negations.get(id(cond))
    if negated is None or negated[0] is not cond:
        return frozenset()
    flags = [v for v, name in zip(loop.read_state(), loop.symbol_names)
             if name in EXIT_FLAGS]
    if not any(negated[1] is flag for flag in flags):
        return frozenset()
    own = dict(variables.free_cells(loop.get_state))
    return frozenset(name for name, cell in variables.free_cells(get_state)
                     if name in loop.dead and own.get(name) is cell)


def _bodies():
    if not hasattr(_LOCAL, 'bodies'):
        _LOCAL.bodies = []
    return _LOCAL.bodies
