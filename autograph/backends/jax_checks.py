"""Staged checks of the JAX backend (assert, definedness, raise), carried as values.

Under `autograph.backends.jax.jit` a failing check does not stop the computation from inside
(a raising callback does that on CPU only: on GPU its error is asynchronous and the ordered
effect token carries it into every later call). As `jax.experimental.checkify` does, each
check instead updates a value: `code`, 0 while every check passed, else the id of the first
one that failed, and the values its message shows (`payloads`). They are extra outputs of the
jitted function, and `jit` raises the user's exception on the host after the call, with a
traceback line at the check's own file and line.

A `Frame` holds code and payloads for one trace: the jitted function's, and one for each
branch and loop body that the backend stages. Branch and loop functions take them in and give
them back (`branch_state`, `Loop`), so that a failing check in a loop stops the loop, later
loops are skipped and later prints are not printed, as Python stops at the failing check.
A check staged in a trace with no frame (plain `jax.jit(convert(f))`, or user code under
`jax.vmap` or `lax.scan` inside the function) reports through a `jax.debug.callback` that
raises, under a `lax.cond` so that it runs only when the check failed: plain `jax.jit` then
raises `JaxRuntimeError` carrying the user's message.
"""

import functools
import sys
import threading
import types

from autograph.backends import jax_while_grad
from autograph.backends.jax_values import jax_modules
from autograph.operators.exceptions import StagedMessage
from autograph.operators.exceptions import format_field
from autograph.operators.exceptions import refuse_staged_text
from autograph.impl import traceback_filter
from autograph.pyct import inspect_utils


class Registry:
    """The checks of one trace of a jitted function: id -> (make_error, where)."""

    def __init__(self):
        self.checks = {}
        self.next_id = 1  # ids run from 1; 0 is "no check failed"
        self.high = 1  # the next id never handed out (rewound loop traces reuse theirs)

    def add(self, make_error, where):
        check_id = self.next_id
        self.next_id += 1
        self.high = max(self.high, self.next_id)
        self.checks[check_id] = (make_error, where)
        return check_id

    def error(self, code, payloads):
        """The exception of check `code`, built from its payload values."""
        make_error, where = self.checks[code]
        error = make_error(*payloads.get(code, ()))
        return error, where


class Frame:
    """The check state of one trace: code (None while no check was staged) and payloads."""

    def __init__(self, registry, code=None, payloads=None):
        self.registry = registry
        self.trace = trace_state()  # the trace whose values code and payloads are
        self.code = code  # None, or an int32 scalar: 0, or the id of the first failed check
        self.payloads = dict(payloads or {})  # check id -> tuple of the message's values

    def fail_unless(self, ok, check_id, values):
        """Records check `check_id`: fails when `ok` is false and no check failed before."""
        jnp = jax_modules().numpy
        failed = jnp.logical_not(ok)
        if self.code is not None:
            failed = jnp.logical_and(failed, self.code == 0)
        self.code = jnp.where(failed, jnp.int32(check_id), self.code_or_zero())
        old = self.payloads.get(check_id)
        values = tuple(_strong(v) for v in values)
        self.payloads[check_id] = values if old is None else tuple(
            jnp.where(failed, v, o) for v, o in zip(values, old))

    def code_or_zero(self):
        return jax_modules().numpy.int32(0) if self.code is None else self.code

    def ok_so_far(self):
        """A traced bool, true while no check failed; None while none was staged."""
        return None if self.code is None else self.code == 0

    def state(self):
        return self.code, dict(self.payloads)


class _Frames(threading.local):
    def __init__(self):
        super().__init__()
        self.stack = []  # innermost last


_FRAMES = _Frames()


def trace_state():
    """The current trace, comparable with == (jax.extend's opaque trace state; jax.core's
    before jax.extend had it, as in jax 0.6, which Python 3.10 gets)."""
    from jax.extend import core  # pylint: disable=import-outside-toplevel
    if not hasattr(core, 'get_opaque_trace_state'):
        from jax import core  # pylint: disable=import-outside-toplevel
    return core.get_opaque_trace_state()


def current():
    """The frame of the current trace, or None (plain jax.jit, or a trace the user made)."""
    stack = _FRAMES.stack
    if stack and stack[-1].trace == trace_state():
        return stack[-1]
    return None


