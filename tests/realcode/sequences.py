"""Integer sequences, as numeric Python collections compute them.

Written for this project in the idiom of public sequence helpers; not copied (the copies
are in verbatim/, which names their sources and licences). Licence: the project's.
"""

import math

from tests.realcode.registry import realcode


@realcode(0, 1, 10, 50)
def fibonacci(n):
    if n < 0:
        raise ValueError("Negative arguments not implemented")
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@realcode(0, 5, 10)
def lucas(n):
    a, b = 2, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@realcode(0, 4, 10)
def tribonacci(n):
    a, b, c = 0, 0, 1
    for _ in range(n):
        a, b, c = b, c, a + b + c
    return a


@realcode(0, 5, 10, 15)
def catalan(n):
    c = 1
    for i in range(n):
        c = c * 2 * (2 * i + 1) // (i + 2)
    return c


@realcode(0, 5, 10, -1)
def factorial(n):
    if n < 0:
        raise ValueError("factorial is not defined for negative numbers")
    result = 1
    while n > 1:
        result *= n
        n -= 1
    return result


@realcode((5, 2), (10, 3), (6, 0), (3, 5))
def binomial(n, k):
    if k < 0 or k > n:
        return 0
    k = min(k, n - k)
    result = 1
    for i in range(k):
        result = result * (n - i) // (i + 1)
    return result


@realcode(1, 4, 100)
def triangular(n):
    return n * (n + 1) // 2


@realcode(10, 15, 21, 0)
def is_triangular(x):
    n = int((math.sqrt(8 * x + 1) - 1) / 2)
    return n * (n + 1) // 2 == x


@realcode(1, 22, 23)
def is_pentagonal(x):
    n = (math.sqrt(24 * x + 1) + 1) / 6
    return n == int(n)


@realcode(10, 100, 1)
def sum_of_squares(n):
    return sum(i * i for i in range(1, n + 1))


@realcode(10, 100)
def square_of_sum(n):
    s = n * (n + 1) // 2
    return s * s


@realcode(0, 1, 5)
def pell(n):
    if n < 2:
        return n
    a, b = 0, 1
    for _ in range(n - 1):
        a, b = b, 2 * b + a
    return b


@realcode(6, 27, 1, 97)
def collatz_steps(n):
    if n < 1:
        raise ValueError("n must be a positive integer")
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n //= 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@realcode(27, 6, 1)
def collatz_max(n):
    highest = n
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        highest = max(highest, n)
    return highest


@realcode(1, 6, 10)
def padovan(n):
    a, b, c = 1, 1, 1
    for _ in range(n):
        a, b, c = b, c, a + b
    return a


@realcode(0, 3, 6)
def bell_like_double_factorial(n):
    result = 1
    while n > 1:
        result *= n
        n -= 2
    return result


@realcode(4, 7, 1)
def sylvester(n):
    s = 2
    for _ in range(n - 1):
        s = s * s - s + 1
    return s


@realcode(10, 100)
def sum_of_cubes(n):
    total = 0
    for k in range(1, n + 1):
        total += k ** 3
    return total


@realcode(5, 20)
def alternating_sum(n):
    total = 0
    for k in range(1, n + 1):
        if k % 2:
            total += k
        else:
            total -= k
    return total


@realcode(1, 7, 8)
def nth_odd_square(n):
    return (2 * n - 1) ** 2


@realcode(10, 1)
def geometric_sum(n):
    return sum(2 ** i for i in range(n))


@realcode(1, 5, 10)
def hexagonal(n):
    return n * (2 * n - 1)


@realcode(5, 12)
def jacobsthal(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, b + 2 * a
    return a


@realcode(8, 20, limitation='recursion on a staged value: each staged call stages the next one again, without end (autograph raises its StagingError)')
def fib_recursive(n):
    if n < 2:
        return n
    return fib_recursive(n - 1) + fib_recursive(n - 2)


@realcode(5, 10, limitation='recursion on a staged value: each staged call stages the next one again, without end (autograph raises its StagingError)')
def factorial_recursive(n):
    if n <= 1:
        return 1
    return n * factorial_recursive(n - 1)
