"""Copies chosen functions, byte for byte, from public repositories into this folder.

    python -m tests.realcode.verbatim.extract           # from the repository root
    python -m tests.realcode.verbatim.extract --check   # the files here are what it writes

Each repository's git directory (SOURCES: the `fetch` tool's mirrors here; set
VERBATIM_GIT_<KEY> to another clone) is read with `git show <commit>:<path>`; `ast` gives each
chosen top-level function's line range (decorators included), and the module-level
statements it names (imports, constants, helpers: found from the names it reads, transitively)
come with it, in source order. Nothing is retyped: the generated modules hold the source
lines as they are, after a header naming the repository, commit, path, blob and licence.
Registration (the calls) is in calls_*.py, so the copied text stays as it was.
"""

import ast
import collections
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent

Source = collections.namedtuple('Source', 'repo git commit licence copyright licence_file')

SOURCES = {
    'keon': Source('keon/algorithms', '/work/.mirror/keon+algorithms/repo',
                   'a1bf1f39f95b59ed0bb348d6148c7e097e10481e', 'MIT',
                   'Copyright (c) 2017 Keon', 'LICENSE'),
    'pygorithm': Source('OmkarPathak/pygorithm', '/work/.mirror/OmkarPathak+pygorithm/repo',
                        'be35813729a0151da1ac9ba013453a61ffa249b8', 'MIT',
                        'Copyright (c) 2017 Omkar Pathak', 'LICENSE'),
    'nryoung': Source('nryoung/algorithms', '/work/.mirror/nryoung+algorithms/repo',
                      '636a4519832849dcb6516f2ef78428872b3bb81c', 'BSD-3-Clause',
                      'Copyright (c) 2012-215 by Nic Young', 'LICENSE.rst'),
    'thealgorithms': Source('TheAlgorithms/Python', '/work/.mirror/TheAlgorithms+Python/repo',
                            'f5988cc09713315817df6a7e327e258013a94440', 'MIT',
                            'Copyright (c) 2016-2022 TheAlgorithms and contributors',
                            'LICENSE.md'),
}

# generated module -> (source key, [(path in the repository, [top-level function names])])
MODULES = {}


def _keon(module, folder, files):
    MODULES[module] = ('keon', [('algorithms/{}/{}.py'.format(folder, f), names.split())
                                for f, names in files])


