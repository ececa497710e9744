"""if/while/for statements: plain Python semantics, or staged through the value's backend."""

from autograph.operators import python_loops
from autograph.operators import staged_if
from autograph.operators import staged_loops
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for
from autograph.operators.backends import discovered
from autograph.operators.backends import first_backend
from autograph.operators.backends import probe
from autograph.operators.variables import Undefined


# ----------------------------------------------------------------------------------------------
# if


def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    """Runs an if statement: as Python for a Python `cond`, else as the backend's `cond`.

    Args:
        cond: the condition value.
        body: function of no arguments running the if branch.
        orelse: function of no arguments running the else branch.
        get_state: function returning a tuple with the values of `symbol_names`.
        set_state: function taking such a tuple and assigning the symbols.
        symbol_names: names of the symbols the statement modifies; the first `nouts` of them are
            the outputs (used after the statement), the others are restored after it.
        nouts: number of outputs.

    Raises:
        UndefinedVariableError: if an output is undefined (or a return value is missing) at the
            end of a staged branch.
        BranchVariableError: if an output differs in dtype or structure between staged branches.
        StagingError: if an output is None at the end of a staged branch.
    """
    backend = None if type(cond) in PYTHON_TYPES else backend_for(cond)
    if backend is None:
        if cond:
            body()
        else:
            orelse()
        return
    staged_if.staged_if_stmt(backend, cond, (body, orelse), (get_state, set_state), symbol_names,
                             nouts)


# ----------------------------------------------------------------------------------------------
# loops


# ----------------------------------------------------------------------------------------------
# while


def while_stmt(test, body, get_state, set_state, symbol_names, opts):
    """Runs a while loop: as Python when `test()` first gives a Python value, else staged.

    Args:
        test: function of no arguments returning the loop condition.
        body: function of no arguments running one iteration.
        get_state: function returning a tuple with the values of `symbol_names`.
        set_state: function taking such a tuple and assigning the symbols.
        symbol_names: names of the loop variables (modified in the loop and live).
        opts: dict of loop options: set_loop_options' arguments ('maximum_iterations'
            bounds a staged loop; a Python loop ignores them, as in TensorFlow).

    A loop whose test is a Python value at first and becomes staged later goes on as a staged
    loop from the state it has reached (see `python_loops`).

    Raises:
        UndefinedVariableError: if a staged loop variable is undefined on entry.
        LoopVariableError: if a staged loop variable changes dtype or structure.
    """
    if not discovered():
        # A loop variable that no loaded backend claims loads the installed backends (see
        # `autograph.backends.discover`) before its test runs under their probes.
        first_backend(v for v in get_state() if type(v) is not Undefined)
    init_test = probe(test)  # ops it stages are discarded: a staged loop tests again
    backend = None if type(init_test) in PYTHON_TYPES else backend_for(init_test)
    if backend is not None:
        staged_loops.staged_while(
            backend, (test, body), (get_state, set_state), symbol_names, opts)
        return
    # The test ran once already; consistently, run one iteration before entering the loop.
    if not init_test:
        return
    body()
    while True:
        result = probe(test)  # as the first test: a staged loop tests again
        backend = python_loops.staged_backend(result)
        if backend is not None:
            # A loop variable became staged, or a break or return depends on a staged value:
            # the loop goes on staged from here.
            python_loops.continue_while_staged(backend, (test, body), (get_state, set_state),
                                               symbol_names, opts)
            return
        if not result:
            return
        body()


# ----------------------------------------------------------------------------------------------
# for


def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """Runs a for loop: as Python over a Python iterable, else staged over the backend's value.

    Args:
        iter_: the iterable (a StagedSequence from `enumerate`/`zip` of staged values is
            staged).
        extra_test: None, or a function of no arguments that returns False to stop the loop
            (from `break` and `return`); it is checked before each iteration.
        body: function of one argument (the current element) running one iteration.
        get_state: function returning a tuple with the values of `symbol_names`.
        set_state: function taking such a tuple and assigning the symbols.
        symbol_names: names of the loop variables (modified in the loop and live).
        opts: dict of loop options: 'iterate_names' (the target's source) and
            set_loop_options' arguments (used only when the loop is staged).

    In a loop over a Python iterable, `extra_test` giving a staged value (a break or return
    that depends on one) stages the rest of the loop (see `python_loops`).

    Raises:
        StagingError: if the backend cannot iterate over `iter_`.
        UndefinedVariableError: if a staged loop variable is undefined on entry.
        LoopVariableError: if a staged loop variable changes dtype or structure.
    """
    if isinstance(iter_, staged_loops.StagedSequence):
        backend = iter_.backend
    else:
        backend = None if type(iter_) in PYTHON_TYPES else backend_for(iter_)
    if backend is not None:
        staged_loops.staged_for(
            backend, iter_, (extra_test, body), (get_state, set_state), symbol_names, opts)
        return
    if extra_test is None:
        for target in iter_:
            body(target)
        return
    python_loops.for_with_extra_test(iter_, (extra_test, body), (get_state, set_state),
                                     symbol_names, opts)
