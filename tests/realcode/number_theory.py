"""Number theory, written as numeric Python collections write it (validation, early exits).

Written for this project in the idiom of public number-theory helpers; not copied (the copies
are in verbatim/, which names their sources and licences). Licence: the project's.
"""

import math

from tests.realcode.registry import realcode


@realcode((48, 18), (17, 5), (0, 9), (-12, 8))
def gcd(a, b):
    a, b = abs(a), abs(b)
    while b:
        a, b = b, a % b
    return a


@realcode((4, 6), (21, 6), (0, 5))
def lcm(a, b):
    if a == 0 or b == 0:
        return 0
    return abs(a * b) // math.gcd(a, b)


@realcode(2, 15, 97, 1, -7)
def is_prime(n):
    if n < 2:
        return False
    if n < 4:
        return True
    if n % 2 == 0:
        return False
    i = 3
    while i * i <= n:
        if n % i == 0:
            return False
        i += 2
    return True


@realcode(29, 91, 7919)
def is_prime_sqrt(number):
    if number <= 1:
        raise ValueError("number must be greater than 1")
    for i in range(2, int(math.sqrt(number)) + 1):
        if number % i == 0:
            return False
    return True


@realcode(2, 25, 101, 1)
def is_prime_6k(n):
    if n <= 3:
        return n > 1
    if n % 2 == 0 or n % 3 == 0:
        return False
    k = 5
    while k * k <= n:
        if n % k == 0 or n % (k + 2) == 0:
            return False
        k += 6
    return True


@realcode(10, 36, 97, 1)
def euler_phi(n):
    result = n
    p = 2
    while p * p <= n:
        if n % p == 0:
            while n % p == 0:
                n //= p
            result -= result // p
        p += 1
    if n > 1:
        result -= result // n
    return result


@realcode(12, 28, 13)
def sum_of_divisors(n):
    total = 0
    for d in range(1, n + 1):
        if n % d == 0:
            total += d
    return total


@realcode(6, 28, 12, 496)
def is_perfect(n):
    if n < 1:
        raise ValueError("n must be positive")
    s = 1
    i = 2
    while i * i <= n:
        if n % i == 0:
            s += i
            if i != n // i:
                s += n // i
        i += 1
    return s == n and n != 1


@realcode(12, 18, 7)
def is_abundant(n):
    total = sum_proper_divisors(n)
    return total > n


@realcode(220, 284, 10)
def sum_proper_divisors(n):
    total = 1 if n > 1 else 0
    i = 2
    while i * i <= n:
        if n % i == 0:
            total += i
            other = n // i
            if other != i:
                total += other
        i += 1
    return total


@realcode(220, 284, 12)
def is_amicable(a):
    b = sum_proper_divisors(a)
    return b != a and sum_proper_divisors(b) == a


@realcode(12, 36, 97, 1)
def count_divisors(n):
    count = 0
    i = 1
    while i * i <= n:
        if n % i == 0:
            count += 1 if i * i == n else 2
        i += 1
    return count


@realcode(13195, 600851, 97)
def largest_prime_factor(n):
    factor = 2
    last = 1
    while n > 1:
        if n % factor == 0:
            last = factor
            n //= factor
            while n % factor == 0:
                n //= factor
        factor += 1
        if factor * factor > n:
            if n > 1:
                last = n
            break
    return last


@realcode(12, 97, 360, 1)
def smallest_prime_factor(n):
    if n < 2:
        raise ValueError(f"no prime factor for {n}")
    if n % 2 == 0:
        return 2
    f = 3
    while f * f <= n:
        if n % f == 0:
            return f
        f += 2
    return n


@realcode(360, 97, 1)
def count_prime_factors(n):
    count = 0
    d = 2
    while d * d <= n:
        while n % d == 0:
            n //= d
            count += 1
        d += 1
    if n > 1:
        count += 1
    return count


@realcode(360, 30, 97)
def distinct_prime_factors(n):
    count = 0
    p = 2
    while p * p <= n:
        if n % p == 0:
            count += 1
            while n % p == 0:
                n //= p
        p += 1
    return count + (1 if n > 1 else 0)