_keon('keon_math', 'math', [
    ('base_conversion', 'int_to_base base_to_int'),
    ('combination', 'combination combination_memo'),
    ('decimal_to_binary_ip', 'decimal_to_binary_util'),
    ('distance_between_two_points', 'distance_between_two_points'),
    ('euler_totient', 'euler_totient'),
    ('extended_gcd', 'extended_gcd'),
    ('factorial', 'factorial factorial_recur'),
    ('find_order_simple', 'find_order'),
    ('find_primitive_root_simple', 'find_primitive_root'),
    ('gcd', 'gcd lcm trailing_zero gcd_bit'),
    ('goldbach', 'goldbach'),
    ('hailstone', 'hailstone'),
    ('krishnamurthy_number', 'krishnamurthy_number'),
    ('magic_number', 'magic_number'),
    ('modular_exponential', 'modular_exponential'),
    ('modular_inverse', 'modular_inverse'),
    ('next_bigger', 'next_bigger'),
    ('next_perfect_square', 'find_next_square find_next_square2'),
    ('nth_digit', 'find_nth_digit'),
    ('num_digits', 'num_digits'),
    ('num_perfect_squares', 'num_perfect_squares'),
    ('power', 'power power_recur'),
    ('prime_check', 'prime_check'),
    ('primes_sieve_of_eratosthenes', 'get_primes'),
    ('pythagoras', 'pythagoras'),
    ('recursive_binomial_coefficient', 'recursive_binomial_coefficient'),
    ('sqrt_precision_factor', 'square_root'),
    ('summing_digits', 'sum_dig_pow'),
    ('surface_area_of_torus', 'surface_area_of_torus'),
])
_keon('keon_diffie_hellman', 'math', [
    ('diffie_hellman_key_exchange', '_prime_check _find_primitive_root alice_public_key '
     'bob_public_key alice_shared_key bob_shared_key'),
])
_keon('keon_bits', 'bit_manipulation', [
    ('add_bitwise_operator', 'add_bitwise_operator'),
    ('binary_gap', 'binary_gap'),
    ('bit_operation', 'get_bit set_bit clear_bit update_bit'),
    ('bytes_int_conversion', 'int_to_bytes_big_endian int_to_bytes_little_endian'),
    ('count_flips_to_convert', 'count_flips_to_convert'),
    ('count_ones', 'count_ones_recur count_ones_iter'),
    ('flip_bit_longest_sequence', 'flip_bit_longest_seq'),
    ('gray_code', 'gray_code gray_to_binary'),
    ('has_alternative_bit', 'has_alternative_bit has_alternative_bit_fast'),
    ('insert_bit', 'insert_one_bit insert_mult_bits'),
    ('power_of_two', 'is_power_of_two'),
    ('remove_bit', 'remove_bit'),
    ('reverse_bits', 'reverse_bits'),
    ('swap_pair', 'swap_pair'),
])
_keon('keon_dp', 'dynamic_programming', [
    ('climbing_stairs', 'climb_stairs climb_stairs_optimized'),
    ('coin_change', 'count'),
    ('combination_sum', 'combination_sum_topdown combination_sum_bottom_up'),
    ('count_paths_dp', 'count_paths_recursive count_paths_dp'),
    ('egg_drop', 'egg_drop'),
    ('fib', 'fib_recursive fib_list fib_iter'),
    ('hosoya_triangle', 'hosoya hosoya_testing'),
    ('int_divide', 'int_divide'),
    ('k_factor', 'find_k_factor'),
    ('planting_trees', 'planting_trees'),
])
_keon('keon_search', 'searching', [
    ('binary_search', 'binary_search binary_search_recur'),
    ('exponential_search', 'exponential_search'),
    ('find_min_rotate', 'find_min_rotate_recur'),
    ('first_occurrence', 'first_occurrence'),
    ('generalized_binary_search', 'binary_search_first_true'),
    ('interpolation_search', 'interpolation_search'),
    ('jump_search', 'jump_search'),
    ('last_occurrence', 'last_occurrence'),
    ('linear_search', 'linear_search'),
    ('search_insert', 'search_insert'),
    ('search_range', 'search_range'),
    ('search_rotate', 'search_rotate search_rotate_recur'),
    ('ternary_search', 'ternary_search'),
    ('two_sum', 'two_sum two_sum1 two_sum2'),
])
_keon('keon_array', 'array', [
    ('delete_nth', 'delete_nth_naive delete_nth'),
    ('limit', 'limit'),
    ('missing_ranges', 'missing_ranges'),
    ('rotate', 'rotate_v1 rotate_v2 rotate_v3'),
    ('trimmean', 'trimmean'),
])
_keon('keon_string', 'string', [
    ('int_to_roman', 'int_to_roman'),
    ('fizzbuzz', 'fizzbuzz fizzbuzz_with_helper_func'),
    ('caesar_cipher', 'caesar_cipher'),
    ('license_number', 'license_number'),
    ('rotate', 'rotate rotate_alt'),
    ('strong_password', 'strong_password'),
])
_keon('keon_backtracking', 'backtracking', [
    ('array_sum_combinations', 'array_sum_combinations'),
    ('combination_sum', 'combination_sum'),
    ('factor_combinations', 'get_factors recursive_get_factors'),
    ('generate_parenthesis', 'generate_parenthesis_v1 generate_parenthesis_v2'),
    ('minimax', 'minimax'),
])
_keon('keon_matrix', 'matrix', [
    ('count_paths', 'count_paths'),
    ('matrix_exponentiation', 'identity matrix_exponentiation'),
    ('search_in_sorted_matrix', 'search_in_a_sorted_matrix'),
    ('sum_sub_squares', 'sum_sub_squares'),
])
MODULES['pygorithm_math'] = ('pygorithm', [
    ('pygorithm/math/GCD.py', ['find_gcd']),
    ('pygorithm/math/conversion.py', 'decimal_to_binary binary_to_decimal decimal_to_hex'.split()),
    ('pygorithm/math/factorial.py', ['factorial']),
    ('pygorithm/math/lcm_using_gcd.py', ['gcd']),
    ('pygorithm/math/pascals_triangle.py', ['pascals_triangle']),
    ('pygorithm/math/sieve_of_eratosthenes.py', ['sieve_of_eratosthenes']),
    ('pygorithm/fibonacci/goldenratio.py', ['fib']),
    ('pygorithm/dynamic_programming/binary_knapsack.py', ['knapsack']),
    ('pygorithm/dynamic_programming/fractional_knapsack.py', ['fractional_knapsack']),
])
for _name in ('generator', 'memoization', 'recursion'):
    MODULES['pygorithm_fibonacci_' + _name] = ('pygorithm', [
        ('pygorithm/fibonacci/{}.py'.format(_name), ['get_sequence'])])
MODULES['pygorithm_base10'] = ('pygorithm', [
    ('pygorithm/binary/base10.py', ['to_base2', 'to_base16'])])
