"""The hot path of a call: per-signature generated entries and the packing of results.

A call of a traced function with eager tensors does little besides numpy's own work: check
each argument's dtype and shape, unwrap the numpy values, run the compiled graph, wrap the
results. Written as loops over the arguments this costs more than a small graph itself, so
`entry` returns a function written out for one signature (torch.fx style: generated source
plus the constants it needs). For a Function of two tensors returning one:

    def call(arg_0=MISS, arg_1=MISS, /, *rest, **kwargs):
        if not (rest or kwargs or _open_scopes):
            try:  # the steady state: tensors marked by an earlier call (see sig)
                marked = arg_0._sig is sig_0 and arg_1._sig is sig_1
            except Exception:  # no tensor (the tests below send it to the general path)
                marked = False
            if marked:
                if detector.untraced < 10:  # (only the last HISTORY = 10 calls count)
                    detector.untraced += 1
                result = new(EagerTensor)
                result._value, = run(arg_0._value, arg_1._value)  # (one output)
                result._sig = None
                return result
            if type(arg_0) is EagerTensor and type(arg_1) is EagerTensor:
                value_0 = arg_0._value
                value_1 = arg_1._value
                if arg_0._sig is not sig_0:  # checked once per tensor
                    if not (value_0.dtype is dtype_0 and value_0.shape == shape_0):
                        return general(owner, given((arg_0, arg_1), rest), kwargs)
                    if getrefcount(value_0) > PRIVATE:  # held elsewhere: a view of its own
                        arg_0._value = value_0 = value_0.view()
                    arg_0._sig = sig_0
                if arg_1._sig is not sig_1:
                    ...
                (the count, the run and the result as above, with value_0 and value_1)
        return general(owner, given((arg_0, arg_1), rest), kwargs)

Python primitives (`type(arg_1) is float and arg_1 == traced_1`), numpy arrays (fed as they
are, as convert_to_tensor wraps them) and keyword arguments (`kwargs.get(name)`) are written
out too. A tensor whose shape is given exactly is checked once: the entry then marks it
(`_sig`, see `sig`), and a call whose tensors are all marked tests only the marks. A mark
shows the type too: only an entry sets it, on an EagerTensor whose type it has tested (the
slot is None until then). For an argument that is no EagerTensor, reading `_sig` raises
(caught) or gives that object's own attribute, which is not the mark (a private object of
this module, that only a copy of a tensor's private slot would hold): the checking path then
runs, and its type tests send the call to the general path. (One attribute read costs less
than two `type()` calls on a steady call; a fresh tensor pays a little more.)

The owner makes the entry its `__call__` (see `Function` and `ConcreteFunction`). Any other
call goes to the owner's general path, which gives the same result or error: dtypes are
compared by identity (numpy's canonical dtype objects), so an equal but distinct dtype object
takes the general path too. The result is made without calling EagerTensor's Python
`__init__` (one Python call less). The source depends only on the arity, each argument's kind
and shape pattern, the keywords and the kind of owner and output, so it is compiled once per
process; each entry is a closure over its own constants.
"""
import collections
import itertools
import linecache
import sys

import numpy as np

from autograph.impl import traceback_filter
from runtime.function import tracing as function_tracing
from runtime import nest
from runtime.context import _open_scopes
from runtime.tensor import EagerTensor
from runtime.tensor import SymbolicTensor

MISS = object()  # an omitted parameter of an entry (no caller can pass it)

# The Python values an entry compares (type and ==), as the trace cache keys them.
PRIMITIVES = (type(None), bool, int, float, complex, str, bytes)

# The kinds of an entry's arguments, and the test of each in the generated source.
TENSOR = "tensor"  # an EagerTensor, fed its value
ARRAY = "array"  # a numpy array, fed as it is
PYTHON = "python"  # a Python primitive, equal to the traced one
_TESTS = {TENSOR: "type(arg_{i}) is EagerTensor", ARRAY: "type(arg_{i}) is ndarray",
          PYTHON: "type(arg_{i}) is type_{i} and arg_{i} == traced_{i}"}

# (argument patterns, keywords, feed order, one output, for a Function) -> the compiled
# factory of such entries; the source names no constant, so few exist (cleared past
# _FACTORY_LIMIT all the same)
_FACTORIES = {}
_FACTORY_LIMIT = 256
_counter = itertools.count()  # numbers the entries' pseudo file names


# (dtype, shape) -> itself: the one tuple every entry compares a tensor's `_sig` with
_SIGS = {}
_SIG_LIMIT = 4096


