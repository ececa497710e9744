"""Bit tricks, written as numeric Python collections write them (`n & (n - 1)`, `n >>= 1`).

Written for this project in the idiom of public bit-manipulation helpers; not copied (the copies
are in verbatim/, which names their sources and licences). Licence: the project's.
"""

from tests.realcode.registry import realcode


@realcode(0, 11, 255, 1024)
def count_set_bits(n):
    count = 0
    while n:
        n &= n - 1
        count += 1
    return count


@realcode(0, 11, 255)
def count_set_bits_shift(n):
    if n < 0:
        raise ValueError("the value of input must be positive")
    result = 0
    while n:
        result += n & 1
        n >>= 1
    return result


@realcode(1, 16, 18, 0, -4)
def is_power_of_two(n):
    return n > 0 and (n & (n - 1)) == 0


@realcode(5, 16, 1, 0)
def next_power_of_two(n):
    if n <= 1:
        return 1
    power = 1
    while power < n:
        power <<= 1
    return power


@realcode((1, 4), (0, 255), (7, 7))
def hamming_distance(a, b):
    x = a ^ b
    distance = 0
    while x:
        distance += x & 1
        x >>= 1
    return distance


@realcode(0, 5, 12)
def gray_code(n):
    return n ^ (n >> 1)


@realcode(0, 7, 15)
def gray_to_binary(g):
    n = g
    shift = g >> 1
    while shift:
        n ^= shift
        shift >>= 1
    return n


@realcode(7, 8, 0)
def parity(n):
    p = 0
    while n:
        p ^= 1
        n &= n - 1
    return p


@realcode(12, 1, 40)
def lowest_set_bit(n):
    if n == 0:
        raise ValueError("0 has no set bit")
    return n & -n


@realcode(12, 1, 1000)
def highest_set_bit_position(n):
    position = -1
    while n:
        n >>= 1
        position += 1
    return position


@realcode((5, 1), (8, 3), (8, 2))
def is_bit_set(n, k):
    return (n >> k) & 1 == 1


@realcode((5, 1), (8, 0))
def set_bit(n, k):
    return n | (1 << k)


@realcode((7, 1), (8, 3))
def clear_bit(n, k):
    return n & ~(1 << k)


@realcode((5, 0), (5, 2))
def toggle_bit(n, k):
    return n ^ (1 << k)


@realcode(13, 1, 6)
def reverse_bits_8(n):
    result = 0
    for _ in range(8):
        result = (result << 1) | (n & 1)
        n >>= 1
    return result


@realcode(23, 255, 0)
def swap_adjacent_bits(n):
    even = n & 0xAAAAAAAA
    odd = n & 0x55555555
    return (even >> 1) | (odd << 1)


@realcode((3, 5), (-4, 7), (0, 0))
def opposite_signs(a, b):
    return (a ^ b) < 0


@realcode((10, 3), (7, 7), (-2, 5))
def max_without_branch(a, b):
    diff = a - b
    sign = (diff >> 63) & 1
    return a - sign * diff


@realcode(10, 11, 0)
def trailing_zero_bits(n):
    if n == 0:
        return 0
    count = 0
    while n & 1 == 0:
        n >>= 1
        count += 1
    return count


@realcode((6, 4), (5, 5), (0, 9))
def add_without_plus(a, b):
    while b != 0:
        carry = (a & b) << 1
        a = a ^ b
        b = carry
    return a


@realcode(5, 10, 1)
def flip_all_bits(n):
    bits = 0
    t = n
    while t:
        bits += 1
        t >>= 1
    mask = (1 << bits) - 1
    return n ^ mask


@realcode(170, 10, 21)
def alternating_bits(n):
    previous = n & 1
    n >>= 1
    while n:
        current = n & 1
        if current == previous:
            return False
        previous = current
        n >>= 1
    return True


@realcode(9, 529, 20, 15)
def longest_binary_gap(n):
    while n and n & 1 == 0:
        n >>= 1
    longest = 0
    current = 0
    while n:
        if n & 1:
            longest = max(longest, current)
            current = 0
        else:
            current += 1
        n >>= 1
    return longest


@realcode(5, 8, 0, limitation='bin() of a staged number: its text is known only when the '
          'graph runs')
def count_bits_bin(n):
    return bin(n).count("1")
