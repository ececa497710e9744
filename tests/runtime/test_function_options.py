"""TensorFlow's other tf.function arguments, TF 2.21's signature text, float32 reprs."""

import warnings

import numpy as np
import pytest

import runtime as tf

# Warnings these tests trigger on purpose: tests of retracing options retrace on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")


def _add(x: tf.Tensor, n: int):
    _add.traces += 1
    return x + n


def test_follow_type_hints_makes_hinted_python_numbers_tensors():
    _add.traces = 0
    hinted = tf.function(_add, experimental_follow_type_hints=True)
    assert [int(hinted(v, 2)) for v in (1, 5, 9)] == [3, 7, 11]
    assert hinted.experimental_get_tracing_count() == 1 and _add.traces == 1
    # `n` is annotated int, not tf.Tensor: a new value retraces, as without the option.
    assert int(hinted(1, 3)) == 4 and hinted.experimental_get_tracing_count() == 2
    _add.traces = 0
    plain = tf.function(_add)
    assert [int(plain(v, 2)) for v in (1, 5, 9)] == [3, 7, 11]
    assert plain.experimental_get_tracing_count() == 3


def _double(x):
    return x * 2


@pytest.mark.parametrize('flag', [True, False, None])
def test_jit_compile_runs_the_xla_executor(flag):
    f = tf.function(_double, jit_compile=flag)
    assert f(tf.constant([1.5, 2.0])).numpy().tolist() == [3.0, 4.0]
    assert f._executor == ('xla' if flag else 'compiled')  # pylint: disable=protected-access


def test_jit_compile_with_the_interpreter_is_refused():
    with pytest.raises(ValueError, match=r"expected jit_compile=True or executor='interpreter'"
                                         r", found both"):
        tf.function(_double, jit_compile=True, executor='interpreter')
    with pytest.warns(DeprecationWarning, match='experimental_compile is deprecated'):
        with pytest.raises(ValueError, match='found both'):
            tf.function(_double, experimental_compile=True, executor='interpreter')


def test_experimental_relax_shapes_is_reduce_retracing():
    with pytest.warns(DeprecationWarning, match='use reduce_retracing instead'):
        relaxed = tf.function(_double, experimental_relax_shapes=True)
    for n in (1, 2, 3, 4):
        assert relaxed(tf.ones([n])).numpy().tolist() == [2.0] * n
    assert relaxed.experimental_get_tracing_count() == 2  # (1,), then (None,)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        strict = tf.function(_double, experimental_relax_shapes=False, reduce_retracing=True)
    for n in (1, 2, 3):
        strict(tf.ones([n]))
    assert strict.experimental_get_tracing_count() == 3


def test_autograph_options_and_attributes_refused_with_a_reason():
    assert tf.function(_double, experimental_autograph_options=())(3) == 6
    with pytest.raises(ValueError, match='no optional features to switch'):
        tf.function(_double, experimental_autograph_options=('LISTS',))
    with pytest.raises(ValueError, match='expected experimental_implements=None'):
        tf.function(_double, experimental_implements='name:foo')
    with pytest.raises(ValueError, match='expected experimental_attributes=None'):
        tf.function(_double, experimental_attributes={'a': 1})


def _several(a, b=2, *args, k, **kw):
    return {'sum': a * b, 'pair': (a, k)}


def test_pretty_printed_signature_is_tensorflow_2_21s():
    v = tf.Variable(1.0)

    def reads(x):
        return x * v
    concrete = tf.function(_several).get_concrete_function(
        tf.constant(1.0), 3, tf.constant([1, 2]), k=tf.constant(2.0), extra='s')
    assert concrete.pretty_printed_signature() == (
        "Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
        "  b (POSITIONAL_OR_KEYWORD): Literal[3]\n"
        "  args_0 (POSITIONAL_ONLY): TensorSpec(shape=(2,), dtype=tf.int32, name=None)\n"
        "  extra (KEYWORD_ONLY): Literal['s']\n"
        "  k (KEYWORD_ONLY): TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
        "Output Type:\n"
        "  Dict[['pair', Tuple[TensorSpec(shape=(), dtype=tf.float32, name=None), "
        "TensorSpec(shape=(), dtype=tf.float32, name=None)]], "
        "['sum', TensorSpec(shape=(), dtype=tf.float32, name=None)]]\n"
        "Captures:\n"
        "  None")
    captured = tf.function(reads).get_concrete_function(tf.TensorSpec([None], tf.float32))
    assert str(captured).endswith(
        "Captures:\n  %d: TensorSpec(shape=(), dtype=tf.resource, name=None)" % id(v))


def test_float32_repr_is_the_shortest_float32_text():
    root2 = tf.sqrt(tf.constant(2.0))
    assert repr(root2) == '<tf.Tensor: shape=(), dtype=float32, numpy=1.4142135>'
    assert str(root2) == 'tf.Tensor(1.4142135, shape=(), dtype=float32)'
    # The text reads back as the same float32, and is no longer than numpy's own.
    for value in (0.1, 1 / 3, 1e-8, 123456789.0, -2.5):
        t = tf.constant(value)
        text = repr(t).split('numpy=')[1][:-1]
        assert np.float32(float(text)) == np.float32(value)
        assert text == str(np.float32(value))
    assert repr(tf.constant(1.1, tf.float64)) == (
        '<tf.Tensor: shape=(), dtype=float64, numpy=1.1>')
    assert repr(tf.constant(3)) == '<tf.Tensor: shape=(), dtype=int32, numpy=3>'
    assert repr(tf.constant(True)) == '<tf.Tensor: shape=(), dtype=bool, numpy=True>'
