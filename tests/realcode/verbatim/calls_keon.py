"""The calls of the functions copied from keon/algorithms (keon_*.py), 2-5 each, an invalid
input among them where the function validates. A fair limitation names its reason (see
docs/realcode.md); the copied modules are not edited: registration happens here."""

from tests.realcode.registry import realcode
from tests.realcode.verbatim import fair
from tests.realcode.verbatim import keon_array as a
from tests.realcode.verbatim import keon_backtracking as bt
from tests.realcode.verbatim import keon_bits as b
from tests.realcode.verbatim import keon_diffie_hellman as dh
from tests.realcode.verbatim import keon_dp as dp
from tests.realcode.verbatim import keon_math as m
from tests.realcode.verbatim import keon_matrix as mx
from tests.realcode.verbatim import keon_search as s
from tests.realcode.verbatim import keon_string as st

realcode((5, 2), (-255, 16), (0, 2), limitation=fair.TEXT)(m.int_to_base)
realcode(('101', 2), ('FF', 16), ('777', 8))(m.base_to_int)
realcode((5, 2), (6, 3), (4, 0), limitation=fair.RECURSION)(m.combination)
realcode((5, 2), (10, 4), limitation=fair.RECURSION)(m.combination_memo)
realcode(192, 255, 0, jax_limitation=fair.JAX_TEXT)(m.decimal_to_binary_util)
realcode((0, 0, 3, 4), (1.5, -2.0, 4.0, 2.0))(m.distance_between_two_points)
realcode(1, 9, 36, 97)(m.euler_totient)
realcode((240, 46), (17, 5), (0, 7), jax_limitation=fair.JAX_FMA)(m.extended_gcd)
realcode(5, (10, 7), -1, (5, 0), limitation=fair.ISINSTANCE)(m.factorial)
realcode(5, (10, 7), -1, limitation=fair.ISINSTANCE)(m.factorial_recur)
realcode((3, 7), (2, 8), (1, 1))(m.find_order)
realcode(7, 11, 8, jax_limitation=fair.JAX_LENGTH)(m.find_primitive_root)
realcode((48, 18), (-12, 8), (0, 5), limitation=fair.ISINSTANCE)(m.gcd)
realcode((4, 6), (21, 6), (0, 5), limitation=fair.ISINSTANCE)(m.lcm)
realcode(40, 1, 7, 0)(m.trailing_zero)
realcode((48, 18), (17, 5), (64, 48))(m.gcd_bit)
realcode(28, 4, 7)(m.goldbach)
realcode(7, 1, 10, jax_limitation=fair.JAX_LENGTH)(m.hailstone)
realcode(145, 40585, 12)(m.krishnamurthy_number)
realcode(50, 1234, 199)(m.magic_number)
realcode((2, 10, 1000), (3, 0, 7), (2, -1, 5))(m.modular_exponential)
realcode((3, 11), (10, 17), (2, 4))(m.modular_inverse)
realcode(38276, 99999, 12345, limitation=fair.TEXT)(m.next_bigger)
realcode(121, 625, 114)(m.find_next_square)
realcode(121, 625, 114)(m.find_next_square2)
realcode(3, 11, 190, limitation=fair.TEXT)(m.find_nth_digit)
realcode(12345, 0, -7)(m.num_digits)
realcode(16, 13, 7, 12)(m.num_perfect_squares)
realcode((2, 10), (3, 5, 7))(m.power)
realcode((2, 10), (3, 5, 7), limitation=fair.RECURSION)(m.power_recur)
realcode(1, 2, 25, 97)(m.prime_check)
realcode(30, 2, 0, jax_limitation=fair.JAX_LENGTH)(m.get_primes)
realcode((3, 4, '?'), ('?', 4, 5), (3, '?', 5), (3, 4, 5), ('?', '?', 5), limitation=fair.TEXT)(
    m.pythagoras)
realcode((5, 2), (8, 0), (2, 5), limitation=fair.RECURSION)(m.recursive_binomial_coefficient)
realcode((5, 0.001), (2, 1e-6))(m.square_root)
realcode((1, 10), (1, 100), (10, 150), limitation=fair.TEXT)(m.sum_dig_pow)
realcode((3, 1), (2.5, 0.5), (-1, 2))(m.surface_area_of_torus)

realcode(2, 15, 97, 1)(dh._prime_check)
realcode(7, 11, jax_limitation=fair.JAX_LENGTH)(dh._find_primitive_root)
realcode((6, 5, 23), (15, 2, 97))(dh.alice_public_key)
realcode((15, 5, 23), (3, 2, 97))(dh.bob_public_key)
realcode((19, 6, 23), (8, 15, 97))(dh.alice_shared_key)
realcode((8, 15, 23), (19, 6, 97))(dh.bob_shared_key)

