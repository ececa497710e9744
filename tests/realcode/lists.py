"""Lists sized by staged values, comprehensions and builtins of staged lists (issue #29,
items 6 and 7), as numeric Python writes them.

Written for this project in the idiom of dynamic-programming and divisor helpers. Licence:
the project's. JAX's shapes are static, so each list whose length depends on a staged value
is a fair limitation there; the runtime stages them with a run-time length.
"""

import autograph as ag
from tests.realcode.registry import realcode

_JAX_LENGTH = ('a list whose length is a staged value: JAX fixes array shapes when it traces '
               '(the runtime stages it with a run-time length)')


@realcode(0, 1, 10, 40, -3, jax_limitation=_JAX_LENGTH)
def fib_table(n):
    if n < 0:
        raise ValueError("n must be non-negative")
    memo = [0] * (n + 2)
    memo[1] = 1
    for i in range(2, n + 1):
        memo[i] = memo[i - 1] + memo[i - 2]
    return memo[n]


@realcode(0, 1, 10, 40, -3)
def fib_table_bounded(n):
    # fib_table with the bound JAX needs: the same on the runtime, a buffer under JAX
    if n < 0:
        raise ValueError("n must be non-negative")
    memo = [0] * (n + 2)
    ag.experimental.set_list_options(memo, maximum_size=64)
    memo[1] = 1
    for i in range(2, n + 1):
        memo[i] = memo[i - 1] + memo[i - 2]
    return memo[n]


@realcode(12, 1, 28, 97)
def divisors_bounded(n):
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    ag.experimental.set_list_options(divisors, maximum_size=128)
    return sum(divisors), len(divisors), max(divisors)


@realcode(5, 1, 0, 30)
def median_of_residues_bounded(n):
    values = []
    ag.experimental.set_list_options(values, maximum_size=32)
    for i in range(n):
        values.append((i * 37) % 11)
    ordered = sorted(values)
    return ordered[len(ordered) // 2], min(values)


@realcode(12, 1, 28, 97, jax_limitation=_JAX_LENGTH)
def divisors_listed(n):
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    return sum(divisors), len(divisors), max(divisors)


@realcode(5, 1, 0, jax_limitation=_JAX_LENGTH)
def median_of_residues(n):
    values = []
    for i in range(n):
        values.append((i * 37) % 11)
    ordered = sorted(values)
    return ordered[len(ordered) // 2], min(values)


@realcode(6, 2, 10, jax_limitation=_JAX_LENGTH)
def coin_ways(amount):
    ways = [0] * (amount + 1)
    ways[0] = 1
    for coin in (1, 2, 5):
        for total in range(coin, amount + 1):
            ways[total] += ways[total - coin]
    return ways[amount]