def sig(dtype, shape):
    """The canonical (dtype, shape) tuple that marks a tensor checked to have them.

    An entry checks a tensor argument of an exact shape once: it then sets the tensor's `_sig`
    to this tuple, and a later call (of any entry of that signature) checks `_sig is sig_0`
    (20 ns) instead of the value's dtype and shape (80 ns: numpy makes a shape tuple per
    `.shape`). A tensor's value never changes, and its array object's shape and dtype can
    only change in place (`a.shape = ...`) through a reference to that same object: the
    tensor hands out views only (`numpy()`, `__array__`), and the entry first replaces a value
    that anything else refers to (a user's array given to tf.constant, one shared with another
    tensor) by a private view of it (same data), so the mark stays true.
    """
    key = (dtype, shape)
    found = _SIGS.get(key)
    if found is None:
        if len(_SIGS) >= _SIG_LIMIT:
            _SIGS.clear()  # (entries keep theirs; a tensor marked by one is checked again)
        found = _SIGS[key] = key
    return found


def _references_of_private():
    """sys.getrefcount of a value that only its tensor holds, as an entry's line sees it (the
    tensor's slot, the entry's local, the call's argument)."""
    tensor = EagerTensor(np.empty(0))
    value = tensor._value
    return sys.getrefcount(value)


_PRIVATE = _references_of_private()


class PythonSpec(collections.namedtuple("PythonSpec", ["value"])):
    """The spec of an entry's argument that is a Python primitive, equal to `value`."""

    __slots__ = ()


class ArraySpec(collections.namedtuple("ArraySpec", ["dtype", "shape"])):
    """The spec of an entry's argument that is a numpy array (see `is_array`)."""

    __slots__ = ()


def entry(specs, concrete, owner, detector=None, keywords=(), order=None):
    """Returns a function of a call's arguments that runs `concrete` when they fit `specs`.

    Args:
        specs: One per positional argument, then one per keyword argument: (numpy dtype,
            shape) for an EagerTensor, whose shape is a tuple of ints (exact), a tuple with
            None for any size in that dimension, or None for any shape; an ArraySpec for a
            numpy array (fed as it is, as convert_to_tensor would wrap it); or a PythonSpec for
            a Python primitive (None, bool, int, float, complex, str or bytes) of the value's
            type, equal to it.
        concrete: The ConcreteFunction to run (its executor `_run` and output packer `_pack`).
        owner: A weak reference to the Function or ConcreteFunction whose `__call__` the entry
            is: its `_call_general(args, kwargs)` runs every call that does not fit.
        detector: For a Function's entry: its function_tracing.Detector, whose untraced-call
            count each run increments, up to function_tracing.HISTORY (the detector reads no
            more of it). The entry then also takes the general path while a graph is being
            built, a GradientTape is open or functions run eagerly.
        keywords: The names of the keyword arguments, in the order of their specs.
        order: The indices into `specs` of the tensors, in the order of the graph's inputs
            (default: their order in `specs`).

    Returns:
        A function taking the call's arguments.
    """
    patterns = tuple(_pattern(spec) for spec in specs)
    if order is None:
        order = [i for i, (kind, _) in enumerate(patterns) if kind != PYTHON]
    key = (patterns, tuple(keywords), tuple(order), _output_count(concrete),
           detector is not None)
    factory = _FACTORIES.get(key)
    if factory is None:
        if len(_FACTORIES) >= _FACTORY_LIMIT:
            _FACTORIES.clear()
        factory = _FACTORIES[key] = _compile_factory(*key)
    constants = []
    for spec in specs:
        constants += [type(spec.value), spec.value] if type(spec) is PythonSpec else spec[:2]
    return factory(concrete._run, concrete._pack, owner, detector, *constants)


def general(owner, args, kwargs):
    """Runs a call on the general path of `owner` (a weak reference)."""
    function = owner()
    if function is None:
        raise ReferenceError("The function whose __call__ this is has been garbage collected; "
                             "keep a reference to the function and call it.")
    return function._call_general(args, kwargs)


class SignatureTable(dict):
    """A Function's table of positional calls of EagerTensors and Python primitives.

    A key has two items per argument, (shape, dtype) of a tensor's value or (type, value) of a
    Python primitive (a type never equals a shape tuple); the value is the ConcreteFunction
    whose graph inputs are the tensors in order.

    Attributes:
        last_hit: The `table_key` of the latest call found here or traced (keyword calls
            too, which are not stored here); the same key twice in a row makes the entry.
    """

    __slots__ = ("last_hit",)

    def __init__(self):
        super().__init__()
        self.last_hit = None


def given(params, rest):
    """The positional arguments of a call of an entry: its parameters up to the first omitted."""
    for i, value in enumerate(params):
        if value is MISS:
            return params[:i]
    return params + rest


