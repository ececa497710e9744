"""Global runtime switches (TensorFlow's `tf.config`): running tf.functions eagerly."""
from runtime import context

# Read by runtime.function on every call; a plain module global keeps the check cheap.
_run_functions_eagerly = False


def run_functions_eagerly(run_eagerly):
    """Makes every `runtime.function` run its Python function eagerly instead of tracing.

    This is a debugging switch, as in TensorFlow: Python side effects (print, list appends)
    then happen on every call, and values can be inspected with `.numpy()`. It affects calls
    made after it is set, in every thread.

    Args:
        run_eagerly: A Python bool. True runs functions eagerly; False restores tracing.

    Raises:
        TypeError: if `run_eagerly` is not a Python bool.
    """
    global _run_functions_eagerly
    if not isinstance(run_eagerly, bool):
        raise TypeError(
            f"run_functions_eagerly expected a Python bool, found "
            f"{type(run_eagerly).__name__}: {run_eagerly!r}. Pass True or False.")
    # While on, it is one entry of the open scopes: the call entries' one test of the cases
    # they leave to the general path sees it.
    if run_eagerly != _run_functions_eagerly:
        if run_eagerly:
            context._open_scopes.append(None)
        else:
            context._open_scopes.pop()
    _run_functions_eagerly = run_eagerly


def functions_run_eagerly():
    """Returns whether `runtime.function`s currently run eagerly.

    Returns:
        A Python bool (the value last passed to `run_functions_eagerly`, default False).
    """
    return _run_functions_eagerly


# The dtypes of a Python number that staged control flow makes a tensor by itself.
_PYTHON_NUMBER_DTYPES = {False: {int: "int32", float: "float64", bool: "bool"},
                         True: {int: "int64", float: "float64", bool: "bool"}}
_x64 = False


def enable_x64(enabled=True):
    """Makes Python numbers that staged control flow carries by themselves 64-bit.

    A loop variable that enters a staged loop as a Python number (`total = 0.0`, `a, b = 0,
    1`), and a staged `if` whose branches all give Python numbers, become tensors of their
    own. By default these are int32 and float32, as in TensorFlow; with x64 enabled they are
    int64 and float64, which Python's ints and floats are closer to (a float32 sum drifts,
    an int32 Fibonacci number wraps at 2**31). `jax_enable_x64` is JAX's switch for the same
    choice. A Python number meeting a tensor adopts that tensor's dtype either way. It
    affects functions traced after it is set, in every thread.

    Args:
        enabled: A Python bool.

    Raises:
        TypeError: if `enabled` is not a Python bool.
    """
    global _x64
    if not isinstance(enabled, bool):
        raise TypeError(f"enable_x64 expected a Python bool, found {type(enabled).__name__}: "
                        f"{enabled!r}. Pass True or False.")
    _x64 = enabled


def x64_enabled():
    """Returns whether `enable_x64(True)` is in effect (default False)."""
    return _x64


def python_number_dtype(kind):
    """The dtype name of a Python number of type `kind` (int, float, bool) that staged control
    flow carries by itself (see `enable_x64`)."""
    return _PYTHON_NUMBER_DTYPES[_x64][kind]
