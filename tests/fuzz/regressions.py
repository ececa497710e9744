"""The regression corpus: minimal programs that once failed, each run the same three ways.

Every entry is a program shrunk by `python -m tests.fuzz` (then tidied by hand), the inputs it
failed on and the fuzz type of each parameter. tests/fuzz/test_fuzz.py runs each one plain,
converted and traced (when stageable) and requires all three to agree. An entry whose bug is
not fixed yet carries `xfail`: the reason, naming the owner's module; it is strict, so the
test fails as soon as the bug is fixed and the marker must then be removed.
"""

import collections

from tests.fuzz.vector_ops import Matrix

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
    Regression(
        "undefined_read_in_the_branch_peeked_for_alignment",
        # Found by `python -m tests.fuzz --programs 1500 --seed 11 --max-stmts 16` (seed
        # '11:640'), shrunk by hand. The staged if branch leaves `u10` undefined in the elif
        # path; staging the if branch peeks at the elif path (to align the outputs), whose
        # read of `u10` after it raised UnboundLocalError at trace time.
        """
def fuzz_fn(a):
    v4 = a
    k9 = 0
    while k9 < 1:
        k9 += 1
        if a != v4 or True:
            u10 = -v4
            return u10
        elif k9 < 2:
            for i12 in range(1):
                u13 = a
            v4 = (u13 + 3) % 100
        v4 = (u10 + 10) % 1000
    return v4
""", [(20,), (-3,)], ("int",), None),
    Regression(
        "list_appended_in_a_staged_branch_of_a_python_loop",
        # Found by `python -m tests.fuzz --programs 500 --seed 11 --max-stmts 16` (seed
        # '11:426'), with the lists feature. The append under the staged `continue` guard
        # changed the Python list in place while both branches were traced, so the traced
        # function summed three elements where plain Python, with p0 true, has none. The list
        # now becomes a staged list at the staged if, as it does at a staged loop.
        """
from tests.fuzz.vector_ops import reduce_sum, stack


def fuzz_fn(p0):
    f4 = 3.5
    l11 = []
    for i12 in range(3):
        if p0:
            continue
        l11.append(1.5)
    f4 = (f4 + reduce_sum(stack(l11))) % 64.0
    return f4
""", [(True,), (False,)], ("bool",), None),
    Regression(
        "branch_outputs_first_bound_in_a_python_loop_body",
        # Found by `python -m tests.fuzz --programs 3000 --seed 20261404` (seed
        # '20261404:821'). f6 and u14 are first assigned in a staged if inside a Python loop
        # and not loop variables: the loop's body function bound them itself (after the if),
        # so the if's state functions read its unbound locals when staged (NameError: cannot
        # access free variable 'f6'). The body function now binds them to ag__.Undefined first.
        """
def fuzz_fn(p0):
    v2 = 5
    f3 = 1.0
    for i13 in range(2):
        if p0:
            u14 = 0.0 + f3
            f6 = f3
        else:
            u14 = float(v2)
            f6 = abs(-2.0)
        f6 = (u14 + f6) % 8.0
    return v2
""", [(True,), (False,)], ("bool",), None),
    Regression(
        "nonlocal_writer_called_after_a_staged_return",
        # Found by `python -m tests.fuzz --programs 3000 --seed 20261403` (seed
        # '20261403:495'). h8 assigns f7 through nonlocal; the call after a possibly staged
        # return runs in the staged branch that guards the rest of the function, and the
        # converter did not see the assignment: the tensor leaked out of the branch (TypeError)
        # or both branches' calls ran at trace time. A call of a local function that assigns
        # through nonlocal now assigns those variables where it is called.
        """
def fuzz_fn(a, b):
    f7 = 0.0
    def h8(d):
        nonlocal f7
        f7 -= d
    k10 = 0
    while k10 < b % 5:
        k10 += 1
        return (f7, 2)
    f7 = a
    if a < 0.0:
        h8(1.5)
    h8(0.75)
    return (f7, 1)
""", [(2.0, -2), (-1.0, 2), (-1.0, 0), (2.0, 20)], ("float", "int"), None),
    Regression(
        "weak_float_loop_output_then_a_float32_in_the_next_loop",
        # Found by `python -m tests.fuzz --programs 20000 --seed 20261127` (seed
        # '20261127:222'), when Python floats carried alone became float64. u13 = 2.0 leaves
        # the staged loop as a float64 tensor; f6 = u13 then entered the next staged loop as a
        # strong float64 that the body made float32 (f6 = a): a dtype change. A loop output
        # that is a Python number on entry and at the end of the body is weak, like `u13`.
        """
def fuzz_fn(a, b):
    def h8(t):
        return f6
    for i11 in range(2):
        for i12 in range(b % 4, 1, -1):
            u13 = 2.0
            f6 = a
        f6 = u13
    return h8(0)
""", [(0.5, -1), (0.5, 2)], ("float", "int"), None),
    Regression(
        "weak_minus_weak_meets_a_float32",
        # Seed '20261127:46' of the same run: `f6 - f6` of a weak loop placeholder was a strong
        # float64, so min(1.5 - a, f6 - f6) made f6 float64 and a later loop that assigns a
        # float32 failed. The result of two weak operands is weak, as in JAX.
        """
def fuzz_fn(a, b):
    f6 = -0.5
    for i9 in range(b % 5, 0, -1):
        f6 = (min(1.5 - a, f6 - f6)) % 64.0
    for i17 in range(b % 4):
        f6 = a if i17 != 5 else 0.0
    return f6
""", [(-0.25, 9), (1.0, 3), (1.0, 0)], ("float", "int"), None),
    Regression(
        "int64_loop_variable_that_the_body_sets_to_an_int32",
        # Found by `python -m tests.fuzz --programs 20000 --seed 20261128` (seed
        # '20261128:1191'). `int(b)` of a float32 is an int64 (Python's int), so `v` leaves the
        # staged `if` as an int64 and the loop body's int32 `m[0, 1]` was a dtype change. Python
        # has one int type: the body's narrower int is cast to the loop's int64.
        """
def fuzz_fn(a, b, m):
    v = m[0, 0]
    if a > 0:
        v = (m[1, 0] - int(b)) % 13
    for i in range(a % 3):
        v = m[0, 1] + i
    return v
""", [(1, -1.0, Matrix([[0, 4, 2], [11, 5, -2]])),
          (2, 2.5, Matrix([[0, 4, 2], [11, 5, -2]])),
          (-1, 0.0, Matrix([[0, 4, 2], [11, 5, -2]]))], ("int", "float", "imat"), None),
    Regression(
        "float64_loop_variable_that_the_body_sets_to_a_float32",
        # Seed '20261128:12402' of the same run: `1.0 if a > 0 else 2.0` is a weak float that
        # leaves the staged `if` as a float64 tensor, and once used beside float32 `a` it is
        # strong; the loop body's float32 value was a dtype change. The body's narrower float
        # is cast to the loop's float64.
        """
def fuzz_fn(a, b):
    f = a * 0.0
    if b > 0:
        f = float(b) + 0.5
    for i in range(b % 4):
        f = a + i
    return f
""", [(0.5, 3), (-1.5, 2), (2.0, -1)], ("float", "int"), None),
    Regression(
        "stack_of_a_weak_float_and_a_float32",
        # Seed '20261128:13204' of the same run: `3.75 if c else f` of Python numbers under a
        # staged condition is a weak float64 tensor; stacking it beside float32 elements was
        # a dtype mismatch. A tensor standing for a Python number adopts the list's dtype.
        """
from tests.fuzz.vector_ops import reduce_sum, stack

def fuzz_fn(p, b, x):
    c = True
    f = 0.0
    if b > x:
        c = p
    l = []
    for i in range(3):
        if i == 1:
            f = x + 1.0
        l.append(3.75 if c else f)
    return reduce_sum(stack(l))
""", [(True, 0.0, -0.25), (False, 0.0, -0.25), (False, -1.0, 2.0)],
          ("bool", "float", "float"), None),
    Regression(
        "weak_float_appended_to_a_list_of_python_floats",
        # Found by `python -m tests.fuzz --programs 20000 --seed 20261129` (seed
        # '20261129:15671'). The append under the staged `continue` makes `l` a staged list of
        # float32 (its first element, the Python 1.0); `f` then leaves the staged `if` of
        # Python numbers as a weak float64 tensor, whose append was a dtype error. A tensor
        # standing for a Python number adopts the list's dtype.
        """
from tests.fuzz.vector_ops import reduce_sum, stack

def fuzz_fn(p0, b):
    f = 1.0
    l = []
    for i in range(4):
        if i < 2:
            if p0:
                continue
        elif p0:
            pass
        else:
            f -= 1.0
        l.append(f)
    return reduce_sum(stack(l))
""", [(True, 0), (False, 3)], ("bool", "int"), None),
    Regression(
        "staged_list_of_a_python_float_then_a_float64",
        # Found by `python -m tests.fuzz --programs 20000 --seed 20261131` (seed
        # '20261131:8867'). The `break` under a staged `if` makes the loop staged from its first
        # iteration, so `l` became a staged list of the Python float 61.0: float32, beside which
        # the next element (-2.0 plus the int32 `v`: a float64) could not be appended. A staged
        # list of Python numbers is carried as staged control flow carries them (a float is a
        # float64), and a narrower element of its kind is cast up to the list's dtype.
        """
from tests.fuzz.vector_ops import reduce_sum, stack

def fuzz_fn(a, b):
    v = -1
    l = []
    for i in range(4):
        f = ((-2.0) + v) % 64.0
        if b != 1.0:
            v = (a + 2) % 7
        elif i < 0:
            if i >= 2:
                break
        l.append(f)
    return reduce_sum(stack(l))
""", [(-7, 4.75), (3, 1.0)], ("int", "float"), None),
    Regression(
        "staged_list_widened_by_a_loop_variable_the_loop_widens",
        # Found by `python -m tests.fuzz --programs 20000 --seed 20261132` (seed
        # '20261132:3824'). `l` became a staged list of `f`'s first dtype (float32, from `b`);
        # the loop then widened `f` to float64 (`v` meets the float64 sum of an empty stack)
        # and traced its body again, where appending the float64 `f` to the float32 list was
        # refused. A list built in staged control flow now widens as Python's list would hold
        # the wider value: the loop is traced again with the list cast up on entry.
        """
from tests.fuzz.vector_ops import reduce_sum, stack

def fuzz_fn(a, b):
    l = []
    f = b
    v = 3
    for i in range(a % 4):
        l.append(f)
        v = (v + reduce_sum(stack([]))) % 7
        f = (1.0 + v) % 8.0
    return reduce_sum(stack(l))
""", [(7, -3.5), (5, 1.25), (2, 0.5)], ("int", "float"), None),
    Regression(
        "staged_list_widened_in_one_branch",
        # Found by `python -m tests.fuzz --programs 20000 --seed 29150001` (seed
        # '29150001:10452'). A float64 appended to a float32 staged list in one branch of a
        # staged if widens that branch's list; the other branch's list is widened alike
        # (`Backend.list_like`), where before the branches differed in type.
        """
from tests.fuzz.vector_ops import reduce_sum, stack

def fuzz_fn(a, b):
    l = []
    for i in range(a % 4):
        l.append(b)
    if a > 2:
        l.append(b * float(a))
    return reduce_sum(stack(l))
""", [(3, 1.25), (1, -0.5), (7, 2.0)], ("int", "float"), None),
    Regression(
        "branch_function_local_read_by_a_staged_if_inside_it",
        # Found by `python -m tests.fuzz --programs 20000 --seed 29150001` (seed
        # '29150001:10956'). The statements after a possible early return became a branch
        # function in which `v7 //= 7` made `v7` a local; the staged `if` inside it read its
        # output `v7` before the branches (both assign it), a NameError of the unbound local.
        # A branch function now binds such a local to `ag__.Undefined` first, as a loop body
        # function does.
        """
def fuzz_fn(a, b):
    v7 = a
    while True:
        if b > 1:
            return 2
        break
    if b >= 5:
        v7 = b
    else:
        v7 = a
    v7 //= 7
    return v7
""", [(1, 2), (30, 0), (1, 1), (-9, -5)], ("int", "int"), None),
]
