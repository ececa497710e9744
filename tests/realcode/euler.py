"""Project Euler style solutions, as people write them in their solution collections.

Written for this project in the idiom of public Project Euler solution collections; not copied
(the copies are in verbatim/, which names their sources and licences). Licence: the project's.
"""

import math

from tests.realcode.registry import realcode


@realcode(10, 1000, 1)
def sum_multiples_3_or_5(limit):
    total = 0
    for i in range(limit):
        if i % 3 == 0 or i % 5 == 0:
            total += i
    return total


@realcode(10, 100, 4000000)
def even_fibonacci_sum(limit):
    a, b = 1, 2
    total = 0
    while b <= limit:
        if b % 2 == 0:
            total += b
        a, b = b, a + b
    return total


@realcode(10, 20)
def smallest_multiple(n):
    result = 1
    for i in range(2, n + 1):
        result = result * i // math.gcd(result, i)
    return result


@realcode(10, 100)
def sum_square_difference(n):
    sum_sq = 0
    total = 0
    for i in range(1, n + 1):
        sum_sq += i * i
        total += i
    return total * total - sum_sq


@realcode(12, 30, 1000)
def special_pythagorean_product(perimeter):
    for a in range(1, perimeter // 3):
        for b in range(a + 1, perimeter // 2):
            c = perimeter - a - b
            if a * a + b * b == c * c:
                return a * b * c
    return -1


@realcode(10, 30)
def longest_collatz_start(limit):
    best, best_len = 1, 1
    for start in range(1, limit):
        n, length = start, 1
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            length += 1
        if length > best_len:
            best, best_len = start, length
    return best


@realcode(10, 15)
def power_digit_sum(exponent):
    n = 2 ** exponent
    total = 0
    while n:
        total += n % 10
        n //= 10
    return total


@realcode(3, 12, 100)
def first_triangle_with_divisors(k):
    n = 1
    while True:
        t = n * (n + 1) // 2
        count = 0
        i = 1
        while i * i <= t:
            if t % i == 0:
                count += 2 if i * i != t else 1
            i += 1
        if count > k:
            return t
        n += 1


@realcode(100, 300)
def amicable_sum_below(limit):
    total = 0
    for a in range(2, limit):
        b = 1
        i = 2
        while i * i <= a:
            if a % i == 0:
                b += i + (a // i if a // i != i else 0)
            i += 1
        if b != a:
            c = 1
            j = 2
            while j * j <= b:
                if b % j == 0:
                    c += j + (b // j if b // j != j else 0)
                j += 1
            if c == a:
                total += a
    return total


@realcode(2, 3, 4)
def digit_powers_count(power):
    count = 0
    for n in range(10, 10 ** power):
        s = 0
        t = n
        while t:
            s += (t % 10) ** power
            t //= 10
        if s == n:
            count += 1
    return count


@realcode(1000, 100)
def champernowne_digit(position):
    length, count, start = 1, 9, 1
    while position > length * count:
        position -= length * count
        length += 1
        count *= 10
        start *= 10
    number = start + (position - 1) // length
    digit_index = (position - 1) % length
    return (number // 10 ** (length - 1 - digit_index)) % 10


@realcode(20, 30)
def count_lattice_paths_small(n):
    result = 1
    for i in range(1, n + 1):
        result = result * (n + i) // i
    return result % 1000000007


@realcode(10, 50)
def sum_primes_below(limit):
    total = 0
    for n in range(2, limit):
        prime = True
        d = 2
        while d * d <= n:
            if n % d == 0:
                prime = False
                break
            d += 1
        if prime:
            total += n
    return total


@realcode(5, 10)
def self_powers_last_digits(n):
    total = 0
    for i in range(1, n + 1):
        total = (total + pow(i, i, 10 ** 10)) % 10 ** 10
    return total


@realcode(1000, 5000)
def reciprocal_cycle_length(d):
    if d % 2 == 0 or d % 5 == 0:
        return 0
    r, k = 10 % d, 1
    while r != 1:
        r = r * 10 % d
        k += 1
    return k


@realcode(7, 28, 100)
def counting_rectangles(n):
    total = 0
    for w in range(1, n + 1):
        for h in range(1, 3):
            total += w * h
    return total


@realcode(100, 500)
def integer_right_triangles(p):
    count = 0
    for a in range(1, p // 3):
        num = p * p - 2 * p * a
        den = 2 * (p - a)
        if num % den == 0:
            count += 1
    return count


@realcode(10, 100)
def coded_triangle_count_like(n):
    count = 0
    for x in range(1, n):
        m = int((math.sqrt(8 * x + 1) - 1) / 2)
        if m * (m + 1) // 2 == x:
            count += 1
    return count


@realcode(2, 3, 10)
def digit_cancelling_count(scale):
    count = 0
    for num in range(10, 10 * scale):
        for den in range(num + 1, 100):
            if num % 10 == den // 10 and den % 10 != 0:
                if num * (den % 10) == den * (num // 10):
                    count += 1
    return count


@realcode(5, 20)
def spiral_diagonal_sum(layers):
    total = 1
    n = 1
    step = 2
    for _ in range(layers):
        for _ in range(4):
            n += step
            total += n
        step += 2
    return total