realcode((2, 3), (0, 7), (123, 456))(b.add_bitwise_operator)
realcode(22, 8, 5, 0, limitation=fair.NONE_THEN_INT)(b.binary_gap)
realcode((5, 0), (5, 1), (5, 2))(b.get_bit)
realcode((8, 1), (0, 0))(b.set_bit)
realcode((15, 2), (8, 3))(b.clear_bit)
realcode((5, 1, 1), (7, 0, 0))(b.update_bit)
realcode(17, 65536, 0, limitation=fair.BYTES)(b.int_to_bytes_big_endian)
realcode(17, 65536, 0, limitation=fair.BYTES)(b.int_to_bytes_little_endian)
realcode((29, 15), (0, 0), (7, 8))(b.count_flips_to_convert)
realcode(0, 11, 255, limitation=fair.RECURSION)(b.count_ones_recur)
realcode(0, 11, 255)(b.count_ones_iter)
realcode(1775, 0, 15)(b.flip_bit_longest_seq)
realcode(2, 3, jax_limitation=fair.JAX_LENGTH)(b.gray_code)
realcode(6, 0, 13)(b.gray_to_binary)
realcode(5, 7, 10, 11)(b.has_alternative_bit)
realcode(5, 7, 10, 11)(b.has_alternative_bit_fast)
realcode((21, 1, 2), (21, 0, 2), (0, 1, 0))(b.insert_one_bit)
realcode((5, 7, 3, 1), (5, 0, 2, 0))(b.insert_mult_bits)
realcode(64, 0, 6, 1)(b.is_power_of_two)
realcode((21, 2), (21, 0), (21, 4))(b.remove_bit)
realcode(43261596, 1, 0)(b.reverse_bits)
realcode(22, 10, 0)(b.swap_pair)

realcode(2, 5, 10, jax_limitation=fair.JAX_LENGTH)(dp.climb_stairs)
realcode(2, 5, 10)(dp.climb_stairs_optimized)
realcode(([1, 2, 3], 4), ([2, 5, 3, 6], 10), ([2], 3), jax_limitation=fair.JAX_LENGTH)(dp.count)
realcode(([1, 2, 3], 4), ([2, 5], 3), limitation=fair.RECURSION)(dp.combination_sum_topdown)
realcode(([1, 2, 3], 4), ([2, 5], 3), jax_limitation=fair.JAX_LENGTH)(dp.combination_sum_bottom_up)
realcode((3, 3), (1, 5), (2, 7), limitation=fair.RECURSION)(dp.count_paths_recursive)
realcode((3, 3), (1, 5), (2, 7), jax_limitation=fair.JAX_LENGTH)(dp.count_paths_dp)
realcode((2, 10), (1, 5), (3, 14), jax_limitation=fair.JAX_LENGTH)(dp.egg_drop)
realcode(0, 1, 10, -1, limitation=fair.RECURSION)(dp.fib_recursive)
realcode(0, 10, -1, jax_limitation=fair.JAX_LENGTH)(dp.fib_list)
realcode(0, 1, 10, -1)(dp.fib_iter)
realcode((4, 2), (0, 0), (5, 3), (3, 5), limitation=fair.RECURSION)(dp.hosoya)
realcode(3, 5, limitation=fair.RECURSION)(dp.hosoya_testing)
realcode(4, 7, 1, jax_limitation=fair.JAX_LENGTH)(dp.int_divide)
realcode((4, 1), (7, 2), (3, 0), jax_limitation=fair.JAX_LENGTH)(dp.find_k_factor)
realcode(([0, 1, 10, 10], 10, 1), ([0, 0, 3, 4, 5, 9], 12, 2))(dp.planting_trees)

SORTED = [1, 2, 3, 4, 5]
realcode((SORTED, 3), (SORTED, 6), ([], 1))(s.binary_search)
realcode((SORTED, 0, 4, 4), (SORTED, 0, 4, 9), limitation=fair.RECURSION)(s.binary_search_recur)
realcode(([1, 3, 5, 7, 9, 11], 9), ([1, 3, 5, 7, 9, 11], 4), ([], 1))(s.exponential_search)
realcode(([4, 5, 6, 7, 0, 1, 2], 0, 6), ([1, 2, 3], 0, 2),
         limitation=fair.RECURSION)(s.find_min_rotate_recur)
realcode(([1, 2, 2, 2, 3], 2), ([1, 2, 2, 2, 3], 4))(s.first_occurrence)
realcode((0, 100, lambda x: x * x >= 50), (0, 10, lambda x: x > 20))(s.binary_search_first_true)
INTERP = [-25, -12, -1, 10, 12, 15, 20, 41, 55]
realcode((INTERP, -1), (INTERP, 55), (INTERP, -5))(s.interpolation_search)
realcode(([1, 2, 3, 3, 4, 5, 6], 3), ([1, 2, 3, 3, 4, 5, 6], 7), ([1, 2, 3], 1))(s.jump_search)
realcode(([1, 2, 2, 2, 3], 2), ([1, 2, 2, 2, 3], 4))(s.last_occurrence)
realcode(([5, 1, 4, 2], 4), ([5, 1, 4, 2], 9))(s.linear_search)
FOUR = [1, 3, 5, 6]
realcode((FOUR, 5), (FOUR, 2), (FOUR, 7), (FOUR, 0))(s.search_insert)
RANGE = [5, 7, 7, 8, 8, 8, 10]
realcode((RANGE, 8), (RANGE, 11), (RANGE, 5))(s.search_range)
ROTATED = [4, 5, 6, 7, 0, 1, 2]
realcode((ROTATED, 0), (ROTATED, 3), (ROTATED, 5))(s.search_rotate)
realcode((ROTATED, 0, 6, 1), (ROTATED, 0, 6, 3), limitation=fair.RECURSION)(s.search_rotate_recur)
NINE = [1, 2, 3, 4, 5, 6, 7, 8, 9]
realcode((0, 8, 4, NINE), (0, 8, 10, NINE), (0, 8, 9, NINE))(s.ternary_search)
realcode(([2, 7, 11, 15], 9), ([2, 7, 11, 15], 26), ([2, 7, 11, 15], 3),
         limitation=fair.NONE_OR_PAIR)(s.two_sum)