@realcode((3, 11), (10, 17), (2, 4))
def mod_inverse(a, m):
    g, x = extended_gcd_x(a, m)
    if g != 1:
        raise ValueError(f"{a} has no inverse modulo {m}")
    return x % m


@realcode((3, 11), (240, 46), (7, 0))
def extended_gcd_x(a, b):
    old_r, r = a, b
    old_s, s = 1, 0
    while r != 0:
        q = old_r // r
        old_r, r = r, old_r - q * r
        old_s, s = s, old_s - q * s
    return old_r, old_s


@realcode((2, 10, 1000), (3, 200, 13), (5, 0, 7))
def power_mod(base, exponent, modulus):
    if modulus == 1:
        return 0
    result = 1
    base = base % modulus
    while exponent > 0:
        if exponent % 2 == 1:
            result = (result * base) % modulus
        exponent = exponent >> 1
        base = (base * base) % modulus
    return result


@realcode((2, 10, 1000), (7, 128, 13))
def builtin_pow_mod(b, e, m):
    return pow(b, e, m)


@realcode((561,), (97,), (100,))
def is_carmichael_like(n):
    for a in range(2, 20):
        if math.gcd(a, n) == 1 and pow(a, n - 1, n) != 1:
            return False
    return True


@realcode(10, 30, 2)
def count_primes_below(n):
    count = 0
    for k in range(2, n):
        is_p = True
        d = 2
        while d * d <= k:
            if k % d == 0:
                is_p = False
                break
            d += 1
        if is_p:
            count += 1
    return count


@realcode(1, 6, 10)
def nth_prime(n):
    if n < 1:
        raise ValueError("n must be >= 1")
    count = 0
    candidate = 1
    while count < n:
        candidate += 1
        d = 2
        prime = True
        while d * d <= candidate:
            if candidate % d == 0:
                prime = False
                break
            d += 1
        if prime:
            count += 1
    return candidate


@realcode((12, 18), (7, 13), (100, 75))
def are_coprime(a, b):
    return math.gcd(a, b) == 1


@realcode(7, 13, 20)
def next_prime(n):
    n += 1
    while True:
        if n < 2:
            n += 1
            continue
        i = 2
        ok = True
        while i * i <= n:
            if n % i == 0:
                ok = False
                break
            i += 1
        if ok:
            return n
        n += 1


@realcode(28, 10, 100)
def goldbach_first_pair(n):
    if n <= 2 or n % 2:
        raise ValueError("n must be an even number greater than 2")
    for p in range(2, n // 2 + 1):
        if is_prime(p) and is_prime(n - p):
            return p
    return -1


@realcode(10, 100, 1)
def mobius(n):
    if n < 1:
        raise ValueError("mobius is defined for positive integers")
    result = 1
    p = 2
    while p * p <= n:
        if n % p == 0:
            n //= p
            if n % p == 0:
                return 0
            result = -result
        p += 1
    if n > 1:
        result = -result
    return result


@realcode(5, 12, 97)
def is_square_free(n):
    d = 2
    while d * d <= n:
        if n % (d * d) == 0:
            return False
        d += 1
    return True


@realcode(16, 17, 49, 0)
def is_perfect_square(n):
    if n < 0:
        return False
    root = math.isqrt(n)
    return root * root == n


@realcode(16, 15, 1000000)
def is_perfect_square_float(n):
    r = int(n ** 0.5)
    return r * r == n or (r + 1) * (r + 1) == n


@realcode((5,), (12,), (2.5,), limitation='an isinstance(n, int) guard: a staged number is '
          'a tensor, not an int, as in TensorFlow and JAX')
def factorial_checked(n):
    if not isinstance(n, int):
        raise TypeError("factorial() only accepts integers")
    if n < 0:
        raise ValueError("factorial() not defined for negative values")
    result = 1
    for i in range(2, n + 1):
        result *= i
    return result