def table_key(args, kwargs=None):
    """The SignatureTable key of a call, or None for an argument of no kind of `_TESTS`.

    Keyword arguments add their name and two items each, sorted by name.
    """
    key = []
    for arg in args:
        if not _add_key(key, arg):
            return None
    for name in sorted(kwargs or ()):
        key.append(name)
        if not _add_key(key, kwargs[name]):
            return None
    return tuple(key)


def is_array(arg):
    """Whether `arg` is a numpy array that convert_to_tensor wraps as it is (a number array)."""
    return type(arg) is np.ndarray and arg.dtype.kind in "biufc"


def _add_key(key, arg):
    if type(arg) is EagerTensor or is_array(arg):  # (an array keys as its tensor does)
        value = arg._value if type(arg) is EagerTensor else arg
        key.append(value.shape)
        key.append(value.dtype)
    elif type(arg) in PRIMITIVES:
        key.append(type(arg))
        key.append(arg)
    else:
        return False
    return True


def _pattern(spec):
    """What the source depends on: (TENSOR, ARRAY or PYTHON, the shape's pattern)."""
    if type(spec) is PythonSpec:
        return (PYTHON, None)
    return (ARRAY if type(spec) is ArraySpec else TENSOR, _shape_pattern(spec[1]))


def _shape_pattern(shape):
    """None (any shape), 'exact' or (rank, the known dims)."""
    if shape is None:
        return None
    if None not in shape:
        return "exact"
    return (len(shape), tuple(i for i, dim in enumerate(shape) if dim is not None))


def _checks(i, pattern):
    """The tests that argument i's value has its dtype and a shape of `pattern`."""
    checks = [f"value_{i}.dtype is dtype_{i}"]
    if pattern == "exact":
        checks.append(f"value_{i}.shape == shape_{i}")
    elif pattern is not None:
        rank, known = pattern
        checks.append(f"value_{i}.ndim == {rank}")
        checks += [f"value_{i}.shape[{d}] == shape_{i}[{d}]" for d in known]
    return checks


def _output_count(concrete):
    """How an entry packs `concrete`'s outputs: -1 for one tensor, n for a tuple of n tensors,
    None for another structure (its packer)."""
    if concrete._pack is pack_one:
        return -1
    if concrete._pack is _pack_tuple:
        return len(concrete.structured_outputs)
    return None


def _compile_factory(patterns, keywords, order, outputs, for_function):
    """Compiles `make(run, pack, owner, detector, dtype_0, shape_0, ...)` -> entry.

    Arguments are numbered positional first, then keywords; a Python argument's two constants
    are its type and value (`type_1, traced_1`).
    """
    positional = [f"arg_{i}" for i in range(len(patterns) - len(keywords))]
    guard = ["rest"] + (["_open_scopes"] if for_function else [])
    head = [f"not ({' or '.join(guard)})",
            f"len(kwargs) == {len(keywords)}" if keywords else "not kwargs"]
    fetch = [f"arg_{len(positional) + j} = kwargs.get({name!r}, MISS)"
             for j, name in enumerate(keywords)]
    tests = [_TESTS[kind].format(i=i) for i, (kind, _) in enumerate(patterns)]
    tensors = [i for i, (kind, _) in enumerate(patterns) if kind != PYTHON]
    marked = [i for i in tensors if patterns[i] == (TENSOR, "exact")]  # checked once (see sig)
    checks = [c for i in tensors if i not in marked for c in _checks(i, patterns[i][1])]
    given_args = "".join(a + ", " for a in positional)
    to_general = f"return general(owner, given(({given_args}), rest), kwargs)"

    def checked(fast):
        """Reads the values, checks (and marks) the tensors, runs; `fast` as for `ran`."""
        lines = [f"value_{i} = arg_{i}" + ("._value" if patterns[i][0] == TENSOR else "")
                 for i in tensors if not (fast and i in marked)]
        for i in () if fast else marked:
            lines += [f"if arg_{i}._sig is not sig_{i}:",
                      f"    if not ({' and '.join(_checks(i, 'exact'))}):",
                      f"        {to_general}",
                      f"    if getrefcount(value_{i}) > PRIVATE:",
                      f"        arg_{i}._value = value_{i} = value_{i}.view()",
                      f"    arg_{i}._sig = sig_{i}"]
        run = _run_lines(order, marked, outputs, for_function, fast)
        return lines + ([f"if {' and '.join(checks)}:"] + _indent(run) if checks else run)

    if marked:  # the marks first: a mark shows the type too (see sig), with no type() call
        others = [tests[i] for i in range(len(patterns)) if i not in marked]
        body = fetch + [
            "try:",
            f"    marked = {' and '.join(f'arg_{i}._sig is sig_{i}' for i in marked)}",
            "except Exception:  # (no tensor: the tests below send it to the general path)",
            "    marked = False",
            f"if {' and '.join(['marked'] + others)}:"] + _indent(checked(True)) + [
            f"if {' and '.join(tests)}:"] + _indent(checked(False))
    elif fetch:
        body = fetch + [f"if {' and '.join(tests)}:"] + _indent(checked(False))
    else:
        head += tests
        body = checked(False)
    params = "".join(f"{a}=MISS, " for a in positional) + ("/, " if positional else "")
    constants = "".join(f", type_{i}, traced_{i}" if kind == PYTHON else f", dtype_{i}, shape_{i}"
                        for i, (kind, _) in enumerate(patterns))
    sigs = "".join(f"    sig_{i} = sig(dtype_{i}, shape_{i})\n" for i in marked)
    call = _filtered([f"if {' and '.join(head)}:"] + _indent(body) + [to_general])
    source = "\n".join(
        [f"def make(run, pack, owner, detector{constants}):",
         sigs + f"    def call({params}*rest, **kwargs):"]
        + _indent(call, 2)
        + ["    return call",
           ""])
    return _load_factory(source)


