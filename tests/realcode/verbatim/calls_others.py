"""The calls of the functions copied from OmkarPathak/pygorithm (pygorithm_*.py) and
nryoung/algorithms (nryoung_*.py), 2-5 each, an invalid input among them where the function
validates. The copied modules are not edited: registration happens here."""

from tests.realcode.registry import realcode
from tests.realcode.verbatim import fair
from tests.realcode.verbatim import nryoung_binary_search
from tests.realcode.verbatim import nryoung_math as nm
from tests.realcode.verbatim import nryoung_ternary_search
from tests.realcode.verbatim import pygorithm_base10 as base10
from tests.realcode.verbatim import pygorithm_binary_search
from tests.realcode.verbatim import pygorithm_exponential_search
from tests.realcode.verbatim import pygorithm_fibonacci_generator
from tests.realcode.verbatim import pygorithm_fibonacci_memoization
from tests.realcode.verbatim import pygorithm_fibonacci_recursion
from tests.realcode.verbatim import pygorithm_interpolation_search
from tests.realcode.verbatim import pygorithm_linear_search
from tests.realcode.verbatim import pygorithm_math as pm
from tests.realcode.verbatim import pygorithm_ternary_search

realcode((48, 18), (17, 5), (0, 9))(pm.find_gcd)
realcode(10, 0, 255, limitation=fair.TEXT)(pm.decimal_to_binary)
realcode(1010, 111, 0, limitation=fair.TEXT)(pm.binary_to_decimal)
realcode(255, 26, 0, limitation=fair.TEXT)(pm.decimal_to_hex)
realcode(5, 0, 1.5, limitation=fair.ISINSTANCE)(pm.factorial)
realcode((48, 18), (17, 5), (7, 0))(pm.gcd)
realcode(3, 5)(pm.pascals_triangle)
realcode(30, 2, jax_limitation=fair.JAX_LENGTH)(pm.sieve_of_eratosthenes)
realcode(10, 1, 30)(pm.fib)
realcode((50, [60, 100, 120], [10, 20, 30]), (10, [60, 100, 120], [10, 20, 30]), (5, (1,), [1]),
         jax_limitation=fair.JAX_LENGTH)(
    pm.knapsack)
realcode(([60, 100, 120], [10, 20, 30], 50), ([60, 100, 120], [10, 20, 30], 5))(
    pm.fractional_knapsack)
realcode(5, 0, limitation=fair.GENERATOR)(pygorithm_fibonacci_generator.get_sequence)
realcode(5, 0, limitation=fair.RECURSION)(pygorithm_fibonacci_memoization.get_sequence)
realcode(5, 0, limitation=fair.RECURSION)(pygorithm_fibonacci_recursion.get_sequence)
realcode(10, 0, 37, limitation=fair.TEXT)(base10.to_base2)
realcode(255, 4096, 0, limitation=fair.TEXT)(base10.to_base16)
ODD = [1, 3, 5, 7, 9]
realcode((ODD, 7), (ODD, 4), ((1, 3), 1))(pygorithm_binary_search.search)
realcode((ODD, 7), (ODD, 4), ((1, 3), 1), limitation=fair.RECURSION)(
    pygorithm_exponential_search.search)
realcode((ODD, 7), (ODD, 4), ((1, 3), 1))(pygorithm_interpolation_search.search)
realcode(([5, 1, 4], 4), ([5, 1, 4], 9), ([5, 1, 4, 1], 1, 2))(pygorithm_linear_search.search)
realcode((ODD, 0, 4, 1), (ODD, 0, 4, 3),
         limitation=fair.RECURSION)(pygorithm_ternary_search.search)

realcode((240, 46), (17, 5))(nm.extended_gcd)
realcode((4, 6), (21, 6))(nm.lcm)
realcode(30, (30, 10), (10, 2, True), jax_limitation=fair.JAX_LENGTH,
         fair_calls=[((10, 2, True), fair.TUPLE_OR_LIST)])(nm.eratosthenes)
realcode(30, 2, 5, jax_limitation=fair.JAX_LENGTH)(nm.atkin)
realcode(0.0, (1.0, 0.0, 2.0))(nm.pdf)
realcode(5959, 25, 8)(nm.fermat)
realcode(([1, 2, 3, 4, 5], 4), ([1, 2, 3, 4, 5], 9))(nryoung_binary_search.search)
realcode((lambda x: -(x - 2.0) ** 2, 0.0, 5.0, 1e-6), (lambda x: x * x, -3.0, 1.0, 1e-4))(
    nryoung_ternary_search.search)
