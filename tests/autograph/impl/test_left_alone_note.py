"""A function autograph leaves unconverted (the standard library, a module passed to
do_not_convert_module) says so when it fails on staged arguments: the error names it, where
it is defined and why it ran as plain Python. (torch's case: tests/torch.)"""
import colorsys
import statistics

import jax
import pytest

import autograph
import runtime as tf
from autograph.impl import api


def notes(error):
    return '\n'.join(getattr(error, '__notes__', ()))


def says_colorsys_v(error):
    text = notes(error)
    return ('autograph ran colorsys._v (defined at ' in text
            and 'standard library (module colorsys)' in text
            and 'copy the function into your own code' in text)


def test_runtime_names_the_unconverted_stdlib_helper():
    staged = tf.function(colorsys.hls_to_rgb)
    args = [tf.constant(v, tf.float64) for v in (0.3, 0.5, 0.5)]
    with pytest.raises(TypeError, match='as a Python bool') as caught:
        staged(*args)
    assert says_colorsys_v(caught.value)


def test_jax_names_the_unconverted_stdlib_helper():
    with pytest.raises(jax.errors.TracerBoolConversionError) as caught:
        jax.jit(autograph.convert(colorsys.hls_to_rgb))(0.3, 0.5, 0.5)
    assert says_colorsys_v(caught.value)


def test_python_values_run_as_before_and_their_errors_have_no_note():
    converted = autograph.convert(colorsys.hls_to_rgb)
    assert converted(0.3, 0.5, 0.5) == colorsys.hls_to_rgb(0.3, 0.5, 0.5)

    def mean_of(values):
        return statistics.mean(values)

    with pytest.raises(statistics.StatisticsError) as caught:
        autograph.convert(mean_of)([])
    assert 'autograph ran' not in notes(caught.value)


def _branchy(x):
    if x > 0:
        return x
    return -x


def test_a_do_not_convert_module_is_named(monkeypatch):
    name = 'left_alone_test_library'
    monkeypatch.setattr(_branchy, '__module__', name)
    monkeypatch.setattr(api, 'DO_NOT_CONVERT_MODULES', api.DO_NOT_CONVERT_MODULES | set())
    api.do_not_convert_module(name)
    try:
        def user(x):
            return _branchy(x) * 2

        with pytest.raises(TypeError) as caught:
            tf.function(user)(tf.constant(-3.0))
        assert ('autograph ran left_alone_test_library._branchy' in notes(caught.value)
                and 'autograph was told to leave alone' in notes(caught.value))
        assert autograph.convert(user)(-3.0) == 6.0
    finally:
        api._module_decisions.clear()
