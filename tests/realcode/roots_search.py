"""Root finding, searching and numeric approximation, as numeric Python code writes them.

Written for this project in the idiom of public numerical-methods helpers; not copied (the copies
are in verbatim/, which names their sources and licences). Licence: the project's.
"""

import math

from tests.realcode.registry import realcode


@realcode(2.0, 10.0, 0.0, -4.0)
def newton_sqrt(x):
    if x < 0:
        raise ValueError("math domain error: square root of a negative number")
    if x == 0:
        return 0.0
    guess = x / 2.0
    for _ in range(50):
        better = (guess + x / guess) / 2.0
        if abs(better - guess) < 1e-12:
            break
        guess = better
    return guess


@realcode(27.0, 8.0, 2.0)
def newton_cbrt(x):
    y = x
    while True:
        y_next = y - (y ** 3 - x) / (3 * y ** 2)
        if abs(y_next - y) < 1e-10:
            return y_next
        y = y_next


@realcode((0.0, 2.0), (1.0, 3.0), (3.0, 4.0))
def bisection_sqrt2(a, b):
    def f(x):
        return x * x - 2.0
    if f(a) * f(b) >= 0:
        raise ValueError("f(a) and f(b) must have opposite signs")
    while b - a > 1e-9:
        mid = (a + b) / 2
        if f(a) * f(mid) <= 0:
            b = mid
        else:
            a = mid
    return (a + b) / 2


@realcode(0, 15, 16, 1000000, 99)
def integer_sqrt_binary_search(n):
    if n < 0:
        raise ValueError("n must be non-negative")
    lo, hi = 0, n
    while lo <= hi:
        mid = (lo + hi) // 2
        if mid * mid <= n:
            lo = mid + 1
        else:
            hi = mid - 1
    return hi


@realcode(27, 30, 1000, 0)
def integer_cbrt(n):
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if mid * mid * mid <= n:
            lo = mid
        else:
            hi = mid - 1
    return lo


@realcode(1, 8, 1000, 1023)
def floor_log2(n):
    if n <= 0:
        raise ValueError("log of a non-positive number")
    result = 0
    while n > 1:
        n >>= 1
        result += 1
    return result


@realcode((2, 10), (3, 5), (2.5, 3), (7, 0))
def fast_power(base, exp):
    result = 1
    while exp > 0:
        if exp & 1:
            result *= base
        base *= base
        exp >>= 1
    return result


@realcode(1.0, 0.5, 2.0)
def exp_taylor(x):
    term = 1.0
    total = 1.0
    n = 1
    while abs(term) > 1e-15:
        term *= x / n
        total += term
        n += 1
    return total


@realcode(0.5, 1.0, 3.0)
def sin_taylor(x):
    term = x
    total = x
    k = 1
    while abs(term) > 1e-14:
        term *= -x * x / ((2 * k) * (2 * k + 1))
        total += term
        k += 1
    return total


@realcode(100, 1000, 10)
def leibniz_pi(terms):
    total = 0.0
    sign = 1.0
    for k in range(terms):
        total += sign / (2 * k + 1)
        sign = -sign
    return 4 * total


@realcode(10, 100, 1)
def harmonic_number(n):
    if n < 1:
        raise ValueError("n must be at least 1")
    h = 0.0
    for k in range(1, n + 1):
        h += 1 / k
    return h


@realcode((1.0, 2.0), (0.0, 3.14159), (2.0, 2.0))
def trapezoid_x_squared(a, b):
    steps = 100
    h = (b - a) / steps
    total = (a * a + b * b) / 2
    for i in range(1, steps):
        x = a + i * h
        total += x * x
    return total * h


@realcode(2.0, 0.5, 10.0)
def golden_section_min(c):
    lo, hi = -10.0, 10.0
    ratio = (math.sqrt(5) - 1) / 2
    while hi - lo > 1e-8:
        x1 = hi - ratio * (hi - lo)
        x2 = lo + ratio * (hi - lo)
        if (x1 - c) ** 2 < (x2 - c) ** 2:
            hi = x2
        else:
            lo = x1
    return (lo + hi) / 2


@realcode((48, 18), (100, 75), limitation='recursion on a staged value: each staged call stages the next one again, without end (autograph raises its StagingError)')
def gcd_recursive(a, b):
    if b == 0:
        return a
    return gcd_recursive(b, a % b)


@realcode(30, 7, 1)
def count_steps_to_one_halving(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else n - 1
        steps += 1
    return steps


@realcode(3.0, 10.0, 1.0)
def fixed_point_cos(start):
    x = start
    for _ in range(200):
        nxt = math.cos(x)
        if abs(nxt - x) < 1e-12:
            return nxt
        x = nxt
    return x


@realcode((10, 3), (7, 7), (1, 5))
def ceil_div(a, b):
    return -(-a // b)


@realcode((10.0, 3), (2.675, 2), (-1.5, 0))
def round_to(x, digits):
    return round(x, digits)


@realcode(2.5, 3.5, -0.5, 7.0)
def banker_round(x):
    return round(x)


@realcode((7, 2), (-7, 2), (7, -2))
def floor_and_mod(a, b):
    q, r = divmod(a, b)
    return q, r


@realcode(45.0, 90.0, 30.0)
def sin_of_degrees(d):
    return math.sin(math.radians(d))


@realcode((3.0, 4.0), (5.0, 12.0), (1.0, 1.0))
def hypotenuse(a, b):
    return math.sqrt(a * a + b * b)


@realcode((0.0, 0.0, 3.0, 4.0), (1.0, 1.0, 4.0, 5.0))
def distance(x1, y1, x2, y2):
    return math.hypot(x2 - x1, y2 - y1)


@realcode(100.0, 1.0, 0.001)
def log10_floor(x):
    if x <= 0:
        raise ValueError("math domain error")
    return math.floor(math.log10(x))


@realcode((1, 1, -6), (1, 2, 1), (1, 0, 1))
def quadratic_larger_root(a, b, c):
    disc = b * b - 4 * a * c
    if disc < 0:
        raise ValueError("complex roots")
    return (-b + math.sqrt(disc)) / (2 * a)
