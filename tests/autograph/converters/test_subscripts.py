"""`table[i]` of a name (a global table, an argument, a local list): Python's result and errors
with Python values, a staged lookup (IndexError and KeyError when run) with a staged index;
`x in {0, n}` builds no set of unhashable traced values."""
import jax.numpy as jnp
import pytest

import autograph as ag
import runtime as tf
from autograph.backends import jax as ag_jax
from autograph.backends.jax_values import enable_x64
from autograph.converters import subscripts
from autograph.pyct import gast_util
from autograph.pyct import naming
from autograph.pyct import parser
from autograph.pyct import transformer

SQUARES = [d * d for d in range(10)]
HALVES = {2: 1.0, 3: 1.5, 10: 5.0}
PRIMES = (2, 3, 5, 7)
NAMES = ['zero', 'one']


def square_of_last_digit(n):
    return SQUARES[n % 10]


def half(k):
    return HALVES[k]


def prime(i):
    return PRIMES[i]


def name(i):
    return NAMES[i]


def local_table(i):
    table = [5, 6]
    return table[i], SQUARES[1:3]


ARRAY = [1, 3, 3, 8, 13, 21]


def bisect_left(array, target):
    low, high = 0, len(array)
    while low < high:
        mid = (low + high) // 2
        if array[mid] < target:
            low = mid + 1
        else:
            high = mid
    return low


def member(x, n):
    return x in {0, n}, x not in {n, 7}


def test_names_without_slices_are_rewritten():
    assert ag.to_code(square_of_last_digit).count('ag__.get_item(SQUARES, ') == 1
    code = ag.to_code(local_table)
    assert 'ag__.get_item(table, i)' in code and 'SQUARES[1:3]' in code
    assert 'ag__.set_display(0, n)' in ag.to_code(member)


@pytest.mark.parametrize('fn, args', [(square_of_last_digit, (47,)), (half, (3,)), (prime, (-1,)),
                                      (name, (1,)), (local_table, (1,)), (member, (5, 5))])
def test_python_values_give_pythons_result(fn, args):
    assert ag.convert(fn)(*args) == fn(*args)


@pytest.mark.parametrize('fn, args, error', [(half, (4,), KeyError), (prime, (4,), IndexError),
                                             (prime, (-5,), IndexError)])
def test_python_values_raise_pythons_error(fn, args, error):
    with pytest.raises(error) as plain:
        fn(*args)
    with pytest.raises(error) as converted:
        ag.convert(fn)(*args)
    assert converted.value.args == plain.value.args


@pytest.mark.parametrize('executor', ['compiled', 'interpreter'])
def test_staged_lookups_on_the_runtime(executor):
    staged = {fn: tf.function(fn, executor=executor) for fn in (square_of_last_digit, half, prime)}

    def run(fn, *args):
        return staged[fn](*[tf.constant(a) for a in args]).numpy().item()
    assert run(square_of_last_digit, 47) == 49
    assert run(half, 10) == 5.0 and run(prime, -1) == 7 and run(prime, 2) == 5
    with pytest.raises(KeyError) as error:
        run(half, 4)
    assert error.value.args == (4,)
    with pytest.raises(IndexError, match='tuple index out of range'):
        run(prime, -5)
    got = tf.function(member, executor=executor)(tf.constant(5), tf.constant(5))
    assert [t.numpy().item() for t in got] == [True, False]
    # a local list, and an argument list (a binary search reads `array[mid]`)
    assert tf.function(local_table, executor=executor)(tf.constant(-1))[0].numpy() == 6
    search = tf.function(bisect_left, executor=executor)
    for target in (-5, 3, 4, 9, 40):
        assert search(ARRAY, tf.constant(target)).numpy() == bisect_left(ARRAY, target)
    with pytest.raises(IndexError, match='list index out of range'):
        tf.function(local_table, executor=executor)(tf.constant(2))


def test_staged_lookups_under_jax():
    with enable_x64():
        assert int(ag_jax.jit(square_of_last_digit)(jnp.asarray(47))) == 49
        assert float(ag_jax.jit(half)(jnp.asarray(3))) == 1.5
        assert int(ag_jax.jit(prime)(jnp.asarray(-2))) == 5
        with pytest.raises(IndexError, match='tuple index out of range'):
            ag_jax.jit(prime)(jnp.asarray(9))
        got = ag_jax.jit(member)(jnp.asarray(0), jnp.asarray(5))
        search = ag_jax.jit(lambda target: bisect_left(ARRAY, target))
        assert [int(search(jnp.asarray(t))) for t in (-5, 3, 9, 40)] == [0, 1, 4, 6]
    assert [bool(v) for v in got] == [True, True]


def test_a_table_of_other_values_is_indexed_by_python():
    with pytest.raises(TypeError):
        tf.function(name)(tf.constant(1))


