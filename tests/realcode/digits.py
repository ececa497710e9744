"""Digits of numbers, written as numeric Python collections write them (`n % 10`, `n //= 10`).

Written for this project in the idiom of public digit-manipulation helpers; not copied (the copies
are in verbatim/, which names their sources and licences). Licence: the project's.
"""

import math

from tests.realcode.registry import realcode


@realcode(12345, 0, 9, -407)
def digit_sum(n):
    n = abs(n)
    total = 0
    while n > 0:
        total += n % 10
        n //= 10
    return total


@realcode(12345, 1200, 7)
def reverse_number(n):
    reversed_n = 0
    while n > 0:
        reversed_n = reversed_n * 10 + n % 10
        n = n // 10
    return reversed_n


@realcode(12321, 1231, 7, 0)
def is_palindrome_number(n):
    if n < 0:
        return False
    original, rev = n, 0
    while n:
        rev = rev * 10 + n % 10
        n //= 10
    return original == rev


@realcode(153, 370, 154, 9474)
def is_armstrong(n):
    digits = 0
    t = n
    while t > 0:
        digits += 1
        t //= 10
    total = 0
    t = n
    while t > 0:
        d = t % 10
        total += d ** digits
        t //= 10
    return total == n


@realcode(0, 7, 12345, 1000000)
def count_digits(n):
    if n == 0:
        return 1
    count = 0
    n = abs(n)
    while n:
        count += 1
        n //= 10
    return count


@realcode(1234, 1005, 9)
def digit_product(n):
    product = 1
    while n > 0:
        product *= n % 10
        n //= 10
    return product


@realcode(18, 19, 21, 1729)
def is_harshad(n):
    if n <= 0:
        raise ValueError("Harshad numbers are positive")
    s, t = 0, n
    while t:
        s += t % 10
        t //= 10
    return n % s == 0


@realcode(19, 4, 7, 100)
def is_happy(n):
    seen_slow, fast = n, n
    while True:
        seen_slow = _square_digit_sum(seen_slow)
        fast = _square_digit_sum(_square_digit_sum(fast))
        if seen_slow == fast:
            break
    return seen_slow == 1


def _square_digit_sum(n):
    total = 0
    while n > 0:
        d = n % 10
        total += d * d
        n //= 10
    return total


@realcode(5, 25, 76, 7)
def is_automorphic(n):
    square = n * n
    while n > 0:
        if n % 10 != square % 10:
            return False
        n //= 10
        square //= 10
    return True


@realcode(38, 12345, 9, 0)
def digital_root(n):
    while n >= 10:
        s = 0
        while n:
            s += n % 10
            n //= 10
        n = s
    return n


@realcode(38, 12345, 0)
def digital_root_formula(n):
    if n == 0:
        return 0
    return 1 + (n - 1) % 9


@realcode((12345, 2), (7, 0), (12345, 7))
def nth_digit_from_right(n, k):
    if k < 0:
        raise IndexError("digit index out of range")
    return (n // 10 ** k) % 10


@realcode(1234, 9, 100)
def first_digit(n):
    while n >= 10:
        n //= 10
    return n


@realcode(1234, 90, 5)
def sum_first_last_digit(n):
    last = n % 10
    while n >= 10:
        n //= 10
    return n + last


@realcode(145, 40585, 123)
def is_factorion(n):
    total = 0
    t = n
    while t > 0:
        total += math.factorial(t % 10)
        t //= 10
    return total == n


@realcode(145, 40585, 123)
def is_factorion_loop(n):
    total = 0
    t = n
    while t > 0:
        d = t % 10
        f = 1
        for i in range(2, d + 1):
            f *= i
        total += f
        t //= 10
    return total == n


@realcode(13, 10, 255)
def binary_digit_count(n):
    count = 0
    while n:
        count += 1
        n //= 2
    return count


@realcode((255, 16), (10, 2), (0, 8))
def count_digits_in_base(n, base):
    if base < 2:
        raise ValueError("base must be at least 2")
    if n == 0:
        return 1
    count = 0
    while n > 0:
        n //= base
        count += 1
    return count


@realcode((1011, 2), (777, 8), (19, 10))
def base_digits_to_decimal(digits, base):
    value = 0
    power = 1
    while digits > 0:
        d = digits % 10
        if d >= base:
            raise ValueError(f"digit {d} is not valid in base {base}")
        value += d * power
        power *= base
        digits //= 10
    return value


@realcode(12, 7, 100)
def to_binary_as_decimal(n):
    result, place = 0, 1
    while n > 0:
        result += (n % 2) * place
        place *= 10
        n //= 2
    return result


@realcode(1234, 4321, 1122)
def has_increasing_digits(n):
    last = 10
    while n > 0:
        d = n % 10
        if d > last:
            return False
        last = d
        n //= 10
    return True


@realcode(4455, 1234, 7)
def count_even_digits(n):
    count = 0
    while n:
        if (n % 10) % 2 == 0:
            count += 1
        n //= 10
    return count


@realcode(2520, 12, 1)
def is_divisible_by_its_digits(n):
    t = n
    while t:
        d = t % 10
        if d == 0 or n % d != 0:
            return False
        t //= 10
    return True


@realcode(123, 1000, 7, limitation='string processing of a staged number: its text is known '
          'only when the graph runs (str() of it can be printed or raised, not iterated)')
def digits_sum_string(n):
    return sum(int(c) for c in str(n))


@realcode(12321, 10, limitation='string processing of a staged number: its text is known '
          'only when the graph runs (str() of it can be printed or raised, not compared)')
def is_palindrome_string(n):
    s = str(n)
    return s == s[::-1]


@realcode(9, 10, 99)
def kaprekar_check(n):
    square = n * n
    digits = count_digits(n)
    right = square % 10 ** digits
    left = square // 10 ** digits
    return left + right == n and right > 0
