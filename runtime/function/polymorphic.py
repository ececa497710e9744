"""tf.function: `Function`, the per-signature cache of traced graphs (ConcreteFunctions)."""
import collections
import functools
import threading
import types
import weakref

import autograph
from autograph.impl import collector
from autograph.impl import traceback_filter
from runtime import config as _config
from runtime import context
from runtime.context import _open_scopes
from runtime.function import calls as function_calls
from runtime.function import keys
from runtime.function.calls import MISS as _MISS
from runtime.function.calls import PRIMITIVES as _PRIMITIVES
from runtime.function import options as function_options
from runtime.function import signature as signatures
from runtime.function.concrete import EXECUTORS
from runtime.function.concrete import ConcreteFunction
from runtime.tensor import EagerTensor
from runtime.tensor import Tensor
from runtime.tensor import TensorSpec
from runtime.config import functions_run_eagerly  # noqa: F401 - re-exported for tf.config
from runtime.config import run_functions_eagerly  # noqa: F401 - re-exported for tf.config
from runtime.function import tracer
from runtime.function import tracing as function_tracing
from runtime.function.tracer import FunctionRecursionError
from runtime.function.tracer import RetracingWarning
from runtime.function import variable_lifting
from runtime import variables
from runtime.variables import Variable
from runtime.function import gradients as function_gradients

__all__ = ["function", "Function", "ConcreteFunction", "RetracingWarning",
           "FunctionRecursionError", "run_functions_eagerly", "functions_run_eagerly"]

# A Function keeps at most this many traces: tracing one more drops the least recently used
# (traced or looked up by a call that was not served by the fast paths), as tf.function's
# and jax.jit's caches are bounded; the retracing warning is unchanged.
MAX_TRACES = 256
# The all-tensor fast-path table is cleared when it grows past this many entries.
_FAST_CACHE_LIMIT = 1024
# A Function's own class (see `Function._install`) is made anew after this many entries:
# each change of a class's `__call__` uses up one of its type versions, and CPython 3.13 stops
# caching the attribute lookups of a class past 1000 of them.
_ENTRY_CHANGES = 256

def function(func=None, *, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_implements=None,
             experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None,
             experimental_follow_type_hints=None, executor="compiled"):
    """Makes a Python function run as a traced, cached graph (tf.function).

    Usable as `@function`, `@function(...)` or `function(fn, ...)`, on plain functions and on
    methods (each instance gets its own trace cache, and is held weakly).

    Args:
        func: The Python function, or None to return a decorator.
        input_signature: Optional sequence of (nested) TensorSpecs, one per positional
            argument. The function is then traced once, for these specs (None dimensions are
            wildcards), and calls with incompatible inputs raise ValueError.
        autograph: Convert Python control flow on tensors (if/while/for, ...) to graph
            control flow with `autograph.convert` before tracing (default True).
        reduce_retracing: When a call's tensor shapes match no trace, trace once for
            generalised shapes (differing dimensions become None) instead of once per shape.
        jit_compile: TensorFlow's other arguments (also `experimental_implements`,
            `experimental_autograph_options`, `experimental_attributes`,
            `experimental_relax_shapes`, `experimental_compile` and
            `experimental_follow_type_hints`), with TensorFlow's meaning or refused with a
            reason (see runtime/function/options.py).
        executor: How concrete functions run their graph: 'compiled' (default; Python code
            generated from the graph by `runtime.executor.compile`) or 'interpreter' (the
            reference node-by-node interpreter, `runtime.executor.interpret`). Both give the
            same results; the interpreter exists for testing and debugging.

    Returns:
        A Function, or a decorator returning one when `func` is None.

    Raises:
        ValueError: for an unknown `executor`.
        TypeError: if `input_signature` holds something other than TensorSpecs.
    """
    executor, reduce_retracing = function_options.resolve(executor, reduce_retracing, dict(
        jit_compile=jit_compile, experimental_compile=experimental_compile,
        experimental_relax_shapes=experimental_relax_shapes,
        experimental_autograph_options=experimental_autograph_options,
        experimental_implements=experimental_implements,
        experimental_attributes=experimental_attributes))

    def decorate(fn):
        traced = Function(fn, input_signature=input_signature, autograph=autograph,
                          reduce_retracing=reduce_retracing, executor=executor)
        if experimental_follow_type_hints:
            traced._follow_type_hints_()
        return traced

    if func is None:
        return decorate
    return decorate(func)