def _filtered(lines):
    """`lines` in a try that filters the traceback of what they raise, when filtering is on
    (a try costs nothing on 3.11+ until it catches)."""
    if not traceback_filter.ACTIVE:
        return lines
    return (["try:"] + _indent(lines) + ["except Exception as error:",
                                         "    filter_exception(error)", "    raise"])


def _load_factory(source):
    """Executes the source of a `make` function (registered in linecache); returns `make`."""
    filename = f"<runtime-call-entry {next(_counter)}>"
    namespace = {"EagerTensor": EagerTensor, "ndarray": np.ndarray, "new": object.__new__,
                 "MISS": MISS, "sig": sig, "getrefcount": sys.getrefcount,
                 "PRIVATE": _PRIVATE,
                 "_open_scopes": _open_scopes, "general": general,
                 "given": given, "filter_exception": traceback_filter.filter_exception}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own source
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return namespace["make"]


def _run_lines(order, marked, outputs, for_function, fast):
    """The lines of an entry that run the graph and return the result (see `_compile_factory`);
    `fast`: the marked tensors were found marked."""
    values = [f"arg_{i}._value" if fast and i in marked else f"value_{i}" for i in order]
    run = f"run({', '.join(values)})"
    if outputs == -1:
        lines = ["result = new(EagerTensor)", f"result._value, = {run}",
                 "result._sig = None", "return result"]
    elif outputs is not None:  # a tuple of tensors, each made as one is above
        lines = [f"{''.join(f'out_{k}, ' for k in range(outputs))}= {run}" if outputs
                 else run]
        for k in range(outputs):
            lines += [f"result_{k} = new(EagerTensor)", f"result_{k}._value = out_{k}",
                      f"result_{k}._sig = None"]
        lines.append(f"return ({''.join(f'result_{k}, ' for k in range(outputs))})")
    else:
        lines = [f"return pack({run})"]
    if for_function:  # (the count is read up to HISTORY: a compare costs less than an add)
        lines[:0] = [f"if detector.untraced < {function_tracing.HISTORY}:",
                     "    detector.untraced += 1"]
    return lines


def _indent(lines, levels=1):
    return ["    " * levels + line for line in lines]


# -- output packing ---------------------------------------------------------------------------

def pack_one(outs):
    """Packs the executor's outputs of a function returning one tensor."""
    return EagerTensor(outs[0])


def _pack_none(outs):
    del outs


def _pack_tuple(outs):
    return tuple([EagerTensor(v) for v in outs])


def output_packer(structure):
    """Returns a fast callable mapping the executor's output tuple to the user's structure.

    The common structures share one module-level function (every ConcreteFunction keeps its
    packer; a closure of its own would cost 150 bytes).

    Args:
        structure: The traced function's outputs: SymbolicTensors (or None) in the returned
            structure.

    Returns:
        A function of the executor's output tuple.
    """
    if isinstance(structure, SymbolicTensor):
        return pack_one
    if structure is None:
        return _pack_none
    if type(structure) is tuple and all(isinstance(t, SymbolicTensor) for t in structure):
        return _pack_tuple

    # the leaves marked, not the graph's tensors: a packer keeps no graph alive
    structure = nest.map_structure(lambda leaf: None if leaf is None else True, structure)

    def pack(outs):
        values = iter(outs)
        return nest.map_structure(
            lambda leaf: None if leaf is None else EagerTensor(next(values)), structure)

    return pack
