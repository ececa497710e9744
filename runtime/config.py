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
