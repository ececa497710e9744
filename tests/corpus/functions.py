"""The shared corpus: plain Python functions run four ways by tests/corpus/test_corpus.py.

Each function is ordinary Python. `@case(*inputs)` registers it with the argument tuples it is
called with. Numeric arguments (int, float, bool) become tensors when the function is traced;
other arguments (lists, strings) stay Python values. Every function is written so that the same
source is meaningful both ways: with Python values it is plain Python, and with tensors its
`if`/`while`/`for` become staged control flow.

Prints always include a staged value when the function is staged: a `print` of Python values
only runs while tracing, as in TensorFlow, so it could not print the same thing four ways.
Functions marked `stageable=False` are traced with their Python arguments unchanged.
"""

import functools

from tests.corpus import real_features  # noqa: F401 - registers what real code does
from tests.corpus.registry import CORPUS  # noqa: F401 - the tests' import
from tests.corpus.registry import Case  # noqa: F401
from tests.corpus.registry import case


# --- if / elif / else --------------------------------------------------------------------------

@case(3, -3, 0)
def if_basic(x):
    if x > 0:
        x = x * 2
    return x


@case(3, -3, 0)
def if_else(x):
    if x > 0:
        y = x + 1
    else:
        y = x - 1
    return y


@case(-5, 0, 5, 15, 100)
def if_elif_chain(x):
    if x < 0:
        r = -1
    elif x == 0:
        r = 0
    elif x < 10:
        r = 1
    else:
        r = 2
    return r


@case((1, 2), (2, 1), (3, 3))
def if_two_outputs(a, b):
    if a > b:
        lo, hi = b, a
    else:
        lo, hi = a, b
    return hi - lo, hi + lo


@case((1, 5), (5, 1), (-2, -2))
def if_nested(a, b):
    if a > 0:
        if b > 0:
            r = a + b
        else:
            r = a - b
    else:
        if b > a:
            r = b
        else:
            r = a
    return r


@case(4, -4)
def if_return_both(x):
    if x > 0:
        return x * 10
    else:
        return x * -10


@case(7, 12, 0)
def if_early_return(x):
    if x % 2 == 0:
        return x // 2
    x = 3 * x + 1
    return x


@case(3, -3)
def if_print(x):
    if x > 0:
        print("positive", x)
    else:
        print("non-positive", x)
    return x


@case(2, 9)
def if_no_else_multi(x):
    a = 1
    b = 2
    if x > 5:
        a = x
        b = x * x
    return a + b


@case(2.5, -1.5)
def if_float(x):
    if x > 0.0:
        x = x * 0.5
    else:
        x = x * 2.0
    return x


# --- while ---------------------------------------------------------------------------------------

