"""Directives: calls in user code that the converter reads and removes (`set_loop_options`,
`set_list_options`).

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
# The options of set_list_options that the converter passes to `ag__.list_options`.
LIST_OPTIONS = ('maximum_size',)


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
    _check_not_in_converted_code('set_loop_options', 'the first statement of the loop body')


def set_list_options(target, maximum_size=UNSPECIFIED):
    """Sets options of the list that the statement before it assigns (autograph's own).

    Call it as a statement directly after the assignment that makes the list, in a function
    that autograph converts. The options apply to the lists that assignment makes when their
    size is a staged value (`[0] * (n + 1)`, `list(range(1, n + 1))`, a comprehension over a
    staged range), and to the list of that name that later loops of the function append to
    (`values = []` then appends in a staged loop); a list of Python values ignores them:

        memo = [0] * (n + 1)
        autograph.experimental.set_list_options(memo, maximum_size=1001)

    Args:
      target: the variable the assignment before it binds (a name).
      maximum_size: a Python int, the most elements the list will hold. A backend whose
        values have a fixed shape (JAX) makes the list a buffer of that many elements and a
        staged length, and raises when the computation makes it longer (Python would not:
        the bound is the user's promise). Backends whose lists have a run-time length (the
        runtime, PyTorch) ignore it.
    """
    del target, maximum_size
    _check_not_in_converted_code('set_list_options',
                                 'a statement directly after the assignment that makes the list')


def _check_not_in_converted_code(name, where):
    """Raises when a directive runs inside converted code: the converter did not see it.

    The converter removes every directive it recognises, so one that runs from converted code
    was called through a name the converter could not resolve (a local alias, an attribute of
    an object): its options would be silently dropped.
    """
    import sys  # pylint: disable=import-outside-toplevel
    from autograph import errors  # pylint: disable=import-outside-toplevel
    from autograph.impl import error_mapping  # pylint: disable=import-outside-toplevel
    from autograph.pyct import inspect_utils  # pylint: disable=import-outside-toplevel
    frame, _ = inspect_utils.first_user_frame(sys._getframe(2))  # pylint: disable=protected-access
    if frame is None or not error_mapping.is_generated(frame.f_code):
        return
    raise errors.DirectiveError(
        '{name} at {}:{} was not recognised when its function was converted, so its options '
        'would be ignored. Call it by a name that the function reads from its module or '
        'closure (autograph.experimental.{name}, or an imported alias), not through a local '
        'variable or an object attribute, as {where}.'.format(
            frame.f_code.co_filename, frame.f_lineno, name=name, where=where))
