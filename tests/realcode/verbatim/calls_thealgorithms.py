"""The calls of the functions copied from TheAlgorithms/Python (thealgorithms_*.py), 2-5 each,
an invalid input among them where the function validates. A fair limitation names its reason
(see docs/realcode.md); the copied modules are not edited: registration happens here.

Left out of the calls, as for the other sources: integers that outgrow 64 bits (a staged
dtype cannot grow as Python's int does: `binary_exp_mod_iterative` squares its base without
reducing it) and inputs on which Python itself never returns (`add` of a negative and a
positive int loops for ever on Python's unbounded ints)."""

from tests.realcode.registry import realcode
from tests.realcode.verbatim import fair
from tests.realcode.verbatim import thealgorithms_bits as b
from tests.realcode.verbatim import thealgorithms_dp as dp
from tests.realcode.verbatim import thealgorithms_maths as m
from tests.realcode.verbatim import thealgorithms_numbers as n
from tests.realcode.verbatim import thealgorithms_searches as s

realcode(360, 97, 0, jax_limitation=fair.JAX_LENGTH)(m.prime_factors)
realcode(360, 97, -3)(m.number_of_divisors)
realcode(360, 97, 0)(m.sum_of_divisors)
realcode((3, 5), (1.5, 4), (2, -1))(m.binary_exp_iterative)
realcode((3, 5, 13), (7, 13, 10), (2, 3, 0), (2, -1, 5))(m.binary_exp_mod_iterative)
realcode((13, 11), (0, 7), (-3, 5))(m.binary_multiply)
realcode((10, 3), (5, 0), (3, 5), (-1, 2), jax_limitation=fair.JAX_LENGTH)(
    m.binomial_coefficient)
realcode((10, 3), (5, 5), (3, 4))(m.combinations)
realcode((240, 46), (1, 5), (-12, 7))(m.extended_euclidean_algorithm)
realcode(5, 0, -1, 2.5)(m.factorial)
realcode(24, 1, 0, 97, jax_limitation=fair.JAX_LENGTH)(m.factors_of_a_number)
realcode(12321, 123, -121)(m.is_int_palindrome)
realcode((7, 3), (1, 2), (5, 1), jax_limitation=fair.JAX_LENGTH)(m.josephus_iterative)
realcode((4, 6), (21, 6), (5, 5))(m.least_common_multiple_slow)
realcode(7, 11, 2, 1)(m.lucas_lehmer_test)
realcode((2, 10, 1000), (3, -1, 7), (5, 0, 7))(m.modular_exponential)
realcode(27, 64, 10)(m.perfect_cube)
realcode(16, 15, 0)(m.perfect_square_binary_search)
realcode(12345, -123, 0)(m.sum_of_digits)
realcode(5, -2.5, 0)(m.signum)
realcode(2.5, -2.5, 3.0)(m.floor)
realcode((3, 5), (13, 0), (0, 9))(m.add)
NINE = [1, 4, 2, 10, 2, 3, 1, 0, 20]
realcode((NINE, 4), (NINE, 0), ([1, 2], 3))(m.max_sum_in_array)
realcode((1, 2, 10), (1, 1, 5), (2, 0.5, 4), limitation=fair.INT_OR_FLOAT)(
    m.sum_of_geometric_progression)
realcode((1, 2, 5), (0.5, 1.5, 3), (1.0, 1.0, 1), jax_limitation=fair.JAX_LENGTH)(
    m.sum_of_harmonic_progression)
realcode((4, 2, 2), (5, 1, 0.5), (0, 2, 2), limitation=fair.INT_OR_FLOAT)(m.geometric_series)

