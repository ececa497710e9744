"""Directives: calls in user code that the converter reads and removes (`set_loop_options`).

The converter (`converters/directives.py`) recognises a directive by the identity of the
function that the call names in the user's module (resolved when the function is converted),
moves its arguments into an annotation of the loop, and removes the call. The functions here
are what runs when a directive is not converted: in a function that runs as plain Python
(`do_not_convert`, `tf.function(autograph=False)`), they do nothing, as in TensorFlow.
"""


class _Unspecified:
    """The default of a directive's optional argument: the option is not set."""

    def __repr__(self):
        return 'UNSPECIFIED'


UNSPECIFIED = _Unspecified()

# The options of set_loop_options that the converter passes to the loop operators.
LOOP_OPTIONS = ('parallel_iterations', 'swap_memory', 'maximum_iterations', 'shape_invariants')


def set_loop_options(parallel_iterations=UNSPECIFIED, swap_memory=UNSPECIFIED,
                     maximum_iterations=UNSPECIFIED, shape_invariants=UNSPECIFIED):
    """Sets options of the enclosing loop (TensorFlow's `tf.autograph.experimental`'s).

    Call it as a statement, the first one of a `while` or `for` loop body, in a function
    that autograph converts. The options apply to that loop only, and only when the loop is
    staged (a backend's `while_loop`); a loop that runs as Python ignores them, as in
    TensorFlow:

        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(maximum_iterations=3)
            ...

    Args:
      parallel_iterations: accepted for TensorFlow's signature; no effect (the backends run
        one iteration at a time).
      swap_memory: accepted for TensorFlow's signature; no effect (no device memory).
      maximum_iterations: an int (or a staged integer scalar): the staged loop stops after
        that many iterations, with no error, as `tf.while_loop(maximum_iterations=...)`. On
        JAX it is also what lets a Python list appended to in the loop become a staged list
        (a buffer of that many more elements).
      shape_invariants: accepted for TensorFlow's signature, a list of (variable, shape)
        pairs; no effect (the runtime relaxes loop-variable shapes by itself).
    """
    del parallel_iterations, swap_memory, maximum_iterations, shape_invariants