for _name, _names in (('binary_search', 'search'), ('exponential_search', 'search'),
                      ('interpolation_search', 'search'), ('linear_search', 'search'),
                      ('ternary_search', 'search')):
    MODULES['pygorithm_' + _name] = ('pygorithm', [
        ('pygorithm/searching/{}.py'.format(_name), _names.split())])
MODULES['nryoung_math'] = ('nryoung', [
    ('algorithms/math/extended_gcd.py', ['extended_gcd']),
    ('algorithms/math/lcm.py', ['lcm']),
    ('algorithms/math/sieve_eratosthenes.py', ['eratosthenes']),
    ('algorithms/math/sieve_atkin.py', ['atkin']),
    ('algorithms/math/std_normal_pdf.py', ['pdf']),
    ('algorithms/factorization/fermat.py', ['fermat']),
])
MODULES['nryoung_binary_search'] = ('nryoung', [
    ('algorithms/searching/binary_search.py', ['search'])])
MODULES['nryoung_ternary_search'] = ('nryoung', [
    ('algorithms/searching/ternary_search.py', ['search'])])


def _thealgorithms(module, files):
    MODULES[module] = ('thealgorithms', [(path, names.split()) for path, names in files])


_thealgorithms('thealgorithms_maths', [
    ('maths/basic_maths.py', 'prime_factors number_of_divisors sum_of_divisors'),
    ('maths/binary_exponentiation.py', 'binary_exp_iterative binary_exp_mod_iterative'),
    ('maths/binary_multiplication.py', 'binary_multiply'),
    ('maths/binomial_coefficient.py', 'binomial_coefficient'),
    ('maths/combinations.py', 'combinations'),
    ('maths/extended_euclidean_algorithm.py', 'extended_euclidean_algorithm'),
    ('maths/factorial.py', 'factorial'),
    ('maths/factors.py', 'factors_of_a_number'),
    ('maths/is_int_palindrome.py', 'is_int_palindrome'),
    ('maths/josephus_problem.py', 'josephus_iterative'),
    ('maths/least_common_multiple.py', 'least_common_multiple_slow'),
    ('maths/lucas_lehmer_primality_test.py', 'lucas_lehmer_test'),
    ('maths/modular_exponential.py', 'modular_exponential'),
    ('maths/perfect_cube.py', 'perfect_cube'),
    ('maths/perfect_square.py', 'perfect_square_binary_search'),
    ('maths/sum_of_digits.py', 'sum_of_digits'),
    ('maths/signum.py', 'signum'),
    ('maths/floor.py', 'floor'),
    ('maths/addition_without_arithmetic.py', 'add'),
    ('maths/max_sum_sliding_window.py', 'max_sum_in_array'),
    ('maths/sum_of_geometric_progression.py', 'sum_of_geometric_progression'),
    ('maths/sum_of_harmonic_series.py', 'sum_of_harmonic_progression'),
    ('maths/series/geometric_series.py', 'geometric_series'),
])
_thealgorithms('thealgorithms_numbers', [
    ('maths/prime_check.py', 'is_prime'),
    ('maths/prime_factors.py', 'prime_factors unique_prime_factors'),
    ('maths/prime_sieve_eratosthenes.py', 'prime_sieve_eratosthenes'),
    ('maths/sieve_of_eratosthenes.py', 'prime_sieve'),
    ('maths/eulers_totient.py', 'totient'),
    ('maths/special_numbers/polygonal_numbers.py', 'polygonal_num'),
    ('maths/special_numbers/proth_number.py', 'is_proth_number'),
    ('maths/special_numbers/triangular_numbers.py', 'triangular_number'),
    ('maths/special_numbers/ugly_numbers.py', 'ugly_numbers'),
])
_thealgorithms('thealgorithms_dp', [
    ('dynamic_programming/climbing_stairs.py', 'climb_stairs'),
    ('dynamic_programming/combination_sum_iv.py', 'combination_sum_iv_bottom_up'),
    ('dynamic_programming/integer_partition.py', 'partition'),
    ('dynamic_programming/knapsack.py', 'knapsack'),
    ('dynamic_programming/max_subarray_sum.py', 'max_subarray_sum'),
    ('dynamic_programming/minimum_coin_change.py', 'dp_count'),
    ('dynamic_programming/minimum_size_subarray_sum.py', 'minimum_subarray_sum'),
    ('dynamic_programming/minimum_squares_to_represent_a_number.py',
     'minimum_squares_to_represent_a_number'),
    ('dynamic_programming/minimum_steps_to_one.py', 'min_steps_to_one'),
    ('dynamic_programming/rod_cutting.py', 'bottom_up_cut_rod'),
    ('dynamic_programming/sum_of_subset.py', 'is_sum_subset'),
    ('dynamic_programming/tribonacci.py', 'tribonacci'),
])
_thealgorithms('thealgorithms_bits', [
    ('bit_manipulation/binary_count_trailing_zeros.py', 'binary_count_trailing_zeros'),
    ('bit_manipulation/count_number_of_one_bits.py',
     'get_set_bits_count_using_brian_kernighans_algorithm'),
    ('bit_manipulation/is_power_of_two.py', 'is_power_of_two'),
    ('bit_manipulation/largest_pow_of_two_le_num.py', 'largest_pow_of_two_le_num'),
    ('bit_manipulation/reverse_bits.py', 'reverse_bit'),
    ('bit_manipulation/single_bit_manipulation_operations.py', 'is_bit_set get_bit'),
])
_thealgorithms('thealgorithms_searches', [
    ('searches/binary_search.py', 'bisect_left binary_search'),
    ('searches/double_linear_search.py', 'double_linear_search'),
    ('searches/interpolation_search.py', 'interpolation_search'),
    ('searches/ternary_search.py', 'ite_ternary_search'),
])


