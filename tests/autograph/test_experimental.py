"""autograph.experimental, which is also TensorFlow's tf.autograph.experimental."""

import autograph as ag
import runtime as tf


def test_do_not_convert_is_the_same_object_under_tensorflows_name():
    assert ag.experimental.do_not_convert is ag.do_not_convert
    assert tf.autograph.experimental.do_not_convert is ag.do_not_convert


@ag.experimental.do_not_convert
def _left_alone(x):
    if x > 0:
        return 1
    return 0


def test_a_function_marked_through_experimental_is_not_converted():
    assert ag.convert(_left_alone) is _left_alone
    assert _left_alone(3) == 1 and _left_alone(-3) == 0


def test_signatures_are_tensorflows():
    import inspect  # pylint: disable=import-outside-toplevel
    # tf.autograph.experimental.do_not_convert(func=None) and set_loop_options(
    #     parallel_iterations=UNSPECIFIED, swap_memory=..., maximum_iterations=...,
    #     shape_invariants=...)
    assert list(inspect.signature(ag.experimental.do_not_convert).parameters) == ['func']
    assert ag.experimental.do_not_convert(func=_left_alone) is _left_alone
    assert list(inspect.signature(ag.experimental.set_loop_options).parameters) == [
        'parallel_iterations', 'swap_memory', 'maximum_iterations', 'shape_invariants']
    assert repr(inspect.signature(ag.experimental.set_loop_options).parameters[
        'maximum_iterations'].default) == 'UNSPECIFIED'
