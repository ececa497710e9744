"""The backend protocol: the one documented base class that a tensor library implements.

A backend makes autograph stage control flow on the values it owns. Subclass `Backend`,
implement the three required methods, override the optional hooks your library supports, and
register an instance: by hand with `autograph.register_backend(backend)`, or for every user
through the `autograph.backends` entry-point group of your distribution's metadata:

    [project.entry-points."autograph.backends"]
    mylib = "mylib.autograph_backend:BACKEND"

Autograph loads those entry points the first time it converts a function. Loading one must be
cheap: a backend for a heavy library should import it lazily (see `autograph.backends.jax`).

Autograph does everything else: it threads the state of branches and loops through `cond` and
`while_loop`, flattens nested state into flat tuples, and checks undefined variables and
loop-variable types. What reaches a backend:

- `cond` and `while_loop` get flat tuples of leaves (possibly empty, possibly holding Python
  numbers and bools, which the backend converts the way it converts Python numbers).
- `cond` gets its operands as `torch.cond(pred, true_fn, false_fn, operands)` does: the staged
  values the branches start from (the state of an `if` statement), passed to each branch as
  arguments. A library that traces each branch as a function of explicit inputs uses them; a
  library that lets branches capture values (runtime, JAX) may simply call
  `true_fn(*operands)`. Branches may still read other staged values from enclosing scopes.
- Every staged loop goes through `staged_loop` with its `LoopOptions` (the user's names of
  the loop variables, the `maximum_iterations` of `set_loop_options`); by default it is a
  `counted_loop` or a `while_loop`.
- A staged `for` loop is a `counted_loop` (by default a `while_loop`) over (index, *state):
  the index starts at Python `0`, the test is `index < length` with (length, getitem) from
  `iterate`. With a `break` it is a `while_loop` whose condition calls `cond`, so a `cond`
  inside a `while_loop` condition must work.
- `range(n)` over a staged `n` goes to `call_builtin(range, ...)`; the backend returns an
  object of its own (a "staged range") that `is_staged` claims and `iterate` accepts.
- Branch outputs and loop variables are compared leaf by leaf with `type_of` and
  `compatible_types`; autograph raises the error (naming the variable, both types and the line).

Every optional hook has a default: either a generic implementation on top of `cond`, or a
clear `UnsupportedByBackendError` saying which construct the backend does not stage.
"""

import contextlib

from autograph.backends.list_hooks import ListHookDefaults
from autograph.errors import UnsupportedByBackendError


class LoopOptions:
    """What autograph knows about a loop it stages, for `Backend.staged_loop`.

    Attributes:
        names: a tuple of str, one per loop variable of `staged_loop`: the user's variable
            name (`x`; `x_0`, `x_1`, ... for the leaves of a nested value), `<target>_index`
            for the index of a `for` loop, `return_value` (and `do_return`, `break`,
            `continue`) for the flags autograph generates.
        maximum_iterations: None, or the bound from `set_loop_options` (a Python int or a
            staged integer scalar).
        trip_count: the exact number of iterations when it is known before the loop runs (a
            `for` loop without `break`: a Python int or staged scalar; with a bound, only when
            both are Python ints, and then the smaller), else None. `cond_fn` tests it too
            (`index < length`), but not the bound.
    """

    __slots__ = ('names', 'maximum_iterations', 'trip_count')

    def __init__(self, names, maximum_iterations=None, trip_count=None):
        self.names = tuple(names)
        self.maximum_iterations = maximum_iterations
        self.trip_count = trip_count

    def __repr__(self):
        return 'LoopOptions(names={!r}, maximum_iterations={!r}, trip_count={!r})'.format(
            self.names, self.maximum_iterations, self.trip_count)

    def with_names(self, names):
        """The same options for a loop whose loop variables are `names`."""
        return LoopOptions(names, self.maximum_iterations, self.trip_count)