class pushed:  # pylint: disable=invalid-name  # used as a context manager, like a function
    """Makes `frame` the current frame inside the block."""

    def __init__(self, frame):
        self.frame = frame

    def __enter__(self):
        _FRAMES.stack.append(self.frame)
        return self.frame

    def __exit__(self, *exc):
        _FRAMES.stack.pop()


def _strong(value):
    jnp = jax_modules().numpy
    value = jnp.asarray(value)
    return jnp.asarray(value, dtype=value.dtype)


def user_location():
    """(file, line, function) of the user code that staged the check, or None."""
    frame, _ = inspect_utils.first_user_frame(sys._getframe(2))
    if frame is None:
        return None
    return frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name


def stage_check(ok, values, make_error):
    """Stages a check that raises `make_error(*run-time values)` when `ok` is false.

    Args:
        ok: a traced scalar bool.
        values: traced values the exception's message shows.
        make_error: callable taking their run-time values, returning the exception.
    """
    where = user_location()
    frame = current()
    if frame is None:
        registry = Registry()
        check_id = registry.add(make_error, where)
        jnp = jax_modules().numpy
        code = jnp.where(ok, jnp.int32(0), jnp.int32(check_id))
        report_by_callback(registry, code, {check_id: tuple(values)})
        return
    frame.fail_unless(ok, frame.registry.add(make_error, where), values)


def assertion_error(message):
    """(traced values, make_error) of an assert's message: the AssertionError Python raises,
    built from the values' run-time values."""
    m = jax_modules()
    if isinstance(message, m.tracer):
        return (message,), lambda value: AssertionError(str(value))
    if isinstance(message, StagedMessage):
        pieces = message.pieces
        values = tuple(p[0] for p in pieces
                       if not isinstance(p, str) and isinstance(p[0], m.tracer))

        def make_error(*run):
            run = iter(run)
            return AssertionError(''.join(
                p if isinstance(p, str) else format_field(
                    next(run) if isinstance(p[0], m.tracer) else p[0], p[1], p[2])
                for p in pieces))
        return values, make_error
    return (), lambda: AssertionError(*(() if message is None else (message,)))


def report_by_callback(registry, code, payloads):
    """Raises the failed check's error from a `jax.debug.callback`, called only when a check
    failed. Unordered: an ordered callback threads JAX's effect token through every loop that
    holds a check, and a check in a loop then costs a host round trip per iteration."""
    m = jax_modules()
    callback = functools.partial(_raise_reported, registry)

    def report(code, payloads):
        m.jax.debug.callback(callback, code, payloads, ordered=True)

    m.lax.cond(m.numpy.any(code != 0), report, lambda code, payloads: None, code, payloads)


def _raise_reported(registry, code, payloads):
    import numpy  # pylint: disable=import-outside-toplevel
    code = numpy.asarray(code)
    if not code.any():
        return
    index = tuple(numpy.argwhere(code)[0])  # the first failing element under jax.vmap
    error, _ = registry.error(int(code[index]), {
        k: tuple(numpy.asarray(v)[index] if numpy.ndim(v) >= len(index) and index else v
                 for v in vals) for k, vals in payloads.items()})
    raise error


def merge(registry, code, payloads):
    """Adds a finished computation's check results (an inner jit's) to the current frame, or
    reports them by callback when no frame is current."""
    frame = current()
    if frame is None:
        report_by_callback(registry, code, payloads)
        return
    jnp = jax_modules().numpy
    base = frame.registry.next_id - 1
    for check_id in sorted(registry.checks):
        frame.registry.add(*registry.checks[check_id])
    code = jnp.where(code == 0, 0, code + base).astype(jnp.int32)
    if frame.code is not None:
        code = jnp.where(frame.code == 0, code, frame.code)
    frame.code = code
    frame.payloads.update((k + base, v) for k, v in payloads.items())


def raise_at(error, where):
    """Raises `error` from a frame at the check's own file and line (the user's code)."""
    if where is None:
        raise error
    filename, line, function = where
    code = compile('\n' * (line - 1) + 'raise __ag_error__', filename, 'exec')
    code = code.replace(co_name=function) if hasattr(code, 'replace') else code
    try:
        exec(code, {'__ag_error__': error})  # pylint: disable=exec-used  # our own one line
    except BaseException as e:  # pylint: disable=broad-except  # re-raised with its traceback
        tb = e.__traceback__.tb_next  # drop this function's frame: start at the user's line
        raise e.with_traceback(tb if isinstance(tb, types.TracebackType) else None) from (
            error.__cause__ if error.__suppress_context__ else None)