def _git(source, *args):
    git = os.environ.get('VERBATIM_GIT_' + source.repo.split('/')[0].upper(), source.git)
    return subprocess.run(['git', '-C', git] + list(args), check=True, capture_output=True,
                          text=True).stdout


def _defined(stmt):
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split('.')[0] for a in stmt.names}
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def _read(stmt):
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}


def _chosen(tree, names, path):
    """The top-level statements the named functions need, in source order."""
    by_name = {}
    for stmt in tree.body:
        for name in _defined(stmt):
            by_name.setdefault(name, stmt)
    wanted, todo = [], list(names)
    while todo:
        name = todo.pop()
        stmt = by_name.get(name)
        if stmt is None or any(stmt is s for s in wanted):
            continue
        if isinstance(stmt, ast.ImportFrom) and stmt.module == '__future__':
            continue
        if isinstance(stmt, ast.ImportFrom) and (stmt.level or stmt.module.split('.')[0] in (
                'algorithms', 'pygorithm', 'maths', 'bit_manipulation', 'dynamic_programming',
                'searches')):
            raise SystemExit('{}: {} comes from the package itself'.format(path, name))
        wanted.append(stmt)
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
            todo.extend(_read(stmt))
    missing = [n for n in names if n not in by_name]
    if missing:
        raise SystemExit('{}: no top-level {}'.format(path, missing))
    return sorted(wanted, key=lambda s: s.lineno)


def _segment(lines, stmt):
    first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, 'decorator_list', [])])
    return first, stmt.end_lineno, ''.join(lines[first - 1:stmt.end_lineno])


def generate(module, key, files):
    source = SOURCES[key]
    header, body, seen = [], [], {}
    for path, names in files:
        text = _git(source, 'show', '{}:{}'.format(source.commit, path))
        blob = _git(source, 'rev-parse', '{}:{}'.format(source.commit, path)).strip()
        header.append('    {} (blob {})'.format(path, blob))
        lines = text.splitlines(keepends=True)
        for stmt in _chosen(ast.parse(text), names, path):
            first, last, code = _segment(lines, stmt)
            name = sorted(_defined(stmt))[0]
            if name in seen and not isinstance(stmt, (ast.Import, ast.ImportFrom)):
                if seen[name] != code:
                    raise SystemExit('{}: two different {} in {}'.format(module, name, path))
                continue
            seen[name] = code
            body.append('# {}, lines {}-{}\n{}'.format(path, first, last, code))
    return ''.join([
        '"""Copied verbatim from https://github.com/{} (generated by extract.py: do not edit).\n\n'
        .format(source.repo),
        'Repository: {}\nCommit: {}\nPaths:\n{}\n'.format(source.repo, source.commit,
                                                          '\n'.join(header)),
        'Licence: {}, {}; the full text is LICENSES/{}.txt.\n'.format(
            source.licence, source.copyright, key),
        'The calls that run these functions are registered in calls_{}.py.\n"""\n'.format(key),
        '# flake8: noqa\n# pylint: skip-file\nfrom __future__ import annotations\n\n\n',
        '\n\n'.join(body)])


def main(check=False):
    texts = {HERE / (module + '.py'): generate(module, key, files)
             for module, (key, files) in MODULES.items()}
    for key, source in SOURCES.items():
        texts[HERE / 'LICENSES' / (key + '.txt')] = _git(
            source, 'show', '{}:{}'.format(source.commit, source.licence_file))
    for path, text in texts.items():
        if not check:
            path.write_text(text, encoding='utf-8')
        elif path.read_text(encoding='utf-8') != text:
            raise SystemExit('{} differs from its source'.format(path.name))
    print('{} files {}'.format(len(texts), 'checked' if check else 'written'))


if __name__ == '__main__':
    main(check='--check' in sys.argv[1:])