realcode(97, 91, 2, -1, limitation=fair.ISINSTANCE)(n.is_prime)
realcode(360, 97, 1, jax_limitation=fair.JAX_LENGTH)(n.prime_factors)
realcode(360, 97, 1, jax_limitation=fair.JAX_LENGTH)(n.unique_prime_factors)
realcode(30, 2, 0, jax_limitation=fair.JAX_LENGTH)(n.prime_sieve_eratosthenes)
realcode(30, 2, 0, jax_limitation=fair.JAX_LENGTH)(n.prime_sieve)
realcode(10, 20, 1, jax_limitation=fair.JAX_LENGTH)(n.totient)
realcode((5, 3), (0, 4), (-1, 5))(n.polygonal_num)
realcode(25, 12, 0, limitation=fair.ISINSTANCE)(n.is_proth_number)
realcode(10, 0, -1)(n.triangular_number)
realcode(10, 1, 15, jax_limitation=fair.JAX_LENGTH)(n.ugly_numbers)

realcode(5, 1, 0, limitation=fair.ISINSTANCE)(dp.climb_stairs)
realcode((3, [1, 2, 5], 5), (2, [2, 3], 7), (3, [1, 2, 5], 0), jax_limitation=fair.JAX_LENGTH)(
    dp.combination_sum_iv_bottom_up)
realcode(5, 7, 1, jax_limitation=fair.JAX_LENGTH)(dp.partition)
realcode((50, [10, 20, 30], [60, 100, 120], 3), (5, [1, 2, 3], [10, 20, 30], 3),
         jax_limitation=fair.JAX_LENGTH)(dp.knapsack)
realcode(([-2, 1, -3, 4, -1, 2, 1, -5, 4], False), ([-1, -2], True), ([-1, -2], False),
         ([], False))(dp.max_subarray_sum)
realcode(([1, 2, 3], 4), ([2, 5, 3, 6], 10), ([1], -1), jax_limitation=fair.JAX_LENGTH)(dp.dp_count)
realcode((7, [2, 3, 1, 2, 4, 3]), (11, [1, 1, 1]), (0, [1, 0]))(dp.minimum_subarray_sum)
realcode(25, 12, 0, -1, jax_limitation=fair.JAX_LENGTH)(
    dp.minimum_squares_to_represent_a_number)
realcode(10, 1, 0, jax_limitation=fair.JAX_LENGTH)(dp.min_steps_to_one)
realcode((4, [1, 5, 8, 9]), (0, [1]), (5, [1, 2]), (-1, [1]), jax_limitation=fair.JAX_LENGTH)(
    dp.bottom_up_cut_rod)
realcode(([2, 4, 6, 8], 5), ([2, 4, 6, 8], 14), ([3], 0), jax_limitation=fair.JAX_LENGTH)(
    dp.is_sum_subset)
realcode(8, 3, 2, jax_limitation=fair.JAX_LENGTH)(dp.tribonacci)

realcode(36, 0, 16, -1)(b.binary_count_trailing_zeros)
realcode(25, 0, -1)(b.get_set_bits_count_using_brian_kernighans_algorithm)
realcode(16, 12, 0, -1)(b.is_power_of_two)
realcode(15, 0, 178, -3)(b.largest_pow_of_two_le_num)
realcode(25, 0, -1, limitation=fair.ISINSTANCE)(b.reverse_bit)
realcode((10, 1), (10, 2))(b.is_bit_set)
realcode((10, 1), (10, 2))(b.get_bit)

SORTED = [0, 5, 7, 10, 15]
realcode((SORTED, 6), (SORTED, 6, 2), (SORTED, 20, 0, 3))(s.bisect_left)
realcode((SORTED, 15), (SORTED, 6), ([5, 2, 1], 1))(s.binary_search)
realcode(([1, 5, 5, 10], 10), ([1, 5, 5, 10], 3))(s.double_linear_search)
realcode(([1, 2, 3, 4, 5], 4), ([10, 30, 40, 45, 50], 45), ([1, 2, 3], 7),
         limitation=fair.NONE_OR_INDEX)(s.interpolation_search)
EVENS = list(range(0, 40, 2))
realcode((EVENS, 16), (EVENS, 17), (list(range(20)), 19))(s.ite_ternary_search)