@case(27, 1, 6)
def collatz_steps(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@case(10, 0, 1)
def while_sum(n):
    i = 0
    s = 0
    while i < n:
        s += i
        i += 1
    return s


@case(5, 0)
def while_factorial(n):
    r = 1
    while n > 0:
        r *= n
        n -= 1
    return r


@case((48, 18), (17, 5), (0, 7))
def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


@case(20, 3)
def while_break(n):
    i = 0
    while i < n:
        if i * i > 30:
            break
        i += 1
    return i


@case(10, 0)
def while_continue(n):
    i = 0
    s = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        s += i
    return s


@case(30, 5)
def while_return(n):
    i = 0
    while i < n:
        if i * i > 50:
            return i
        i += 1
    return -1


@case(10, 5)
def while_else(n):
    # The loop condition depends on `n`, so the loop is staged. (With `while i < 20` the loop
    # would start as a Python loop whose `break` turns staged: an error, as in TensorFlow.)
    i = 0
    found = 0
    while i < n:
        if i * i == 49:
            found = 1
            break
        i += 1
    else:
        found = -1
    return found


@case(4, 0)
def while_nested(n):
    i = 0
    total = 0
    while i < n:
        j = 0
        while j < i:
            total += j
            j += 1
        i += 1
    return total


@case(5)
def while_print(n):
    i = 0
    while i < n:
        print(i)
        i += 1
    return i


@case(2.0, 0.5)
def while_float(x):
    steps = 0
    while x > 0.1:
        x = x * 0.5
        steps += 1
    return x, steps


@case(100, 7)
def while_digits(n):
    count = 0
    while n > 0:
        n = n // 10
        count += 1
    return count


# --- for -----------------------------------------------------------------------------------------

@case(10, 0, 1)
def for_range_sum(n):
    s = 0
    for i in range(n):
        s += i
    return s


@case((2, 10), (5, 5), (0, 3))
def for_range_start_stop(a, b):
    s = 0
    for i in range(a, b):
        s = s + i * i
    return s


@case(10, 11)
def for_range_step(n):
    s = 0
    for i in range(0, n, 3):
        s += i
    return s


@case(10, 3)
def for_break(n):
    r = -1
    for i in range(n):
        if i * 3 > 10:
            r = i
            break
    return r


@case(10, 0)
def for_continue(n):
    s = 0
    for i in range(n):
        if i % 2 == 1:
            continue
        s += i
    return s


@case(10, 2)
def for_return(n):
    for i in range(n):
        if i * i > 20:
            return i
    return -1


@case(4, 10)
def for_else(n):
    r = 0
    for i in range(n):
        if i == 5:
            r = 1
            break
    else:
        r = -1
    return r


@case(4, 1)
def for_nested(n):
    s = 0
    for i in range(n):
        for j in range(i):
            s += i * j
    return s


@case(4)
def for_nested_break(n):
    s = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            s += 1
    return s


@case(6)
def fizzbuzz_counts(n):
    fizz = 0
    buzz = 0
    fizzbuzz = 0
    other = 0
    for i in range(1, n + 1):
        if i % 15 == 0:
            fizzbuzz += 1
        elif i % 3 == 0:
            fizz += 1
        elif i % 5 == 0:
            buzz += 1
        else:
            other += 1
    return fizz, buzz, fizzbuzz, other


@case(15)
def fizzbuzz_print(n):
    for i in range(1, n + 1):
        if i % 15 == 0:
            print("fizzbuzz", i)
        elif i % 3 == 0:
            print("fizz", i)
        elif i % 5 == 0:
            print("buzz", i)
        else:
            print(i)
    return n


@case([3, 1, 4, 1, 5])
def for_list(xs):
    s = 0
    for x in xs:
        s += x
    return s


@case([3, 1, 4, 1, 5], [])
def for_list_max(xs):
    best = None
    for x in xs:
        if best is None or x > best:
            best = x
    return best


@case([3, -1, 4, -1, 5])
def for_enumerate(xs):
    s = 0
    for i, x in enumerate(xs):
        if x > 0:
            s += i * x
    return s


@case(([1, 2, 3], [4, 5, 6]))
def for_zip(xs, ys):
    s = 0
    for x, y in zip(xs, ys):
        s += x * y
    return s


@case({"a": 1, "b": 2})
def for_dict_items(d):
    keys = []
    total = 0
    for k, v in d.items():
        keys.append(k)
        total += v
    return keys, total


@case(5, 0, stageable=False)
def for_list_append(n):
    out = []
    for i in range(n):
        out.append(i * i)
    return out


@case("hello world", "")
def for_string(s):
    vowels = 0
    for ch in s:
        if ch in "aeiou":
            vowels += 1
    return vowels


@case(7, 1)
def for_prime(n):
    is_prime = n > 1
    for d in range(2, n):
        if n % d == 0:
            is_prime = False
            break
    return is_prime


# --- logical expressions and ternaries -----------------------------------------------------------

@case((1, 2), (0, 2), (1, 0))
def logical_and(a, b):
    if a > 0 and b > 0:
        return 1
    return 0


@case((1, 2), (0, 0), (-1, 0))
def logical_or(a, b):
    if a > 0 or b > 0:
        r = 1
    else:
        r = 0
    return r


@case(3, -3)
def logical_not(x):
    if not x > 0:
        x = -x
    return x


@case((0, 5), (3, 0), stageable=False)
def and_or_values(a, b):
    return (a and b), (a or b)


@case([], [1])
def and_short_circuit(xs):
    return len(xs) > 0 and xs[0] > 0


@case(5, -5)
def ternary(x):
    return x if x > 0 else -x


@case(5, -5, 0)
def ternary_nested(x):
    return 1 if x > 0 else (0 if x == 0 else -1)


@case((1, 2, 3), (3, 2, 1), (2, 3, 1))
def max_of_three(a, b, c):
    m = a if a > b else b
    m = m if m > c else c
    return m


# --- assert and exceptions -----------------------------------------------------------------------

@case(4)
def assert_ok(x):
    assert x > 0, "x must be positive"
    return x * 2


@case(3, -3, stageable=False)
def assert_raises(x):
    assert x > 0, "x must be positive"
    return x


@case(2, 0, stageable=False)
def raises_zero_division(x):
    return 10 // x


@case(1, 2, stageable=False)
def raises_inside_loop(n):
    total = 0
    for i in range(3):
        if i == n:
            raise ValueError("hit %d" % i)
        total += i
    return total


@case(2, 5, stageable=False)
def try_except_in_loop(n):
    caught = 0
    for i in range(n):
        try:
            if i == 3:
                raise KeyError(i)
        except KeyError:
            caught += 1
    return caught


# --- functions, closures, lambdas, calls ---------------------------------------------------------

def _helper_square(x):
    if x < 0:
        x = -x
    return x * x


@case(3, -4)
def calls_helper(x):
    return _helper_square(x) + 1


@case(4, 0)
def nested_function(n):
    def inner(k):
        s = 0
        for i in range(k):
            s += i
        return s

    return inner(n) + inner(2)


@case(3, stageable=False)
def closure_counter(n):
    count = 0

    def bump(k):
        nonlocal count
        count += k

    for i in range(n):
        bump(i)
    return count


@case(5, -2)
def lambda_call(x):
    f = lambda v: v * 2 if v > 0 else v  # noqa: E731
    return f(x) + f(-x)


@case(4, stageable=False)
def recursion(n):
    def fact(k):
        if k <= 1:
            return 1
        return k * fact(k - 1)

    return fact(n)


@case(6)
def default_and_keyword_args(n):
    def scale(v, factor=2, offset=0):
        return v * factor + offset

    return scale(n) + scale(n, factor=3) + scale(n, offset=1)


@case((1, 2, 3), (4, 5, 6))
def star_args(a, b, c):
    def total(*args, **kwargs):
        s = 0
        for v in args:
            s += v
        for v in kwargs.values():
            s += v
        return s

    return total(a, b, k=c)


@case(3)
def partial_call(x):
    def add(a, b):
        return a + b

    plus_ten = functools.partial(add, 10)
    return plus_ten(x)


@case(5, 0, stageable=False)
def comprehension(n):
    squares = [i * i for i in range(n)]
    evens = {i for i in range(n) if i % 2 == 0}
    return sum(squares), len(evens)


@case(3)
def method_call(x):
    class Acc:
        def __init__(self):
            self.total = 0

        def add(self, v):
            if v > 0:
                self.total += v
            return self

    acc = Acc()
    acc.add(x).add(-1).add(2)
    return acc.total


_GLOBAL_COUNTER = [0]


@case(3, stageable=False)
def global_side_effect(n):
    for i in range(n):
        _GLOBAL_COUNTER.append(i)
    return len(_GLOBAL_COUNTER) > 0


@case(4, -1, stageable=False)
def builtins_mix(n):
    vals = [abs(n), max(n, 0), min(n, 0), int(n), int(float(n))]
    return sum(vals), any([n > 0]), all([n > 0, n < 10])


@case(4, -3)
def builtins_staged(n):
    return abs(n) + max(n, 0) + min(n, 1) + int(n)


@case(3, 8)
def augmented_ops(x):
    y = x
    y += 2
    y *= 3
    y -= 1
    y //= 2
    y %= 7
    return y


@case(10, 3)
def early_exit_nested_loops(n):
    for i in range(n):
        for j in range(n):
            if i * j > 6:
                return i * 100 + j
    return -1


@case(12, 3)
def first_index_over_threshold(n):
    total = 0
    idx = -1
    i = 0
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        total += i
        if total > 20:
            idx = i
            break
    return idx, total


# --- everything plain Python expresses, staged ---------------------------------------------------

@case(0, 3, 4)
def first_assigned_in_loop(n):
    i = 0
    while i < n:
        last = i * 2
        i += 1
    return last  # UnboundLocalError for n <= 0, plain and staged


@case(0, 1, 3, 6)
def best_so_far_guarded_by_a_first_flag(n):
    found = False
    for i in range(n):
        v = (i * 7) % 5
        if not found or v > best:  # `best` is read only once it is assigned
            best = v
        found = True
    return best  # UnboundLocalError for n <= 0, plain and staged


@case(0, 1, 3)
def or_reads_a_variable_before_it_is_assigned(n):
    i = 0
    while i < n:
        if i > 0 or top < 3:  # at i == 0 `top` is read unassigned: UnboundLocalError
            top = i
        i += 1
    return i


@case(0, 1, 4)
def and_reads_a_variable_only_once_assigned(n):
    total = 0
    for i in range(n):
        if i > 0 and i > prev:  # `prev` is read only from the second iteration
            total += i - prev
        prev = i * 2 // 3
    return total


@case(-2, 0, 5)
def assigned_in_one_branch(x):
    if x > 0:
        y = x * 3
    if x >= 0:
        x = x + 1
    return y if x > 1 else x  # y is read only where it was assigned


@case(-1, 0, 2, 3, 9)
def chained_comparison(x):
    if 0 <= x < 3:
        return x * 10
    return x


@case(0, 1, 2, 5, 7)
def membership_of_numbers(x):
    if x in (1, 2):
        return 1
    if x not in [5, 6]:
        return 2
    return 3


@case(-1, 1, 3, 10)
def for_range_staged_return(x):
    for j in range(5):
        if x < j:
            return j, j * 2
    return -1, -2


@case(1, 3, 20)
def while_true_staged_break(x):
    n = 0
    while True:
        n += 1
        if x * n > 10:
            break
    return n


@case(1, 4, 20)
def while_test_staged_midway(x):
    y = 10
    i = 0
    while i < 6 and y > 0:
        y = y - x if i > 0 else y - 1  # a Python int until the second iteration
        i += 1
    return i, y


@case(-1, 0, 4, 100)
def for_list_staged_break(x):
    total = 0
    for v in [3, 1, 4, 1, 5]:
        if total > x:
            break
        total += v
    return total


@case(5, 35, 1000)
def for_range_indexing_a_list_staged_break(x):
    table = [10, 20, 30, 40]
    out = 0
    for j in range(4):
        out += table[j]
        if out > x:
            break
    return out


@case(-3, 4)
def unreached_return(x):
    if not (8 > 4):
        return x
    if x > 0:
        x = x + 1
    return x


@case(-1, 3)
def undefined_read_in_a_branch(a):
    v = 0
    if a > 0:
        if False:
            u = 1
        v = u  # noqa: F821 - UnboundLocalError where plain Python raises it, nowhere else
    return v


@case(-2, 1, 4)
def list_appended_in_staged_branch(x):
    values = [x]
    for j in range(3):
        if x > j:
            values.append(x * j)
    total = 0
    for v in values:
        total += v
    return total


@case(-2, 1, 4)
def list_sorted_or_reversed_in_staged_branches(x):
    values = [3, 1, 2]
    if x > 0:
        values.sort()  # each branch changes its own copy
    else:
        values.reverse()
    return values[0] * 100 + values[1] * 10 + values[2] + x


@case(0, 2, 5)
def list_extended_in_a_staged_loop(n):
    values = [1]
    for i in range(n):
        values.extend([i, i * i])  # two appends
    total = 0
    for v in values:
        total += v
    return total + len(values)


@case(0, 1, 3, 4)
def table_written_at_staged_indices_in_a_loop(n):
    table = [[0] * 4 for _ in range(4)]
    for i in range(n):
        table[i][i] = i + 1
        table[i][3 - i] += 10
    total = 0
    for r in range(4):
        for c in range(4):
            total = total * 3 + table[r][c]
    return total + table[n - 1][n - 1]  # n == 0: the last row's last cell


@case(0, 1, 3)
def table_of_a_staged_size(n):
    paths = [[0] * (n + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        for j in range(n + 1):
            if i == 0 or j == 0:
                paths[i][j] = 1
            else:
                paths[i][j] = paths[i - 1][j] + paths[i][j - 1]
    return paths[n][n] + len(paths)


@case(-1, 1, 2)
def table_written_in_staged_branches(x):
    grid = [[1, 2], [3, 4]]
    if x > 0:
        grid[x - 1][0] = x * 10
    else:
        grid[1][1] += x
    return grid[0][0] + grid[0][1] * 10 + grid[1][0] * 100 + grid[1][1] * 1000


@case((2.0, 0), (0.25, 0), (2.0, 3), (-1.5, 2), (0.0, 1))
def nonlocal_writer_called_in_staged_control_flow(x, n):
    total = 0.0
    count = 0

    def pay(amount):
        nonlocal total, count
        total = total - amount
        count += 1

    if x > 1.0:  # a staged branch: total and count are its outputs
        pay(0.75)
    else:
        pay(0.5)
        pay(x)
    i = 0
    while i < n:  # a staged loop: they are its loop variables
        pay(x * 0.5)
        i += 1
    for _ in range(2):  # a Python loop under a staged condition
        if x < 0.0:
            pay(1.0)
    return total, count


@case((2.0, 0), (-1.0, 2), (0.5, 3))
def nonlocal_set_in_a_staged_branch_of_a_closure(x, n):
    total = 0.0

    def add(v):
        nonlocal total
        i = 0
        while i < n:  # read after the loop only by the caller, through the closure
            total = total + 1.0
            i += 1
        if v > 0.0:  # the same for a staged if
            total = total + v
        return v

    add(x)
    add(x * 2.0)
    return total


@case((1.0, 2.0), (5.0, 2.0), (1.0, 3.0))
def table_row_changed_through_an_alias_in_staged_branches(x, y):
    # the dynamic-programming idiom: `row = dp[i]`, then `row[j] = ...` in a staged if;
    # dp must see it, as row is dp[i]
    a = [x, 2.0, 3.0]
    b = [1.0, y, 3.0]
    dp = [[0.0] * 4 for _ in range(4)]
    for i in range(1, 4):
        row = dp[i]
        prev = dp[i - 1]
        for j in range(1, 4):
            if a[i - 1] == b[j - 1]:
                row[j] = prev[j - 1] + 1
            else:
                row[j] = max(prev[j], row[j - 1])
    return dp[3][3]


@case(0.5, 1.5, -1.0)
def list_changed_through_an_alias_no_one_reads_after(x):
    grid = [[0.0, 0.0], [0.0, 0.0]]
    for i in range(2):
        row = grid[i]
        if x > i:  # row is not read after the if: grid is
            row[0] = x
        else:
            row[1] = x
    return grid[0][0] + grid[1][1] * 10


@case((1.5, 3), (2.0, 0), (-1.0, 2))
def list_changed_in_a_staged_loop_through_an_alias(x, n):
    grid = [[0.0, 0.0]]
    row = grid[0]
    i = 0
    while i < n:  # row is not read after the loop: grid is
        row[0] = row[0] + x
        i += 1
    return grid[0][0]


@case(1.0, -1.0)
def locals_read_after_a_staged_if(x):
    y = 0
    if x > 0:  # y is read after the if only through locals()
        y = 5
    return locals()['y']


@case((3, 1.5), (4, 10.0), (0, 1.0), (5, -1.0))
def counter_read_by_a_closure_after_a_loop_with_break(n, limit):
    i = 0

    def count():
        return i

    for k in range(n):
        if k * 1.0 > limit:
            break
        i += 1  # read after the loop only by count(): it must stay right on a break
    return count()


@case((5, 2), (5, 9), (0, 1), (3, 0))
def counter_dead_after_a_loop_with_return(n, target):
    i = 0
    for k in range(n):
        if k == target:
            return i * 10
        i += 2  # no one reads i after the loop
    return -1


# --- assignment expressions (:=) ---------------------------------------------------------------
# Beyond TensorFlow, whose AutoGraph cannot convert them (TF 2.21: "Please report this to the
# TensorFlow team", then a symbolic tensor used as a Python bool).

@case(-2, 1, 2, 5)
def walrus_in_if_test(x):
    if (y := x * 2) > 3:
        x = y + 1
    return x, y


@case(0, 1, 5, 9)
def walrus_in_while_test(x):
    total = 0
    while (x := x - 1) > 0:
        total += x
    return total, x


@case(4, 30)
def walrus_in_while_test_with_else(x):
    total = 0
    while (x := x - 1) > 0:
        total += x
        if total > 100:
            break
    else:
        total = -total
    return total, x


@case(-1, 1, 3)
def walrus_in_later_and_operand(x):
    r = 0
    if x > 0 and (m := x * 3) > 5:
        r = m
    return r


@case(-4, 2, 7)
def walrus_in_not_or_test(x):
    if not (x > 5 or (k := x * x) < 3):
        x = k - x
    return x


@case(1, 20, 45)
def walrus_in_while_and_test(x):
    steps = 0
    while x > 2 and (r := x % 7) != 3:
        x = x - r - 1
        steps += 1
    return steps, x


@case(-3, 0, 6)
def walrus_in_first_and_operand(x):
    if (d := x - 1) > 0 and d > 2:  # evaluated where it stands (ag__.evaluated)
        return d * 10
    return d


@case(-5, 3, 12)
def walrus_in_chained_comparison_first_link(x):
    if 0 < (k := x * 2) < 10:
        x = k
    return x


@case(0, 3, 6)
def walrus_in_loop_body_test(n):
    s = 0
    for i in range(n):
        if (t := i * i) > 4:
            s += t
    return s


@case([0, 1, 2, 3], [5], stageable=False)
def walrus_in_comprehension(xs):
    ys = [y for v in xs if (y := v * 2) > 2]
    return ys, y


@case(1, 5, 20)
def walrus_in_or_assignment(x):
    z = (x > 10) or (q := x + 1) > 3  # becomes statements: value_ = x > 10; if not value_: ...
    return z


@case(-2, 3)
def walrus_in_conditional_expression_branch(x):
    v = (a := x + 1) * a if x > 0 else -x
    return v


@case(-1, 2, 3, 7)
def walrus_in_returned_and(x):
    return x > 2 and (k := x * 2) > 5


# --- match statements --------------------------------------------------------------------------
# Beyond TensorFlow, whose AutoGraph cannot convert them. Value, `None`, capture, `_`, `as` and
# `|` patterns test the subject where the case stands, so a staged subject stages them.

@case(0, 1, 2, 3, 7, -5)
def match_values_guard_and_wildcard(x):
    match x * 1:
        case 0:
            y = x + 10
        case 1 | 2:
            y = x * 3
        case n if n > 4:
            y = n - 4
        case _:
            y = -x
    return y


@case(-3, 0, 2, 9)
def match_capture_as_and_guard_binding(x):
    match x + 1:
        case (0 | 1) as low:
            r = low * 10
        case big if big > 5:
            r = big
        case other:
            r = -other
    return r, other if x < 5 else big  # a capture stays bound after a failed guard


@case(4, 6)
def match_in_loop_with_break_and_continue(n):
    total = 0
    for i in range(n):
        match i:
            case 1:
                continue
            case 5:
                break
            case _:
                total = total + i
    return total


@case(0, 1, 5)
def match_cases_that_return(x):
    match x:
        case 0:
            return 100
        case 1:
            return 200
    return x * 2


@case((0, 1), (1, 0), (1, 1), (2, 3))
def match_nested(a, b):
    match a:
        case 0:
            r = -1
        case 1:
            match b:
                case 0:
                    r = 10
                case _:
                    r = 11
        case _:
            r = a + b
    return r


@case(([1, 2],), ([3, 4, 5],), ({"k": 7, "j": 1},), ("text",), (2.5,), (None,), (1,),
      stageable=False)
def match_python_patterns(v):
    # Sequence, mapping and class patterns: Python matches them (no staged meaning).
    match v:
        case [1, second]:
            r = (1, second)
        case [first, *rest] if len(rest) > 1:
            r = (2, first + sum(rest))
        case {"k": k, **others}:
            r = (3, k + len(others))
        case str(s) | bytes(s):
            r = (4, len(s))
        case float() | int() as number if number > 2:
            r = (5, number)
        case None:
            r = (6, 0)
        case _:
            r = (7, 0)
    return r