def in_frame(fn, registry, state):
    """fn run in a new frame that starts at `state`: returns (fn's result, final state)."""
    def run(*args):
        with pushed(Frame(registry, *state)) as frame:
            result = fn(*args)
        return result, frame.state()
    return run


def _branch(fn, registry, state):
    """A branch (a function of no arguments returning a tuple) that also returns its state."""
    def run():
        outs, final = in_frame(fn, registry, state)()
        return tuple(outs) + (final,)
    return run


def _zeros(avals):
    jnp = jax_modules().numpy
    return tuple(jnp.zeros(a.shape, a.dtype) for a in avals)


def _state_types(closed, tree):
    """The (code, payloads) of a traced function's last output, with avals for values."""
    return jax_modules().jax.tree_util.tree_unflatten(tree, closed.out_avals)[-1]


def threaded_branches(frame, fns, run):
    """`run(*branch functions)` stages a conditional; `fns` are its branches, functions of no
    arguments returning tuples. The frame's state goes through the branches: a check in a
    branch fails only when that branch runs.

    Returns:
        The conditional's outputs, without the state (the frame holds the new one).
    """
    from autograph.backends import jax_cond  # pylint: disable=import-outside-toplevel
    registry = frame.registry
    start = registry.next_id
    traced = [jax_cond.traced(_branch(fn, registry, frame.state())) for fn in fns]
    if registry.next_id == start:  # no check in any branch: no state to carry
        return run(*[_dropping_state(jax_cond.replay(b)) for b in traced])
    slots = {}
    for closed, tree in traced:
        slots.update(_state_types(closed, tree)[1])
    outs = run(*[_padded(jax_cond.replay(b), slots) for b in traced])
    frame.code, frame.payloads = outs[-1][0], dict(outs[-1][1])
    return tuple(outs[:-1])


def _dropping_state(fn):
    return lambda: tuple(fn())[:-1]


def _padded(fn, slots):
    """fn, whose last output (code, payloads) gets a code and a value for every slot."""
    def padded(*args):
        outs = tuple(fn(*args))
        code, payloads = outs[-1]
        code = jax_modules().numpy.int32(0) if code is None else code
        payloads = {k: payloads[k] if k in payloads else _zeros(avals)
                    for k, avals in sorted(slots.items())}
        return outs[:-1] + ((code, payloads),)
    return padded


def ok_so_far():
    """A traced bool, true while no check of the current frame failed; None if none can."""
    frame = current()
    return None if frame is None else frame.ok_so_far()


def and_ok(value):
    """`value and no check failed so far` (value itself while no check was staged)."""
    ok = ok_so_far()
    return value if ok is None else jax_modules().numpy.logical_and(value, ok)


def framed(fn, frame):
    """fn run in a frame that starts at `frame`'s state (a loop test or body with no check)."""
    def run(*args):
        with pushed(Frame(frame.registry, *frame.state())):
            return fn(*args)
    return run


def threaded_while(frame, test, body, init):
    """lax.while_loop(test, body, init) with the frame's state threaded through: a check
    that fails in the test or the body stops the loop. The loop is reverse-differentiable
    (jax_while_grad.py)."""
    jnp = jax_modules().numpy
    go = test(init)  # stages the test's checks in this frame: they fail before the loop
    outer_ok = frame.ok_so_far()

    def iteration(carry):
        state = body(carry[1])
        return and_ok(test(state)), state

    def run(step, carry, threaded):
        if threaded:
            return jax_while_grad.while_loop(lambda c: c[0][0], step, carry)
        # no check in the loop: the loop a JAX user writes, skipped after a failed check
        cond = framed(test, frame)
        if outer_ok is not None:
            cond = lambda v: jnp.logical_and(framed(test, frame)(v), outer_ok)  # noqa: E731
        return (None, jax_while_grad.while_loop(cond, framed(body, frame), carry[1]))

    if outer_ok is not None:
        go = jnp.logical_and(go, outer_ok)
    return threaded_loop(frame, iteration, (go, init), run)[1]


