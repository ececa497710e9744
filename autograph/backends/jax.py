"""The JAX backend: converted `if`/`while`/`for` on traced values become lax control flow.

With jax installed, `jax.jit(autograph.convert(f))` stages `f`'s data-dependent control flow
with no other set-up: autograph finds this backend through its `autograph.backends` entry
point (or `import autograph.backends.jax` registers it). Importing this module does not import
jax; nothing here runs until a jax tracer reaches converted code.

What becomes what (on tracers: values inside jax.jit, jax.vmap, jax.grad, ...):

- `if` -> `lax.cond`; `while` -> `lax.while_loop`; `for` over a traced array or a `range`
  with a traced bound -> `lax.fori_loop` (a `scan` when the length is static, so jax.grad
  works through it; its reads `xs[i]` and row writes become the scan's xs and ys, see
  jax_scan.py), or a `lax.while_loop` over an index when the loop has a `break`. A
  `for` over a Python `range` with Python bounds stays a Python loop (unrolled while
  tracing), which keeps it reverse-differentiable.
- `print` -> an ordered `jax.debug.callback` (values printed at every run, in order).
- `assert`, a read of a variable that staged control flow assigns on some paths only
  (`check_defined`) and a staged `raise` (`raise_unless`) are checks (jax_checks.py): under
  `autograph.backends.jax.jit` they are values (an error code and the failing check's message
  values, threaded through branches and loops, as `jax.experimental.checkify` does), and the
  user's exception is raised on the host after the call. A failed check stops its loop, and
  later loops and prints do not run. Under plain `jax.jit` a check is a `jax.debug.callback`
  that raises (JaxRuntimeError carrying the message).
- Branch outputs and loop variables follow JAX's promotion rules, weak types included: `s = 0.0`
  may become float16 in a loop; a real dtype change is autograph's usual error.
- A Python list appended to in a staged loop cannot grow (arrays have a fixed size): the error
  says to use `lax.scan`, a preallocated array with `.at[i].set`, or a bound on the loop:
  `autograph.experimental.set_loop_options(maximum_iterations=N)` as the first statement of
  the loop body stops the loop after N iterations and makes the list a StagedList, a buffer
  of N more elements and a traced length; returned, it is exactly its elements.

Concrete jax arrays outside a transformation are not staged: converted code runs them as plain
Python, as JAX itself does.
"""

import builtins
import contextlib
import functools
import sys
import threading

from autograph.backends import jax_cond
from autograph.backends import jax_checks
from autograph.backends import jax_nnx
from autograph.backends.base import Backend
from autograph.backends.jax_checks import jit
from autograph.backends.jax_math import FUNCTIONS as MATH_FUNCTIONS
from autograph.backends.jax_scan import scan_loop
from autograph.backends.jax_lists import ListHooks
from autograph.backends import jax_while_grad
from autograph.backends.jax_values import BUILTINS
from autograph.backends.jax_values import JaxType
from autograph.backends.jax_values import StagedList
from autograph.backends.jax_values import StagedRange
from autograph.backends.jax_values import jax_modules
from autograph.backends.jax_values import leaf_type
from autograph.backends.jax_values import predicate
from autograph.backends.jax_values import promoted
from autograph.backends.jax_values import pure_functions
from autograph.backends.jax_values import staged_range
from autograph.backends.jax_values import zero_index
from autograph.backends.jax_widen import staged_loop_widening
from autograph.backends.jax_widen import loop_widens
from autograph.backends.registry import SHIPPED_OWNED_MODULES
from autograph.backends.registry import register_backend

__all__ = ['BACKEND', 'JaxBackend', 'JaxType', 'StagedList', 'StagedRange', 'jit', 'staged_range']


def _is_float(value):
    """Whether `value` is a Python float or a float array (which Python's range refuses)."""
    return type(value) is float or hasattr(value, 'dtype') and (
        jax_modules().numpy.issubdtype(value.dtype, jax_modules().numpy.floating))


class _Scratch(threading.local):
    depth = 0  # > 0 while autograph stages a discarded trial run (no prints or asserts)


class _UserError(Exception):
    """Carries an exception raised by user code inside a lax branch or loop function."""

    def __init__(self, error):
        super().__init__()
        self.error = error


def _user(fn):
    """Wraps a function of converted code: its exceptions are the user's, not lax's."""
    @functools.wraps(fn)
    def wrapper(*args):
        try:
            return fn(*args)
        except _UserError:
            raise
        except Exception as e:  # pylint: disable=broad-except  # re-raised unchanged below
            raise _UserError(e) from None
    return wrapper


