"""The checks of a staged loop's variables: defined on entry, one type in every iteration."""

from autograph.errors import LoopVariableError
from autograph.errors import UndefinedVariableError
from autograph.operators import loop_hints
from autograph.operators import nest
from autograph.operators.variables import MaybeUndefined
from autograph.operators.variables import Undefined
from autograph.operators.variables import UndefinedReturnValue
from autograph.operators.variables import describe_name

_UNDEFINED = (Undefined, UndefinedReturnValue)


def still_maybe_undefined(entry, exit_):
    """A variable that entered the iteration as MaybeUndefined and was assigned is defined."""
    if type(entry) is MaybeUndefined and type(exit_) is not MaybeUndefined and not (
            isinstance(exit_, _UNDEFINED)):
        return MaybeUndefined(exit_, True, entry.symbol_name)
    return exit_


def check_loop_init(symbol_names, init_vars, construct, skip=()):
    """Raises when a loop variable has no value, or None, as the staged loop begins."""
    for k, (name, value) in enumerate(zip(symbol_names, init_vars)):
        if k in skip:
            continue
        words = describe_name(name)
        if isinstance(value, Undefined):
            raise UndefinedVariableError(
                "{} must be defined before the loop: the {} is staged, so {} is a loop "
                "variable and needs a value of a fixed type on entry. Initialize {} before "
                "the loop.".format(words, construct, words, words))
        if isinstance(value, UndefinedReturnValue):
            raise UndefinedVariableError(
                'the return value of a return statement inside a staged {} has no type: it '
                'could not be found from the loop body (that needs a backend with `scratch` '
                'and `zeros_like` hooks, and a return that gives a value). Assign the result '
                'to a variable initialized before the loop and return it after the '
                'loop.'.format(construct))
        if value is None:
            raise LoopVariableError(
                "{} is None before the loop: the {} is staged, so {} is a loop variable and "
                'needs a staged or numeric initial value. Initialize it with a value of the '
                'type the loop gives it.'.format(words, construct, words))


def check_loop_vars(symbol_names, entry_vars, exit_vars, type_of, construct, compatible):
    """Raises when one iteration changes a loop variable's type or structure, or undefines it."""
    for name, entry, exit_ in zip(symbol_names, entry_vars, exit_vars):
        words = describe_name(name)
        if isinstance(exit_, (Undefined, UndefinedReturnValue)) or exit_ is None:
            raise LoopVariableError(
                "{} has no value after one iteration of the staged {}: a loop variable must "
                'keep a value of the same type in every iteration.'.format(words, construct))
        desc_entry = nest.describe(entry, type_of)
        desc_exit = nest.describe(exit_, type_of)
        if not nest.same_description(desc_entry, desc_exit, compatible):
            raise LoopVariableError(
                "{} has type {} before the loop, but type {} after one iteration: a staged "
                '{} must keep the dtype, shape and structure of its loop variables. {} Or '
                'initialize it before the loop with the type the loop gives it.'.format(
                    words, nest.render(desc_entry), nest.render(desc_exit), construct,
                    loop_hints.type_fix(desc_entry, desc_exit, 'in every iteration')))