def rotate_v3(array, k):  # keon/algorithms, array/rotate.py
    length = len(array)
    k = k % length
    return array[length - k:] + array[:length - k]


def trimmed_mean(array, percentage):  # keon/algorithms, array/trimmean.py
    trim_count = int(len(array) * (percentage / 200))
    trimmed = array[trim_count:len(array) - trim_count]
    total = 0
    for value in trimmed:
        total += value
    return total / len(trimmed)


def every_other(array, start, step):
    return array[start::step], array[:start:-1] + [0], [9] + array[-start:]


def tensor_halves(t, k):
    return t[k:] + t[:-k]  # a tensor's slices add elementwise, as unconverted


def test_slices_at_a_bound_that_is_not_a_constant_are_rewritten():
    code = ag.to_code(rotate_v3)
    assert ("ag__.get_slice(array, (length - k), None, None, 'array') + "
            "ag__.get_slice(array, None, (length - k), None, 'array')") in code
    assert 'SQUARES[1:3]' in ag.to_code(local_table)


@pytest.mark.parametrize('fn, args', [
    (rotate_v3, ([1, 2, 3, 4, 5, 6, 7], 3)), (rotate_v3, ((1, 2, 3), 5)),
    (rotate_v3, ('abcde', 2)), (trimmed_mean, ([1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10], 20)),
    (every_other, ([1, 2, 3, 4, 5, 6], 1, 2)), (every_other, ([1, 2, 3], -9, -1))])
def test_python_slices_give_pythons_result(fn, args):
    assert ag.convert(fn)(*args) == fn(*args)


@pytest.mark.parametrize('fn, args, error', [
    (rotate_v3, ([], 3), ZeroDivisionError), (every_other, ([1, 2], 0, 0), ValueError),
    (every_other, ([1, 2], 'a', 1), TypeError), (trimmed_mean, ([1, 2], 100), ZeroDivisionError)])
def test_python_slices_raise_pythons_error(fn, args, error):
    with pytest.raises(error) as plain:
        fn(*args)
    with pytest.raises(error) as converted:
        ag.convert(fn)(*args)
    assert converted.value.args == plain.value.args


@pytest.mark.parametrize('executor', ['compiled', 'interpreter'])
def test_a_list_sliced_at_a_staged_bound_is_a_staged_list_on_the_runtime(executor):
    seven = [1, 2, 3, 4, 5, 6, 7]
    rotate = tf.function(rotate_v3, executor=executor)
    for k in (0, 3, 10, -2):  # `+` concatenates the two staged slices
        assert rotate(seven, tf.constant(k)).numpy().tolist() == rotate_v3(seven, k)
    mean = tf.function(trimmed_mean, executor=executor)
    for percentage in (20, 50, 0):
        assert mean(list(range(1, 11)), tf.constant(percentage)).numpy().item() == (
            trimmed_mean(list(range(1, 11)), percentage))
    sliced = tf.function(every_other, executor=executor)
    for start, step in ((1, 2), (-9, -1), (4, 3), (0, -2)):
        got = sliced([1, 2, 3, 4, 5, 6], tf.constant(start), tf.constant(step))
        assert [g.numpy().tolist() for g in got] == list(every_other([1, 2, 3, 4, 5, 6], start,
                                                                     step))
    halves = tf.function(tensor_halves, executor=executor)
    assert halves(tf.constant([1, 2, 3, 4]), tf.constant(2)).numpy().tolist() == [4, 6]


def test_a_list_of_other_values_sliced_at_a_staged_bound_is_refused_by_python():
    with pytest.raises(TypeError, match='cannot be used as a Python int'):
        tf.function(rotate_v3)(['a', 'b', 'c'], tf.constant(1))


def test_under_jax_a_slice_at_a_traced_bound_is_refused():
    # its length would be a traced value: a fair limit (docs/realcode.md)
    with pytest.raises(TypeError):
        ag_jax.jit(lambda k: rotate_v3([1, 2, 3], k))(jnp.asarray(1))


def _subscript_of(marked):
    """`ag__[x]` built by hand, run through the converter; `ag__` is a plain name, or one
    marked as generated."""
    node = parser.parse('def f(x):\n    return ag__[x]')
    if marked:
        node.body[0].value.value = gast_util.generated_name('ag__')
    ctx = transformer.EntityInfo('f', '<test>', naming.Namer.for_tree(node))
    return parser.unparse(subscripts.transform(node, ctx).body[0]).strip()


def test_a_generated_name_is_recognised_by_its_mark_not_its_name():
    assert _subscript_of(marked=False) == 'return ag__.get_item(ag__, x)'
    assert _subscript_of(marked=True) == 'return ag__[x]'