def threaded_loop(frame, fn, carry, run, xs=()):
    """Stages a loop whose iteration is `fn(carry, *xs) -> carry`, threading the frame's
    state through it (one more trace of the iteration finds the checks it stages).

    Args:
        frame: the current frame.
        fn: one iteration.
        carry: the loop's initial carry (a pytree).
        run: `run(step, carry, threaded)` stages the lax loop of `step(carry, *xs) -> carry`
            and returns the final carry; `threaded` says whether the carry holds the state
            (as `(fn's carry, state)`).
        xs: example values of the iteration's other arguments (the loop index), for tracing.

    Returns:
        fn's final carry. Without a check in the loop the carry holds no state, but the
        iteration runs in a frame (prints after an earlier failure are skipped).
    """
    from autograph.backends.jax_values import trace_to_jaxpr  # pylint: disable=import-outside-toplevel
    registry = frame.registry
    start = registry.next_id
    outer = frame.state()
    closed, tree = trace_to_jaxpr(lambda c, s, *x: in_frame(fn, registry, s)(c, *x), carry,
                                  outer, *xs)
    end = registry.next_id
    if end == start:
        def plain(c, *xs):
            with pushed(Frame(registry, *outer)):
                return fn(c, *xs)
        return run(plain, carry, False)
    slots = dict(outer[1])
    slots = {k: tuple(jax_modules().jax.typeof(v) for v in vals) for k, vals in slots.items()}
    slots.update(_state_types(closed, tree)[1])
    state = (frame.code_or_zero(), {k: frame.payloads[k] if k in frame.payloads
                                    else _zeros(avals) for k, avals in sorted(slots.items())})

    def step(aug, *xs):
        registry.next_id = start  # each trace stages the same checks under the same ids
        outs = in_frame(fn, registry, aug[1])(aug[0], *xs)
        registry.next_id = end
        return outs[0], outs[1]

    final, (frame.code, payloads) = run(step, (carry, state), True)
    frame.payloads = dict(payloads)
    return final


def jit(fn=None, **jit_kwargs):
    """`jax.jit(autograph.convert(fn), **jit_kwargs)`, raising failed staged checks as Python
    raises them.

    Usable as `@jit`, `@jit(static_argnums=...)` or `jit(fn, ...)`; takes jax.jit's arguments.
    A staged `assert` that fails raises AssertionError with the user's message, a `raise` in
    a staged branch raises the user's exception, and a read of a variable that no path that
    ran assigned raises UnboundLocalError, at the call that fails, with the check's file and
    line as the last line of the traceback. Later calls are unaffected. Errors leave it
    without autograph's frames, as every entry point's do (`traceback_filter`).

    Args:
        fn: the function to convert and jit.
        **jit_kwargs: passed to jax.jit.

    Returns:
        The jitted converted function.
    """
    if fn is None:
        return functools.partial(jit, **jit_kwargs)
    from autograph.impl import api  # pylint: disable=import-outside-toplevel
    converted = api.convert(fn)
    if not _REPORT_REGISTERED:
        _REPORT_REGISTERED.append(_register_report())

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        with pushed(Frame(Registry())) as frame:
            out = converted(*args, **kwargs)
        refuse_staged_text(jax_modules().jax.tree_util.tree_leaves(out), fn)
        return out, Report(frame.registry, frame.code_or_zero(), frame.payloads)

    jitted = jax_modules().jax.jit(checked, **jit_kwargs)

    @functools.wraps(fn)
    @traceback_filter.boundary
    def call(*args, **kwargs):
        out, report = jitted(*args, **kwargs)
        report.raise_if_failed()
        return out

    call.jitted = jitted
    return call


class Report:
    """The outputs of a jitted function's checks: code and payloads, and the registry that
    names the checks (static: the jitted function's output tree keeps it)."""

    def __init__(self, registry, code, payloads):
        self.registry, self.code, self.payloads = registry, code, payloads

    def raise_if_failed(self):
        """Raises the failed check's error on the host; inside another trace (jax.grad,
        jax.vmap, an enclosing jit), passes the results on to it (`merge`)."""
        m = jax_modules()
        code = self.code
        if isinstance(code, m.tracer):
            concrete = code.to_concrete_value()
            if concrete is None:
                merge(self.registry, code, self.payloads)
                return
            code = concrete
        import numpy  # pylint: disable=import-outside-toplevel
        code = int(numpy.asarray(code))
        if code:
            payloads = {k: tuple(_concrete(v) for v in vals)
                        for k, vals in self.payloads.items()}
            raise_at(*self.registry.error(code, payloads))


def _concrete(value):
    m = jax_modules()
    if isinstance(value, m.tracer):
        return value.to_concrete_value()
    return value


_REPORT_REGISTERED = []


def _register_report():
    return jax_modules().jax.tree_util.register_pytree_node(
        Report, lambda r: ((r.code, r.payloads), r.registry),
        lambda registry, children: Report(registry, *children))