class JaxBackend(ListHooks, Backend):
    """Stages autograph control flow on jax tracers as lax.cond and lax.while_loop."""

    name = 'jax'
    owned_modules = SHIPPED_OWNED_MODULES[__name__]  # ('jax', 'jaxlib', 'flax', ...)

    def __init__(self):
        self._scratch = _Scratch()

    def is_staged(self, value):
        """True for jax tracers (values inside a transformation) and this backend's ranges.

        Args:
            value: any object.

        Returns:
            A Python bool; False for everything while jax is not imported.
        """
        if 'jax' not in sys.modules:
            return False
        if isinstance(value, jax_modules().tracer):
            # A concrete tracer (jax.grad or jax.jvp without jit) runs as plain Python, as in
            # JAX itself: only abstract values need staged control flow.
            return value.to_concrete_value() is None
        return isinstance(value, (StagedRange, StagedList))

    def cond(self, pred, true_fn, false_fn, operands=()):
        """Stages `if` as lax.cond; outputs that differ only by weak types are promoted.

        Args:
            pred: a traced scalar (Python truthiness) or a Python bool.
            true_fn: callable taking the operands, returning a tuple.
            false_fn: callable taking the operands, returning a tuple.
            operands: a tuple of values; the branches capture them (lax.cond lets a branch
                read any tracer of the enclosing trace).

        Returns:
            The tuple of outputs.
        """
        if not self.is_staged(pred):
            return tuple(true_fn(*operands) if pred else false_fn(*operands))
        pred = predicate(pred, 'if')
        threaded = jax_nnx.take()
        if threaded is not None:
            return jax_nnx.threaded_cond(
                threaded, lambda t, f: self._staged_cond(pred, t, f), (true_fn, false_fn),
                operands)
        return self._staged_cond(pred, functools.partial(true_fn, *operands),
                                 functools.partial(false_fn, *operands))

    def _staged_cond(self, pred, true_fn, false_fn):
        """lax.cond of two functions of no arguments, the checks threaded through."""
        frame = jax_checks.current()
        fns = (_user(true_fn), _user(false_fn))
        if frame is None:
            return _unwrap_user_errors(lambda: jax_cond.staged_cond(pred, *fns))
        return _unwrap_user_errors(lambda: jax_checks.threaded_branches(
            frame, fns, lambda t, f: jax_cond.staged_cond(pred, t, f)))

    def while_loop(self, cond_fn, body_fn, loop_vars):
        """Stages a loop as lax.while_loop over the tuple of loop variables.

        Args:
            cond_fn: callable taking the loop variables, returning a scalar.
            body_fn: callable taking the loop variables, returning the next ones.
            loop_vars: a tuple (Python numbers become weakly-typed arrays).

        Returns:
            The final loop variables, as a tuple.

        Under `autograph.backends.jax.jit` the loop is reverse-differentiable (a custom VJP
        with checkpoints, jax_while_grad.py); under plain `jax.jit` it is JAX's
        `lax.while_loop`, which forward mode differentiates and reverse mode does not.
        """
        lax = jax_modules().lax

        def test(carry):
            return predicate(cond_fn(*carry), 'while')

        def body(carry):
            return tuple(body_fn(*carry))

        frame = jax_checks.current()
        if frame is None:
            result = _unwrap_user_errors(lambda: tuple(lax.while_loop(
                _user(test), _user(body), tuple(loop_vars))))
        else:
            result = _unwrap_user_errors(lambda: tuple(jax_checks.threaded_while(
                frame, _user(test), _user(body), tuple(loop_vars))))
        return result

    def staged_loop(self, cond_fn, body_fn, loop_vars, options):
        """Stages a loop; a loop bounded by a Python int `maximum_iterations` is differentiable.

        `lax.while_loop` has no reverse-mode derivative (JAX cannot know how many iterations
        to store). With `set_loop_options(maximum_iterations=N)` (a Python int) the number of
        iterations is at most N, so the loop becomes `lax.scan`s of N steps in all that carry
        a `done` flag: once the test fails (or N steps ran) every later step leaves the loop
        variables unchanged (a `lax.cond` that skips the body). `jax.grad` differentiates
        that. For a large N the steps are grouped in blocks of about sqrt(N) and a finished
        loop skips whole blocks (about 2 sqrt(N) skipped steps, not N). Others: the base class.

        Args:
            cond_fn, body_fn: callables of the loop variables: the test (a scalar), the next
                loop variables. loop_vars: a flat tuple. options: a LoopOptions.

        Returns:
            The final loop variables, as a tuple.
        """
        if jax_nnx.pending():  # NNX Variables to carry: the loop is staged with them
            return jax_nnx.threaded_loop(jax_nnx.take(), lambda t, b, c, names: self.staged_loop(
                t, b, c, options.with_names(names)), (cond_fn, body_fn), loop_vars, options.names)
        # a loop variable that the body widens (int to float) is traced again (jax_widen.py)
        return staged_loop_widening(
            lambda body, init: self._staged_loop(cond_fn, body, init, options), body_fn,
            loop_vars)

    def _staged_loop(self, cond_fn, body_fn, loop_vars, options):
        bound = options.maximum_iterations
        if options.trip_count is not None or type(bound) is not builtins.int:
            return super().staged_loop(cond_fn, body_fn, loop_vars, options)

        def step(carry):  # carry: (done, *loop variables)
            done, state = carry[0], carry[1:]
            go = predicate(self.cond(done, lambda: (False,),
                                     lambda: (predicate(cond_fn(*state), 'while'),), ())[0],
                           'while')
            go = jax_checks.and_ok(go)  # a failed check stops the loop
            state = self.cond(go, lambda: tuple(body_fn(*state)), lambda: state, ())
            return (jax_modules().numpy.logical_not(go),) + tuple(state)

        def steps(carry, count):
            if count == 1:
                return _user(step)(carry)
            return _scan(_user(step), carry, count)

        def skippable(carry, count):
            # the steps are skipped at once when the loop is done
            return self.cond(carry[0], lambda: carry, lambda: steps(carry, count), ())

        if bound <= 0:
            return tuple(loop_vars)
        block = max(1, int(round(bound ** 0.5))) if bound > 64 else bound
        blocks, rest = divmod(bound, block)

        def run():
            carry = (False,) + tuple(loop_vars)
            if blocks == 1:
                carry = steps(carry, block)
            else:
                carry = _scan(lambda c: skippable(c, block), carry, blocks)
            if rest:
                carry = skippable(carry, rest)
            return tuple(carry[1:])

        return _unwrap_user_errors(run)

    def counted_loop(self, count, body_fn, loop_vars):
        """Stages a for loop without break as lax.fori_loop.

        With a Python `count` the loop is a `scan`, which jax.grad differentiates in reverse
        mode (a `for x in xs` over an array of static length, or a staged_range with Python
        bounds); with a traced `count` it is a while_loop.

        Args:
            count: the number of iterations (Python int or traced scalar).
            body_fn: callable taking (index, *state), returning (index + 1, *state).
            loop_vars: (0, *state).

        Returns:
            The final (index, *state).
        """
        def body(index, state):
            return tuple(body_fn(index, *state))[1:]

        if not isinstance(count, builtins.int):
            count = jax_modules().numpy.asarray(count)

        def run(step, carry, threaded):
            if isinstance(count, builtins.int) and count > 0:
                # reads xs[i] and writes ys[i] become the xs and ys of a lax.scan (jax_scan.py)
                final = scan_loop(count, lambda i, c: step(c, i), carry)
                if final is not None:
                    return final
            if threaded is not None and not isinstance(count, builtins.int):
                # under jit (a frame): reverse-differentiable (jax_while_grad.py)
                return jax_while_grad.while_loop(
                    lambda c: c[0] < count, lambda c: (c[0] + 1, step(c[1], c[0])),
                    (zero_index(count), carry))[1]  # fori's index
            return tuple(jax_modules().lax.fori_loop(0, count, lambda i, c: step(c, i), carry))

        frame = jax_checks.current()
        if frame is None:
            state = _unwrap_user_errors(lambda: run(lambda c, i: _user(body)(i, c),
                                                    tuple(loop_vars[1:]), None))
        else:
            state = _unwrap_user_errors(lambda: tuple(jax_checks.threaded_loop(
                frame, lambda c, i: _user(body)(i, c), tuple(loop_vars[1:]), run,
                (zero_index(count),))))
        return (count,) + tuple(state)

    def iterate(self, iterable):
        """Describes a staged for loop over a traced array (its rows), staged range or list.

        Args:
            iterable: a tracer, StagedRange or StagedList.

        Returns:
            (length, getitem), or None for other values.

        Raises:
            TypeError: for a 0-d array, as iterating one does in JAX.
        """
        if isinstance(iterable, (StagedRange, StagedList)):
            return iterable.iteration()
        if not isinstance(iterable, jax_modules().tracer):
            return None
        if iterable.ndim == 0:
            raise TypeError('iteration over a 0-d array')  # JAX's and numpy's message
        return iterable.shape[0], iterable.__getitem__

    def select(self, pred, true_value, false_value):
        """`lax.select` of two computed values of one shape and dtype (else `cond`'s joins).

        Args:
            pred: a traced scalar (or a Python bool).
            true_value: a value.
            false_value: a value.

        Returns:
            The selected value.
        """
        if not self.is_staged(pred):
            return true_value if pred else false_value
        jnp = jax_modules().numpy
        a, b = jnp.asarray(true_value), jnp.asarray(false_value)
        if a.shape != b.shape or a.dtype != b.dtype:
            return super().select(pred, true_value, false_value)
        return jax_modules().lax.select(predicate(pred, 'if'), a, b)

    def logical_not(self, value):
        """Stages `not value` as the negation of its truthiness.

        Args:
            value: a traced scalar.

        Returns:
            A traced bool.
        """
        return jax_modules().numpy.logical_not(predicate(value, 'not'))

    def pure_operand(self, functions):
        """True when every function is a jax.numpy or lax function (or a builtin this backend
        overloads) that only computes a value.

        Args:
            functions: the functions the right operand of `and`/`or` calls.

        Returns:
            A Python bool.
        """
        pure = pure_functions()
        try:
            return all(fn in pure for fn in functions)
        except TypeError:  # unhashable
            return False

    def logical_and(self, a, b):
        """`a and b` of two scalar booleans as `jnp.logical_and` (no `lax.cond`).

        Args:
            a: a traced value.
            b: a value.

        Returns:
            A traced bool, or (for other values) the base class's `cond`.
        """
        if _scalar_bools(a, b):
            return jax_modules().numpy.logical_and(a, b)
        return super().logical_and(a, b)

    def logical_or(self, a, b):  # pylint: disable=missing-param-doc  # as logical_and
        """`a or b` of two scalar booleans as `jnp.logical_or`, as `logical_and` does."""
        if _scalar_bools(a, b):
            return jax_modules().numpy.logical_or(a, b)
        return super().logical_or(a, b)

    def assert_(self, cond, message_fn):
        """Stages `assert` as a check (jax_checks.py): under `autograph.backends.jax.jit` a
        failing one raises AssertionError with the user's message after the call.

        Args:
            cond: a traced scalar.
            message_fn: callable returning the message (a string, a traced value, an f-string
                with traced fields, or None).
        """
        if self._scratch.depth:
            return
        values, make_error = jax_checks.assertion_error(message_fn())
        jax_checks.stage_check(predicate(cond, 'assert'), values, make_error)

    def check_defined(self, defined, error):
        """Stages a check that raises `error` (an UnboundLocalError) when `defined` is false
        at run time (see `assert_`).

        Args:
            defined: a traced bool (or a Python bool).
            error: the exception to raise.
        """
        if self._scratch.depth:
            return
        jax_checks.stage_check(predicate(defined, 'check'), (), lambda: error)

    def raise_unless(self, ok, values, make_error):
        """Stages a `raise` as a check that raises `make_error(*values)` when `ok` is false
        at run time (see `assert_`).

        Args:
            ok: a traced bool (or a Python bool).
            values: traced values the exception's message shows.
            make_error: callable taking their run-time values, returning the exception.
        """
        if self._scratch.depth:
            return
        jax_checks.stage_check(predicate(ok, 'raise'), tuple(values), make_error)

    def print_(self, *args, sep=' ', end='\n'):
        """Stages `print` as jax.debug.print (values printed at every run).

        Args:
            *args: values to print (traced and Python values).
            sep: the separator.
            end: the line end.
        """
        if self._scratch.depth:
            return
        m = jax_modules()
        traced = [a for a in args if isinstance(a, m.tracer)]
        parts = ['{}' if isinstance(a, m.tracer) else str(a).replace('{', '{{').replace(
            '}', '}}') for a in args]
        template = sep.join(parts) + end.replace('{', '{{').replace('}', '}}')

        def write(*values):  # ordered: prints in branches and loops appear in program order
            m.jax.debug.callback(lambda *v: sys.stdout.write(template.format(*v)), *values,
                                 ordered=True)

        ok = jax_checks.ok_so_far()  # after a failed check, nothing more is printed
        if ok is None:
            write(*traced)
        else:
            m.lax.cond(ok, write, lambda *v: None, *traced)

    def call_builtin(self, fn, args, kwargs):
        """Overloads range/len/int/float/min/max/sum/any/all, and Python's numeric builtins
        and `math` functions (jax_math.py), for tracers.

        `abs` and `len` of a tracer need nothing: JAX defines them.

        Args:
            fn: the builtin.
            args: positional arguments (at least one traced).
            kwargs: keyword arguments.

        Returns:
            The traced result.

        Raises:
            NotImplementedError: when Python's builtin should run (no overload).
        """
        if fn is builtins.range and any(_is_float(a) for a in args):
            # Python's TypeError when run: a `raise` staged before it runs first, as in Python
            self.raise_unless(jax_modules().numpy.asarray(False), [], lambda: TypeError(
                "'float' object cannot be interpreted as an integer"))
            return range(0)
        handler = self.list_builtin(fn, args, kwargs) or BUILTINS.get(fn) or MATH_FUNCTIONS.get(fn)
        if handler is None or (kwargs and fn not in (builtins.sum, builtins.sorted)):
            raise NotImplementedError(fn)
        return handler(*args, **kwargs)

    def type_of(self, value):
        """Describes a leaf as a JaxType (dtype, shape, weak type); Python numbers are weak.

        Args:
            value: a branch output or loop variable.

        Returns:
            A JaxType, or the type name for other values.
        """
        return leaf_type(value)

    def compatible_types(self, before, after):
        """JAX's rules: equal dtype and shape, or a weak `before` that promotes to `after`.

        Args:
            before: a JaxType (loop entry, or the if branch).
            after: a JaxType (after one iteration, or the else branch).

        Returns:
            A Python bool.
        """
        if before == after:
            return True
        if not (isinstance(before, JaxType) and isinstance(after, JaxType)):
            return False
        if before.shape != after.shape:
            return False
        if before.dtype == after.dtype:
            return True
        if before.dtype == 'bool' and after.dtype.startswith(('int', 'uint')):
            return True  # a bool is an int (False == 0): the join is the int (jax_widen.py)
        # lax.while_loop converts a weakly-typed initial value to the type the body gives it
        # when JAX's promotion of the two is that type; `cond` here does the same for branches.
        return before.weak and promoted(before, after) == after.dtype

    def loop_widens(self, before, after):
        """An int or bool loop variable that the body makes a float is carried as the float."""
        return loop_widens(before, after)

    def zeros_like(self, value):
        """A zero of `value`'s dtype and shape (placeholders for return values).

        Args:
            value: a traced value or Python number.

        Returns:
            A jax array (or a Python zero for Python numbers).
        """
        m = jax_modules()
        if isinstance(value, (m.tracer, m.array)):
            return m.numpy.zeros(value.shape, value.dtype)
        return type(value)()

    @contextlib.contextmanager
    def scratch(self):
        """A trial run: ops traced inside are unused (jit drops them); no prints or asserts.

        Yields:
            None.
        """
        self._scratch.depth += 1
        try:
            with jax_nnx.restored():  # a trial run leaves NNX Variables as they were
                yield
        finally:
            self._scratch.depth -= 1

    def stateful_scope(self, named_cells):
        """Threads the Flax NNX objects that `named_cells` hold through the statement.

        The values of their array Variables are carried through the lax.cond or loop as
        extra values; each branch or loop step runs with the cells holding new objects made
        in its own trace (`nnx.merge`), as `nnx.cond` does for its operands, and the
        Variables a branch writes get the staged values after the statement (jax_nnx.py).
        Without flax.nnx imported, nothing happens.

        Args:
            named_cells: (name, cell) pairs, see `Backend.stateful_scope`.

        Returns:
            A context manager.
        """
        if 'flax.nnx' not in sys.modules:
            return contextlib.nullcontext()
        return jax_nnx.scope(named_cells)

    def is_state_reference(self, value):
        """True for a Flax NNX Variable or graph node (stateful_scope threads them)."""
        return 'flax.nnx' in sys.modules and jax_nnx.is_object(value)


def _scan(fn, carry, count):
    """`count` steps of `fn(carry) -> carry` as a lax.scan, the checks threaded through."""
    lax = jax_modules().lax

    def run(step, c, threaded=False):
        return lax.scan(lambda c, _: (step(c), None), c, None, length=count)[0]

    frame = jax_checks.current()
    if frame is None:
        return run(fn, carry)
    return jax_checks.threaded_loop(frame, fn, carry, run)


def _scalar_bools(*values):
    m = jax_modules()
    return all(type(v) is builtins.bool or (
        isinstance(v, (m.tracer, m.array)) and v.dtype == m.numpy.bool_ and v.shape == ())
        for v in values)


def _unwrap_user_errors(run):
    try:
        return run()
    except _UserError as e:
        raise e.error.with_traceback(e.error.__traceback__) from None


BACKEND = register_backend(JaxBackend())
StagedList.position = BACKEND.list_index
