"""The regression corpus: minimal programs that once failed, each run the same three ways.

Every entry is a program shrunk by `python -m tests.fuzz` (then tidied by hand), the inputs it
failed on and the fuzz type of each parameter. tests/fuzz/test_fuzz.py runs each one plain,
converted and traced (when stageable) and requires all three to agree. An entry whose bug is
not fixed yet carries `xfail`: the reason, naming the owner's module; it is strict, so the
test fails as soon as the bug is fixed and the marker must then be removed.
"""

import collections

Regression = collections.namedtuple("Regression",
                                    ["name", "source", "inputs", "param_types", "xfail"])

REGRESSIONS = [
    Regression(
        "closure_reads_variable_assigned_after_early_return",
        # Statements after a possible early return are moved into a generated branch function;
        # `v = 5` there became a local of that function instead of writing the enclosing cell
        # that the closure `get` reads, so the converted function returned 0.
        """
def fuzz_fn(x):
    v = 0
    get = lambda: v
    if x > 0:
        return -1
    v = 5
    return get()
""", [(0,), (3,)], ("int",), None),
    Regression(
        "closure_writes_variable_assigned_after_loop_return",
        """
def fuzz_fn(x):
    v = 0
    def bump(d):
        nonlocal v
        v += d
    for i in range(x):
        return -1
    v = 5
    bump(2)
    return v
""", [(0,)], ("int",), None),
    Regression(
        "return_inside_staged_for_loop",
        # TensorFlow stages this (the return value's type comes from tracing the body once).
        # autograph needs the backend hooks `scratch` and `zeros_like`, which runtime's
        # backend once lacked (fixed).
        """
def fuzz_fn(a):
    for i in range(a % 5):
        if i > 2:
            return i
    return -1
""", [(3,), (4,), (9,)], ("int",), None),
    Regression(
        "staged_continue_then_break_in_python_loop",
        # Not a bug: a staged `continue` guards the rest of the body with a staged `if`, so the
        # `break` after it depends on a staged value in a Python loop (a TensorFlow limitation).
        # The stageability analysis once missed this; the program is run plain and converted.
        """
def fuzz_fn(a):
    v = a
    for i in range(3):
        v = v % 2
        if i == a:
            continue
        break
    return v
""", [(5,), (0,)], ("int",), None),
    Regression(
        "lambda_reads_variable_assigned_in_staged_branch",
        # Found by `python -m tests.fuzz --programs 10000 --seed 20261122` (seed 530). Liveness
        # did not count a lambda's free variables as read where the lambda is called, so `v4`
        # was not an output of the staged `if` and the traced function returned its old value.
        """
def fuzz_fn(a, p2):
    h6 = lambda t: v4
    v4 = a
    if p2:
        pass
    else:
        v4 += 2
    return h6(0)
""", [(-12, False), (3, True)], ("int", "bool"), None),
    Regression(
        "undefined_read_in_staged_branch_raises_at_trace_time",
        # Found by `python -m tests.fuzz --programs 400 --seed 7` (seed '7:12'), with the
        # branch_vars feature. `u` is assigned only under a Python-false condition inside a
        # staged branch and read there: tracing the staged branch raises UnboundLocalError at
        # once, so the traced function raises even for a < 0, where plain Python returns 0.
        # Fixed: the branch becomes a staged check that raises when the branch is taken.
        """
def fuzz_fn(a):
    v = 0
    if a > 0:
        if False:
            u = 1
        v = u
    return v
""", [(-1,), (3,)], ("int",), None),
]