realcode(([2, 7, 11, 15], 9), ([2, 7, 11, 15], 26), ([2, 7, 11, 15], 3),
         limitation=fair.NONE_OR_PAIR)(s.two_sum1)
realcode(([2, 7, 11, 15], 9), ([2, 7, 11, 15], 26), ([2, 7, 11, 15], 3),
         limitation=fair.NONE_OR_PAIR)(s.two_sum2)

realcode(([1, 2, 3, 1, 2, 1, 2, 3], 2), ([20, 37, 20, 21], 1),
         jax_limitation=fair.JAX_LENGTH)(a.delete_nth_naive)
realcode(([1, 2, 3, 1, 2, 1, 2, 3], 2), ([20, 37, 20, 21], 1),
         jax_limitation=fair.JAX_LENGTH)(a.delete_nth)
realcode(([1, 2, 3, 4, 5], 2, 4), ([1, 2, 3, 4, 5], None, 3))(a.limit)
realcode(([3, 5], 1, 10), ([], 1, 3), ([1, 2, 3], 1, 3),
         jax_limitation=fair.JAX_LENGTH)(a.missing_ranges)
SEVEN = [1, 2, 3, 4, 5, 6, 7]
realcode((SEVEN, 3), (SEVEN, 0), (SEVEN, 10))(a.rotate_v1)
realcode((SEVEN, 3), (SEVEN, 0), (SEVEN, 10))(a.rotate_v2)
realcode((SEVEN, 3), (SEVEN, 0), (SEVEN, 10), jax_limitation=fair.JAX_LENGTH)(a.rotate_v3)
realcode(([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 20), ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50),
         jax_limitation=fair.JAX_LENGTH)(a.trimmean)

realcode(1994, 3999, 4, limitation=fair.TEXT)(st.int_to_roman)
realcode(15, 1, 0, None, limitation=fair.MIXED)(st.fizzbuzz)
realcode(5, 15, limitation=fair.MIXED)(st.fizzbuzz_with_helper_func)
realcode(('Hello', 3), ('xyz', 27), limitation=fair.TEXT)(st.caesar_cipher)
realcode(('2-4A0r7-4k', 4), ('2-4A0r7-4k', 3), limitation=fair.TEXT)(st.license_number)
realcode(('hello', 2), ('hello', 7), ('', 1), limitation=fair.TEXT)(st.rotate)
realcode(('hello', 2), ('hello', 7), ('', 1), limitation=fair.TEXT)(st.rotate_alt)
realcode((3, 'Ab1'), (11, '#Algorithms'))(st.strong_password)

realcode(([1], [2, 3], [3, 4], 7), ([1, 2], [2, 3], [3, 4, 5], 8),
         limitation=fair.RECURSION)(bt.array_sum_combinations)
realcode(([2, 3, 6, 7], 7), ([2, 3, 5], 8), limitation=fair.RECURSION)(bt.combination_sum)
realcode(12, 32, 7, limitation=fair.RAGGED)(bt.get_factors)
realcode(12, 32, 7, limitation=fair.RAGGED)(bt.recursive_get_factors)
realcode(1, 3, limitation=fair.RECURSION)(bt.generate_parenthesis_v1)
realcode(1, 3, limitation=fair.RECURSION)(bt.generate_parenthesis_v2)
realcode((3, True, [3, 5, 2, 9, 12, 5, 23, 23]), (2, False, [1, 4, 2, 8]),
         limitation=fair.RECURSION)(bt.minimax)

realcode((3, 3), (1, 1), (0, 3), limitation=fair.NONE_CELLS)(mx.count_paths)
realcode(2, 3, jax_limitation=fair.JAX_LENGTH)(mx.identity)
realcode(([[1, 1], [1, 0]], 5), ([[1, 1], [1, 0]], 0),
         limitation=fair.RECURSION)(mx.matrix_exponentiation)
SORTED_MATRIX = [[2, 5, 7], [4, 8, 13], [9, 11, 15], [12, 17, 20]]
realcode((SORTED_MATRIX, 4, 3, 13), (SORTED_MATRIX, 4, 3, 10))(mx.search_in_a_sorted_matrix)
realcode(([[1, 1, 1], [2, 2, 2], [3, 3, 3]], 2), ([[1, 1, 1], [2, 2, 2], [3, 3, 3]], 4),
         limitation=fair.NONE_OR_LIST)(
    mx.sum_sub_squares)