class Backend(ListHookDefaults):
    """Base class of autograph backends. Subclass it; see the module docstring.

    Attributes:
        name: a short name for error messages, e.g. 'runtime' or 'jax'.
        owned_modules: top-level module names (e.g. ('jax', 'jaxlib')) whose functions
            autograph never converts: the library's own Python code runs as it is.
        folds_break_flags: whether a staged for loop whose `break` flag no one reads after
            it leaves the flag out of its loop variables: a `break` sets the loop's index
            past the end instead (`select(flag, length, index + 1)`), and the test is
            `index < length` alone. Off by default: the graph then keeps the flag as
            TensorFlow's does (the runtime's executor turns it into a Python `break`).
    """

    name = 'backend'
    owned_modules = ()
    folds_break_flags = False

    def __repr__(self):
        return '<autograph backend {!r}>'.format(self.name)

    def _unsupported(self, construct, hook):
        raise UnsupportedByBackendError(
            'backend {!r} does not support {}: it does not override `{}` of autograph.Backend. '
            'Use a plain Python value there, or implement `{}` in the backend.'.format(
                self.name, construct, hook, hook))

    # -------------------------------------------------------------------------------------
    # Required

    def is_staged(self, value):
        """Tells whether this backend owns `value` (so control flow on it is staged).

        Called often and with every kind of object: keep it a cheap type check. Exact Python
        builtin types (int, list, ...) are never passed.

        Args:
            value: any object.

        Returns:
            A Python bool.
        """
        raise NotImplementedError('{} must implement is_staged'.format(type(self).__name__))

    def cond(self, pred, true_fn, false_fn, operands=()):
        """Stages `if pred: ... else: ...`, as `torch.cond(pred, true_fn, false_fn, operands)`.

        Args:
            pred: a staged scalar boolean (the value `is_staged` claimed), or occasionally a
                Python bool mixed with staged branches.
            true_fn: callable taking the operands (`true_fn(*operands)`), returning a flat
                tuple of leaves.
            false_fn: the same for the else branch; same length and (compatible) types.
            operands: a flat tuple of staged values (possibly empty) that the branches start
                from; each branch computes from its arguments in their place.

        Returns:
            A tuple of the same length: the chosen branch's outputs, staged.
        """
        raise NotImplementedError('{} must implement cond'.format(type(self).__name__))

    def while_loop(self, cond_fn, body_fn, loop_vars):
        """Stages `while cond_fn(*vars): vars = body_fn(*vars)`.

        Args:
            cond_fn: callable taking the loop variables, returning a staged or Python bool.
            body_fn: callable taking the loop variables, returning the next ones (a tuple).
            loop_vars: flat tuple of initial values (may be empty; Python numbers among them
                become staged values of the backend's default dtype).

        Returns:
            The final loop variables, as a tuple.
        """
        raise NotImplementedError('{} must implement while_loop'.format(type(self).__name__))

    # -------------------------------------------------------------------------------------
    # Optional hooks

    def counted_loop(self, count, body_fn, loop_vars):
        """Stages a `for` loop without `break`: `count` iterations of `body_fn`.

        `loop_vars[0]` is the loop index, starting at Python 0, which `body_fn` increments.
        A backend with a counted loop (JAX's `fori_loop`, which is reverse-differentiable for
        a Python `count`) overrides this. The default is `while_loop` testing `index < count`.

        Args:
            count: the number of iterations, a Python int or a staged scalar.
            body_fn: callable taking the loop variables, returning the next ones.
            loop_vars: flat tuple (index, *state).

        Returns:
            The final loop variables, as a tuple.
        """
        return self.while_loop(lambda index, *_: index < count, body_fn, loop_vars)

    def staged_loop(self, cond_fn, body_fn, loop_vars, options):
        """Stages one loop of converted code; every staged `while` and `for` goes through here.

        Override it to use what autograph knows about the loop: the user's names of the loop
        variables (for graphs and messages) and a bound on the iterations (TensorFlow's
        `set_loop_options(maximum_iterations=N)`). The default ignores the names and calls
        `counted_loop` (when the trip count is known), `while_loop`, or, with a bound, a
        `while_loop` over (count, *loop_vars) whose condition is `count < N` and then
        `cond_fn` (through `cond`, so `cond_fn` does not run once the bound is reached).

        Args:
            cond_fn: callable taking the loop variables, returning a staged or Python bool.
            body_fn: callable taking the loop variables, returning the next ones.
            loop_vars: flat tuple of initial values (as for `while_loop`).
            options: a `LoopOptions`.

        Returns:
            The final loop variables, as a tuple. With `maximum_iterations`, the loop stops
            after that many iterations with no error, as TensorFlow's `while_loop` does.
        """
        if options.trip_count is not None:
            return self.counted_loop(options.trip_count, body_fn, loop_vars)
        bound = options.maximum_iterations
        if bound is None:
            return self.while_loop(cond_fn, body_fn, loop_vars)

        def bounded_cond(count, *loop_vars):
            return self.cond(count < bound, lambda *state: (cond_fn(*state),),
                             lambda *state: (False,), loop_vars)[0]

        def bounded_body(count, *loop_vars):
            return (count + 1,) + tuple(body_fn(*loop_vars))

        return tuple(self.while_loop(bounded_cond, bounded_body, (0,) + tuple(loop_vars)))[1:]

    def iterate(self, iterable):
        """Describes a staged `for` loop over `iterable` (a staged value or staged range).

        Args:
            iterable: a value this backend claims.

        Returns:
            (length, getitem): the number of iterations (a Python int or a staged scalar) and
            a function from a staged index to the element; or None when the value cannot be
            iterated (autograph then raises a clear error). The default returns None.
        """
        del iterable
        return None

    def cond_true_only(self, pred, true_fn, false_fn, operands, true_only):
        """`cond`, where no one reads the first `true_only` outputs unless `pred` holds (a
        for loop's variables that are dead after it, in the rest of its body after a
        `break`, which runs under `if not break_:`): the backend may give them the true
        branch's value whichever branch is taken, for example where it runs both branches
        and selects each output. The default is `cond`, which is always right.

        Args:
            pred, true_fn, false_fn, operands: as for `cond`.
            true_only: an int, at least 1.

        Returns:
            The tuple of outputs, as `cond` returns it.
        """
        return self.cond(pred, true_fn, false_fn, operands)

    def select(self, pred, true_value, false_value):
        """`true_value if pred else false_value` of two values already computed (autograph
        uses it where nothing remains to run lazily, e.g. `index < length and go_on` in the
        test of a `for` loop with `break`). The default is `cond(pred, ...)` with no operands.

        Args:
            pred: a staged boolean.
            true_value: a value (staged, or a Python number or bool).
            false_value: a value of the same type.

        Returns:
            The selected value.
        """
        return self.cond(pred, lambda: (true_value,), lambda: (false_value,), ())[0]

    def logical_not(self, value):
        """Stages `not value`. The default is `cond(value, False, True)`.

        Args:
            value: a staged boolean.

        Returns:
            A staged boolean.
        """
        return self.cond(value, lambda: (False,), lambda: (True,), ())[0]

    def pure_operand(self, functions):
        """Whether a right operand of `and`/`or` that calls `functions` and has no other
        effect (the converter checked that) may be evaluated at once.

        `a and b` and `a or b` with a staged `a` then evaluate `b` and combine the two with
        `logical_and`/`logical_or` instead of staging a `cond`. The default says no, for
        every operand: the lazy `cond` stays.

        Args:
            functions: a tuple of the functions the operand calls (possibly empty).

        Returns:
            A Python bool.
        """
        del functions
        return False

    def logical_and(self, a, b):
        """`a and b` of a staged `a` and an evaluated `b` (see `pure_operand`).

        The default is the lazy form's `cond(a, b, a)`; a backend may combine two booleans
        with its elementwise `and` instead.

        Args:
            a: a staged value.
            b: a value.

        Returns:
            What `a and b` gives.
        """
        return self.cond(a, lambda a: (b,), lambda a: (a,), (a,))[0]

    def logical_or(self, a, b):  # pylint: disable=missing-param-doc  # as logical_and
        """`a or b` of a staged `a` and an evaluated `b`: as `logical_and`, the lazy form's
        `cond(a, a, b)` by default."""
        return self.cond(a, lambda a: (a,), lambda a: (b,), (a,))[0]

    def assert_(self, cond, message_fn):
        """Stages `assert cond, message`.

        A failing staged assert must stop the staged computation with the user's message when
        it runs (the runtime raises InvalidArgumentError; the JAX backend uses a checkify
        debug check). The default raises UnsupportedByBackendError.

        Args:
            cond: a staged boolean.
            message_fn: callable of no arguments returning the message (a string, a staged
                value, or None when the assert has no message).

        Returns:
            None, or a backend value standing for the check (autograph returns it from the
            `assert` operator and otherwise ignores it).
        """
        del cond, message_fn
        self._unsupported('assert statements on staged values', 'assert_')

    def print_(self, *args, sep=' ', end='\n'):
        """Stages `print(*args, sep=sep, end=end)` where an argument is staged.

        It should print the values each time the staged computation runs (tf.print,
        jax.debug.print). The default raises UnsupportedByBackendError.

        Args:
            *args: the objects to print (staged and Python values).
            sep: the separator.
            end: the line end.
        """
        del args, sep, end
        self._unsupported('print() of staged values', 'print_')

    def call_builtin(self, fn, args, kwargs):
        """Overloads a Python builtin for staged arguments.

        Called for len, range, abs, int, float, min, max, sum, any, all when a top-level
        argument is staged. `range` must return a staged range (see the module docstring).

        Args:
            fn: the builtin function.
            args: the positional arguments (a tuple).
            kwargs: the keyword arguments (a dict, possibly empty).

        Returns:
            The staged result.

        Raises:
            NotImplementedError: when there is no overload; autograph then calls `fn` itself.
                This is the default.
        """
        raise NotImplementedError(fn)

    def call_method(self, obj, name, args, kwargs):
        """Stages a builtin method called on a staged value in converted code (`t.item()`).

        Converted code calls this for a method implemented in C and bound to a value this
        backend stages, before calling the method itself. The default raises
        NotImplementedError: the method runs as it is.

        Args:
            obj: the staged value the method is bound to.
            name: the method's name.
            args: a tuple of positional arguments.
            kwargs: a dict of keyword arguments.

        Returns:
            The staged result.

        Raises:
            NotImplementedError: when there is no overload. This is the default.
        """
        del obj, args, kwargs
        raise NotImplementedError(name)

    def type_of(self, value):
        """Describes a leaf's type for branch-output and loop-variable checks.

        Also called on Python numbers, and must agree with how the backend converts them
        (e.g. int -> 'int32'). The default returns None for everything: only the structure
        is checked.

        Args:
            value: a leaf of a branch output or loop variable.

        Returns:
            A hashable description, shown in error messages.
        """
        del value
        return None

    def compatible_types(self, before, after):
        """Tells whether a leaf of type `before` may take type `after` in staged code.

        Called with `type_of` descriptions: (loop entry, after one iteration) for loops; for
        conditionals both ways, (if branch, else branch) and (else, if), and one suffices. A
        backend whose library promotes weakly-typed Python numbers (JAX) accepts those pairs
        here. The default is equality.

        Args:
            before: a `type_of` description.
            after: a `type_of` description.

        Returns:
            A Python bool; False makes autograph raise its type-change error.
        """
        return before == after

    def loop_widens(self, before, after):
        """Whether a loop variable of type `before` on entry that the body gives type `after`
        is carried as `after` (an int that the body makes a float: `n /= 4`, as Python's
        variable becomes a float), where `compatible_types` says no. The backend's loop then
        casts the entry value. The default: never.

        Args:
            before: a `type_of` description (loop entry).
            after: a `type_of` description (after one iteration).

        Returns:
            A Python bool.
        """
        del before, after
        return False

    def zeros_like(self, value):
        """Returns a zero of `value`'s dtype and shape (return-value placeholders).

        Together with `scratch`, this lets `return` inside staged branches and loops give a
        placeholder return value on the paths that do not return. Use only the dtype and shape
        of `value`: it may come from `scratch()`. The default raises UnsupportedByBackendError
        (autograph then asks the user to assign the result to a variable).

        Args:
            value: a staged value or Python number.

        Returns:
            A staged zero (or a Python zero for Python numbers).
        """
        del value
        self._unsupported('return inside staged control flow', 'zeros_like')

    def check_defined(self, defined, error):
        """Stages a check that raises `error` when the computation runs with `defined` false.

        Autograph calls it where converted code reads a variable that staged control flow
        assigns on some paths only (one branch of a staged `if`, the body of a staged loop
        that may run zero times): `defined` is the staged flag of those paths, and `error` is
        the UnboundLocalError that plain Python raises there. Like an assert, the check runs
        only if the code around it runs (inside a branch, only when the branch is taken). The
        default raises UnsupportedByBackendError: autograph then reports at trace time that
        the variable must be assigned on every path.

        Args:
            defined: a staged boolean.
            error: the exception instance to raise.

        Returns:
            None.
        """
        del defined, error
        self._unsupported('reading a variable assigned on some staged paths only',
                          'check_defined')

    def raise_unless(self, ok, values, make_error):
        """Stages a check that raises `make_error(*values)` when the computation runs with
        `ok` false.

        Autograph calls it for a `raise` statement in a staged branch: `ok` is false exactly
        when that branch runs, `values` are the staged values the exception's message shows
        (its arguments and f-string fields), and `make_error` takes their run-time values
        (numpy or Python scalars) and returns the exception to raise, with its cause. Like
        `check_defined`, the check runs in program order, after the side effects staged
        before it. The default handles `values == ()` with `check_defined`, and otherwise
        raises UnsupportedByBackendError (autograph then raises the exception while staging).

        Args:
            ok: a staged bool.
            values: a list of staged values.
            make_error: callable taking the run-time values, returning an exception.

        Returns:
            None.
        """
        if values:
            self._unsupported('raise with a message holding staged values', 'raise_unless')
        self.check_defined(ok, make_error())

    def name_outputs(self, values, names):
        """Gives the user's names to the outputs of a staged `if` (for graphs people read).

        Called after `cond` with its flat outputs and a name per output (the variables the
        `if` assigns, as in `LoopOptions.names`). The default does nothing.

        Args:
            values: the tuple that `cond` returned.
            names: a tuple of str, one per value.
        """
        del values, names

    def probe(self):
        """A context for evaluating a `while` condition before it is known to be staged.

        Autograph evaluates a `while` loop's condition once to decide between a Python loop
        and a staged one; when it is staged, that value is unused (the condition is staged
        again inside the loop). A backend that records every operation (a graph) returns a
        context whose operations are discarded, as TensorFlow evaluates it in a temporary
        graph; values computed there must not be used outside it. Only the Python truth or
        the staged-ness of the result is read. The default returns None: nothing to discard
        (a tracer such as JAX's drops unused operations by itself).

        Returns:
            A context manager, or None.
        """
        return None

    def stateful_scope(self, named_cells):
        """Returns a context manager entered while autograph stages one staged statement.

        Args:
            named_cells: (name, cell) pairs: the closure cells of the statement's code (its
                branch, test and body functions), each once, e.g. ('self', <cell: module>).

        A backend whose values keep state in Python objects that its tracing lets no branch
        or loop body write (Flax NNX Variables, for JAX) threads that state through the
        statement's `cond` or `staged_loop`; it may make a cell hold another object while
        it stages a branch or loop body (the cell's documented, writable `cell_contents`),
        and must give the cell its own object back. The default does nothing.

        Returns:
            A context manager.
        """
        del named_cells
        return contextlib.nullcontext()

    def is_state_reference(self, value):
        """True for an object that `stateful_scope` threads and that the user's code holds in
        a variable a staged `if` assigns (`count = model.count` before `count[...] += 1` in a
        branch): the `if` passes it to `cond` among the operands, so that each branch starts
        from the object the backend gives it there. The default: False.

        Args:
            value: any object that is not a Python builtin.

        Returns:
            A Python bool.
        """
        del value
        return False

    def scratch(self):
        """Returns a context manager whose staged operations are discarded (trial runs).

        Autograph stages a branch or loop body once inside it to learn the types of return
        values. The default raises UnsupportedByBackendError (see `zeros_like`).

        Returns:
            A context manager.
        """
        self._unsupported('return inside staged control flow', 'scratch')
