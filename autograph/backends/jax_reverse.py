"""JAX's reverse-mode error for a `while` loop autograph staged as lax.while_loop, told in
the user's words: where the loop is and how to write it so that jax.grad works."""
import linecache
import sys

from autograph.errors import StagingError

REVERSE_MODE_MESSAGE = (
    'This loop is staged as lax.while_loop (its condition or number of iterations depends on a '
    'traced value) and its result is differentiated in reverse mode (jax.grad, jax.vjp), '
    'which JAX does not support for lax.while_loop ("Reverse-mode differentiation does not '
    'work for lax.while_loop"). Make the number of iterations static: write a for loop over '
    'range(n) with a Python int n (it stays a Python loop) or over an array (its length is '
    'static), or use lax.fori_loop with static bounds, or lax.scan; or bound the loop: with '
    'autograph.experimental.set_loop_options(maximum_iterations=N) (a Python int) as the first '
    'statement of its body, autograph stages it as a scan of at most N steps, which jax.grad '
    'differentiates. Forward mode (jax.jvp, jax.jacfwd) works as it is.')

_AUTOGRAPH_DIR = __file__.rsplit('/backends/', 1)[0] + '/'
_TRANSPOSE_HOOK = []


def explain_while_transposes():
    """Makes JAX's reverse-mode error for a while_loop that autograph staged name the user's loop.

    `jax.grad(jax.jit(converted))` traces the loop with no sign of differentiation (the jit
    traces first); JAX raises its "Reverse-mode differentiation does not work for
    lax.while_loop" only when it transposes the jitted function, far from the user's code. The
    transpose rule of while_p is wrapped (once per process): for a loop staged by autograph it
    raises a StagingError naming the user's loop (from the loop's source traceback, which JAX
    keeps with the equation) and saying how to write it; any other while_loop gets JAX's error
    unchanged. If JAX's internals differ from what this expects, nothing is wrapped.
    """
    if _TRANSPOSE_HOOK:
        return
    _TRANSPOSE_HOOK.append(True)
    try:
        from jax._src import source_info_util  # pylint: disable=import-outside-toplevel
        from jax._src.interpreters import ad  # pylint: disable=import-outside-toplevel
        from jax._src.lax.control_flow import loops  # pylint: disable=import-outside-toplevel
        original = ad.primitive_transposes[loops.while_p]
    except (ImportError, AttributeError, KeyError):
        return

    def transpose(*args, **params):
        try:
            return original(*args, **params)
        except ValueError as e:
            where = _staging_user_frame(source_info_util.current().traceback)
            if where is None:
                raise
            function, filename, line = where
            text = linecache.getline(filename, line).strip()
            raise StagingError('%s\n  File "%s", line %d, in %s%s' % (
                REVERSE_MODE_MESSAGE, filename, line, function,
                '\n    ' + text if text else '')) from e

    ad.primitive_transposes[loops.while_p] = transpose


def _staging_user_frame(traceback):
    """(function, file, line) of the user code that called autograph's loop operator, or None."""
    try:
        frames = list(traceback.frames)
    except AttributeError:
        return None
    # innermost first: find autograph's operator frames, then the first frame outside them
    seen_autograph = False
    for frame in frames:
        inside = frame.file_name.startswith(_AUTOGRAPH_DIR)
        if inside:
            seen_autograph = True
        elif seen_autograph and '/jax/' not in frame.file_name:
            return frame.function_name, frame.file_name, frame.line_num
    return None


def differentiated(values):
    """Whether some of `values` carry a reverse-mode tangent (jax.grad/vjp of a loop result)."""
    ad = sys.modules.get('jax._src.interpreters.ad')
    pe = sys.modules.get('jax._src.interpreters.partial_eval')
    linearize = getattr(ad, 'LinearizeTracer', None)
    jvp = getattr(ad, 'JVPTracer', None)
    partial = getattr(pe, 'JaxprTracer', None)
    for v in values:
        if linearize is not None and isinstance(v, linearize):
            return True
        # Older JAX (before direct linearize) runs grad as jvp with a partially evaluated
        # tangent; a plain forward-mode jvp has a concrete or traced-to-jaxpr tangent instead.
        if (jvp is not None and partial is not None and isinstance(v, jvp)
                and isinstance(getattr(v, 'tangent', None), partial)):
            return True
    return False