class Function(tracer.Tracer):
    """A Python function plus a cache of its traces (see `function`)."""

    def __init__(self, python_function, input_signature=None, autograph=True,
                 reduce_retracing=False, executor="compiled", _instance=None):
        if "_entry_of" in type(self).__dict__:  # type(f)(...): not the class of f's entry
            self.__class__ = type(self).__base__
        if executor not in EXECUTORS:
            raise ValueError(f"tf.function expected executor='compiled', 'interpreter' or "
                             f"'xla', found {executor!r}.")
        if isinstance(python_function, Function):
            python_function = python_function._fn
        if not callable(python_function):
            raise TypeError(f"tf.function expected a callable, found "
                            f"{type(python_function).__name__}: {python_function!r}.")
        self._fn = python_function  # the plain (unbound) Python function
        self._instance = _instance  # weak (or strong) reference to the bound instance, or None
        self._autograph = autograph
        self._reduce_retracing = reduce_retracing
        self._executor = executor
        self._input_signature = signatures.check_input_signature(input_signature)
        functools.update_wrapper(self, python_function, updated=())
        self._name = getattr(python_function, "__name__", type(python_function).__name__)
        self._arg_spec = signatures.ArgSpec(python_function, self._name,
                                            drop_first=_instance is not None)
        self._follow_type_hints = False  # experimental_follow_type_hints (_follow_type_hints_)
        # parameters annotated tf.Tensor when following type hints, else None
        self._hinted = None
        # full cache key -> ConcreteFunction, least recently used first (see MAX_TRACES)
        self._cache = collections.OrderedDict()
        self._fast = function_calls.SignatureTable()  # positional call signatures -> concrete
        self._signature_concrete = None  # the single trace when input_signature is given
        self._trace_count = 0
        self._last_leaves = None  # leaves of the latest trace, for retrace explanations
        self._initialized = False  # True once the first trace (variable creation) happened
        self._active_keys = []  # keys of traces in progress (recursion detection)
        self._converted = None  # the autograph-converted function, made at first trace
        self._bound = {}  # id(instance) -> (weakref, bound Function), for methods
        self._lock = threading.RLock()
        # shared by every Function of this Python function (a new Function in a loop warns)
        # (set here, as the last attribute: the instance dict stays a key-sharing one, which
        # an attribute added after __init__ would end)
        self._detector = function_tracing.detector_for(python_function)

    def _follow_type_hints_(self):
        """Follows type hints (experimental_follow_type_hints=True): arguments of parameters
        annotated tf.Tensor become tensors before the cache lookup."""
        self._follow_type_hints = True
        self._hinted = function_options.tensor_hinted(self._fn, self._arg_spec) or None

    # -- public surface -------------------------------------------------------------------

    @property
    def python_function(self):
        """The wrapped Python function (a bound method for a Function bound to an instance)."""
        if self._instance is not None:
            return types.MethodType(self._fn, self._get_instance())
        return self._fn

    # autograph.convert and autograph.to_code convert the Python function, not __call__.
    __ag_python_function__ = python_function

    @property
    def input_signature(self):
        """The input_signature given at construction, or None."""
        return self._input_signature

    def experimental_get_tracing_count(self):
        """Returns how many times the Python function has been traced.

        Returns:
            An int. A first call that creates Variables counts twice, as in TensorFlow: the
            first trace creates the variables (their initial values, which may come from ops
            such as random initializers or the call's inputs, are computed from that trace
            on the call's arguments), and the function is traced again, with the variables
            existing, to get the graph that runs; that second trace also checks that later
            traces create no variables (creating one raises ValueError).
        """
        return self._trace_count

    def pretty_printed_concrete_signatures(self):
        """Returns the signatures of all traces, in trace order, separated by blank lines.

        Returns:
            A string.
        """
        return "\n\n".join(cf.pretty_printed_signature() for cf in self._concretes())

    def get_concrete_function(self, *args, **kwargs):
        """Returns the trace for these arguments, tracing if needed (nothing is executed).

        Args:
            *args: Arguments as for a call; TensorSpecs stand for tensors. With an
                input_signature and no arguments, the signature's trace is returned.
            **kwargs: Keyword arguments, likewise.

        Returns:
            A ConcreteFunction.

        Raises:
            ValueError: if the arguments do not match the input_signature.
        """
        try:
            with self._lock:
                if self._input_signature is not None and not args and not kwargs:
                    return self._trace_signature()
                concrete, _ = self._lookup(args, kwargs, feed=False)
                return concrete
        except Exception as error:
            traceback_filter.filter_exception(error)
            raise

    def __get__(self, instance, owner=None):
        if instance is None or self._instance is not None:
            return self
        entry = self._bound.get(id(instance))
        if entry is not None and entry[0]() is instance:
            return entry[1]
        self_ref = weakref.ref(self)
        key = id(instance)

        def forget(_):
            owner_fn = self_ref()
            if owner_fn is not None:
                owner_fn._bound.pop(key, None)

        try:
            ref = weakref.ref(instance, forget)
        except TypeError:
            ref = lambda: instance  # noqa: E731 - not weakly referenceable: held strongly
        bound = Function(self._fn, self._input_signature, self._autograph,
                         self._reduce_retracing, self._executor, _instance=ref)
        if self._follow_type_hints:
            bound._follow_type_hints_()
        self._bound[key] = (ref, bound)
        return bound

    def __repr__(self):
        return f"<runtime.Function {self._name} at 0x{id(self):x}>"

    # -- calling --------------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        """Runs the function: reuses the trace matching the arguments, or traces a new one.

        This is the general path. A steady call signature gets a function generated for it
        (`function_calls.entry`), which becomes the `__call__` of a class of this instance
        alone (see `_install`).

        Args:
            *args: Positional arguments of the Python function.
            **kwargs: Keyword arguments.

        Returns:
            The Python function's result, with eager tensors for its tensors.

        Raises:
            ValueError: if the arguments do not match the input_signature, or a Variable is
                created on a call after the first.
            TypeError: if an argument is a symbolic tensor leaked from another trace.
            FunctionRecursionError: if the function calls itself with the same trace key.
        """
        try:  # (the generated entries filter the same way)
            return self._call_general(args, kwargs)
        except Exception as error:
            traceback_filter.filter_exception(error)
            raise

    def _call_general(self, args, kwargs):
        """Every call that the generated entry does not run."""
        if _config._run_functions_eagerly:
            return self.python_function(*args, **kwargs)
        if not context.executing_eagerly():
            return self._call_inline(args, kwargs)
        if not kwargs and not context._state.tapes:
            result = self._call_by_table(args)
            if result is not _MISS:
                return result
        return self._call_traced(args, kwargs)

    def _call_by_table(self, args):
        """Runs a positional call of an earlier signature that the generated entry missed."""
        key = function_calls.table_key(args)
        concrete = None if key is None else self._fast.get(key)
        if concrete is None:
            return _MISS
        self._hit(key, concrete, args, {}, None)
        self._detector.untraced += 1  # called_without_tracing(), inlined
        return concrete._call_values([arg._value if type(arg) is EagerTensor else arg
                                      for arg in args if type(arg) not in _PRIMITIVES])

    def _hit(self, key, concrete, args, kwargs, order):
        """Notes a call of a table signature; the same twice in a row gets its entry.

        (Not while a scope is open in another thread, or an init_scope in this one: the entry
        would refuse the call.)
        """
        if key == self._fast.last_hit and not _open_scopes:
            sources = list(args) + list(kwargs.values())
            specs = [(arg._value.dtype, arg._value.shape) if type(arg) is EagerTensor
                     else function_calls.PythonSpec(arg) if type(arg) in _PRIMITIVES
                     else function_calls.ArraySpec(arg.dtype, arg.shape) for arg in sources]
            self._install(function_calls.entry(specs, concrete, weakref.ref(self),
                                               self._detector, list(kwargs), order))
        self._fast.last_hit = key

    def _install(self, entry):
        """Makes `entry` (a function of the call's arguments) what calling this object runs.

        It becomes the `__call__` (a staticmethod) of a subclass made for this instance
        alone: CPython then calls it straight from the call slot, where a `__call__` that
        reads the entry from the instance (a property, or a method calling it) costs 25-60 ns
        more per call. The subclass is named as its base (`type(f).__name__`, the type's
        repr, isinstance and the Function's own repr are unchanged) and holds no other state;
        it is made at the first entry (2.2 to 2.9 KB more per Function, measured on 3.10 to
        3.13), and later entries replace its `__call__`. (A subclass of Function that defines
        its own `__call__` keeps it, and gets no entry.)
        """
        cls = type(self)
        own = cls.__dict__.get("_entry_of")
        if own is not None and own() is self and cls._entry_changes[0] < _ENTRY_CHANGES:
            cls._entry_changes[0] += 1
            cls.__call__ = staticmethod(entry)
            return
        base = cls.__base__ if own is not None else cls  # (a copy shares its original's)
        if base.__call__ is not Function.__call__:
            return
        box = []
        box.append(type(base.__name__, (base,), {
            "__call__": staticmethod(entry), "__slots__": (), "__module__": base.__module__,
            "__qualname__": base.__qualname__, "__doc__": base.__doc__,
            "_entry_of": weakref.ref(self, functools.partial(_drop_entry, box)),
            "_entry_changes": [0]}))
        self.__class__ = box[0]

    def _call_traced(self, args, kwargs):
        """Looks the trace up (tracing if needed), runs it and fills the fast paths' tables."""
        with self._lock:
            traces = self._trace_count
            concrete, values = self._lookup(args, kwargs, feed=True)
            if self._trace_count == traces:
                self._detector.called_without_tracing()
            key = function_calls.table_key(args, kwargs)
            order = None if key is None else self._feed_order(concrete, args, kwargs)
            if order is not None:
                fast = self._fast
                if len(fast) >= _FAST_CACHE_LIMIT:
                    fast.clear()
                # the table feeds positional tensors in order (keyword calls: entries only)
                if not kwargs and order == sorted(order):
                    fast[key] = concrete
                self._hit(key, concrete, args, kwargs, order)
        result = concrete._call_values(values)
        if context._state.tapes:
            function_gradients.record_call(self, args, kwargs, concrete, result)
        return result

    def _feed_order(self, concrete, args, kwargs):
        """Where `concrete`'s graph inputs come from in calls like this one, or None.

        Returns the indices, into the positional arguments followed by the keyword values,
        of the tensors in the order of the graph's inputs, when each tensor argument is a
        graph input and each Python argument was traced as itself, and nothing else was: a
        default value, which a table key does not hold, may change between calls (a mutated
        list), and an input_signature or type hints make Python numbers tensors.
        """
        sources = list(args) + list(kwargs.values())
        markers = [_Source(i) for i in range(len(sources))]
        positional, _, keywords = self._arg_spec.canonicalize(
            markers[:len(args)], dict(zip(kwargs, markers[len(args):])))
        bound = positional + list(keywords.values())
        plan = concrete.feed_plan  # the traced arguments, without the graph
        if len(bound) != len(plan.entries) or list(keywords) != plan.keyword_names:
            return None
        order = [None] * plan.input_count
        for marker, (index, value) in zip(bound, plan.entries):
            if type(marker) is not _Source:  # a default value
                return None
            arg = sources[marker.index]
            if type(arg) is EagerTensor or function_calls.is_array(arg):
                if index is None:
                    return None
                order[index] = marker.index
            elif index is not None or value is plan.NESTED or type(value) is not type(arg) \
                    or value != arg:
                return None
        return None if None in order else order

    def _canonicalize(self, args, kwargs):
        positional, names, keywords = self._arg_spec.canonicalize(args, kwargs)
        if self._hinted is not None:
            positional, keywords = function_options.follow_hints(self._hinted, positional,
                                                                 names, keywords)
        return positional, names, keywords

    def _call_inline(self, args, kwargs):
        """Called while another graph is being built: runs the Python function inline."""
        positional, names, keywords = self._canonicalize(args, kwargs)
        if self._input_signature is not None:
            positional = self._apply_signature(positional, names, keywords, feed=False)
        positional = [keys.normalize(v) for v in positional]
        keywords = {k: keys.normalize(v) for k, v in keywords.items()}
        key, leaves = keys.walk_arguments(positional, names, keywords)
        self._check_recursion(key, leaves)
        self._active_keys.append(key)
        try:
            return self._call_python(positional, keywords)
        finally:
            self._active_keys.pop()

    # -- cache lookup ---------------------------------------------------------------------

    def _lookup(self, args, kwargs, feed):
        """Returns (ConcreteFunction, numpy values to feed or None), tracing if needed."""
        positional, names, keywords = self._canonicalize(args, kwargs)
        if self._input_signature is not None:
            positional = self._apply_signature(positional, names, keywords, feed)
            values = keys.feed_values(positional, keywords) if feed else None
            return self._trace_signature(values), values
        positional = [keys.normalize(v) for v in positional]
        keywords = {k: keys.normalize(v) for k, v in keywords.items()}
        key, leaves = keys.walk_arguments(positional, names, keywords)
        concrete = self._cache.get(key)
        if concrete is not None:
            self._cache.move_to_end(key)  # (the stored key object stays: evict() pops it)
        elif self._reduce_retracing:
            concrete = self._find_compatible(leaves)
            if concrete is None:
                leaves = self._generalize(leaves)
        if concrete is None:
            values = keys.feed_values(positional, keywords) if feed else None
            concrete = self._trace(positional, names, keywords, leaves, key, values)
            self._store(key, concrete)
            return concrete, values
        return concrete, keys.feed_values(positional, keywords) if feed else None

    def _store(self, key, concrete):
        self._cache[key] = concrete
        while len(self._cache) > MAX_TRACES:
            self._forget(next(iter(self._cache)))
        self_ref = weakref.ref(self)

        def evict():
            owner = self_ref()
            if owner is not None:
                owner._cache.pop(key, None)

        for leaf in concrete._leaves:
            if isinstance(leaf.payload, keys.IdRef):
                leaf.payload.watch(evict)

    def _forget(self, key):
        """Drops the trace of `key` from the cache, and from the fast-path table."""
        old = self._cache.pop(key)
        for fast_key in [k for k, v in self._fast.items() if v is old]:
            del self._fast[fast_key]

    def _concretes(self):
        if self._signature_concrete is not None:
            return [self._signature_concrete]
        seen, out = set(), []
        for concrete in self._cache.values():
            if id(concrete) not in seen:
                seen.add(id(concrete))
                out.append(concrete)
        return out

    def _find_compatible(self, leaves):
        for concrete in reversed(self._concretes()):
            if keys.leaves_accept(concrete._leaves, leaves):
                return concrete
        return None

    def _generalize(self, leaves):
        """reduce_retracing: relaxes tensor shapes against the latest similar trace."""
        for concrete in reversed(self._concretes()):
            general = keys.generalize_leaves(concrete._leaves, leaves)
            if general is not None:
                return general
        return leaves

    # -- input signatures ------------------------------------------------------------------

    def _apply_signature(self, positional, names, keywords, feed):
        """Checks (and converts) arguments against the input_signature."""
        signature = self._input_signature
        if keywords or len(positional) != len(signature):
            raise TypeError(
                f"{self._name} has an input_signature of {len(signature)} argument(s) "
                f"({', '.join(names[:len(signature)]) or 'none'}) but was called with "
                f"{len(positional)} positional and {len(keywords)} keyword argument(s). Pass "
                f"exactly one value per input_signature entry.")
        converted = []
        for value, spec in zip(positional, signature):
            try:
                converted.append(signatures.conform(value, spec))
            except (TypeError, ValueError):
                raise ValueError(signatures.incompatible_message(positional, signature)) from None
        return converted

    def _trace_signature(self, values=None):
        if self._signature_concrete is None:
            names = self._arg_spec.positional[:len(self._input_signature)]
            names += [f"args_{i}" for i in range(len(names), len(self._input_signature))]
            positional = list(self._input_signature)
            key, leaves = keys.walk_arguments(positional, names, {})
            named = []
            for leaf in leaves:
                spec = signatures.find_spec(self._input_signature, names, leaf.path)
                name = spec.name if spec is not None and spec.name else leaf.name
                named.append(keys.Leaf(leaf.path, leaf.kind, leaf.payload, name))
            self._signature_concrete = self._trace(positional, names, {}, named, key, values)
        return self._signature_concrete

    # -- tracing --------------------------------------------------------------------------

    def _trace(self, positional, names, keywords, leaves, key, values=None):
        """Traces the Python function; the first trace may create Variables.

        Args:
            positional, names, keywords, leaves, key: The canonical arguments and cache key.
            values: The numpy values of the call's tensor arguments (one per placeholder),
                or None when tracing without a call (get_concrete_function).

        Returns:
            The ConcreteFunction to run.
        """
        with collector.paused():  # trace, optimise and codegen build a graph that lives on
            concrete = self._trace_paused(positional, names, keywords, leaves, key, values)
        concrete.stash_graph()
        return concrete

    def _trace_paused(self, positional, names, keywords, leaves, key, values):
        if not self._initialized:
            created = []
            with variables.defer_initialization() as deferred:
                concrete = self._trace_once((positional, names, keywords), leaves, key,
                                            created.append, values is not None)
            self._initialized = True
            if not created:
                return concrete
            if deferred:
                if values is None and any(t.kind == keys.TENSOR for t in leaves):
                    values = keys.feed_values(positional, keywords) if all(
                        not isinstance(v, TensorSpec) for v in keys.flatten(
                            list(positional) + list(keywords.values()))) else None
                variable_lifting.initialize_from_trace(self._name, concrete.graph, deferred,
                                                       values)
            # As in TensorFlow: trace again, now forbidding creation, so that a function
            # creating a Variable on every call fails on its first call. The first trace
            # (which created the variables and computed their initial values) is dropped.
        return self._trace_once((positional, names, keywords), leaves, key, self._forbid,
                                values is not None)

    # -- running the Python function -------------------------------------------------------

    def _get_instance(self):
        instance = self._instance()
        if instance is None:
            raise ReferenceError(f"The object that method `{self._name}` was bound to has "
                                 f"been garbage collected.")
        return instance

    def _call_python(self, args, kwargs):
        fn = self._traceable()
        if self._instance is not None:
            return fn(self._get_instance(), *args, **kwargs)
        return fn(*args, **kwargs)

    def _traceable(self):
        if not self._autograph:
            return self._fn
        if self._converted is None:
            self._converted = autograph.convert(self._fn, recursive=True)
        return self._converted


# -- helpers ----------------------------------------------------------------------------------

class _Source:
    """Stands for the call argument at `index` in `Function._feed_order`'s binding."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


def _drop_entry(box, _):
    """Drops the entry of a dead Function's own class at once (with the executor and constants
    it holds), not when the cyclic garbage collector frees the class."""
    cls = box.pop()
    if "__call__" in cls.__dict__:
        del cls.__call__
