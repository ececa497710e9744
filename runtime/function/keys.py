"""Trace-cache keys for runtime.function: keys, leaves and the retrace explanations.

A call's arguments, once bound to the Python function's parameters
(`function_signature.ArgSpec.canonicalize`), are walked (`walk_arguments`) into a hashable
cache key plus a flat list of `Leaf`s in flattening order (`runtime.nest`'s order). Keys follow the tf.function guide:

- a tensor (or numpy array, converted to one) -> its shape and dtype;
- a Variable -> its identity; any other object -> its identity; both held weakly (`IdRef`);
- a Python primitive (None, bool, int, float, complex, str, bytes) -> its type and value;
- a list, tuple, dict or namedtuple -> its structure plus the keys of its items.
"""
import weakref

import numpy as np

from runtime import nest
from runtime.data.structure import DatasetBase
from runtime.data.structure import DatasetSpec
from runtime.function.signature import ArgSpec  # noqa: F401 - re-exported
from runtime.function.signature import spec_accepts
from runtime.nest import children
from runtime.nest import flatten  # noqa: F401 - re-exported
from runtime.nest import is_namedtuple
from runtime.nest import is_nested
from runtime.nest import map_structure  # noqa: F401 - re-exported
from runtime.nest import pack_sequence_as  # noqa: F401 - re-exported
from runtime.nest import rebuild
from runtime.graph import leaked_eager_error
from runtime.tensor import EagerTensor
from runtime.tensor import SymbolicTensor
from runtime.tensor import Tensor
from runtime.tensor import TensorSpec
from runtime.tensor_conversion import convert_to_tensor
from runtime.resources import ResourceTensor
from runtime.variables import Variable

_PRIMITIVES = (type(None), bool, int, float, complex, str, bytes)

# Leaf kinds, stored in Leaf.kind.
TENSOR = "tensor"  # payload: TensorSpec (shape, dtype)
VARIABLE = "variable"  # payload: IdRef to the Variable
PYTHON = "python"  # payload: the primitive value
OBJECT = "object"  # payload: IdRef to the object

class IdRef:
    """A hashable, weak reference to an object, equal only to references to the same object.

    Objects that cannot be weakly referenced are held strongly (there is no other way to key
    on their identity safely).

    Args:
        obj: The object.
    """

    __slots__ = ("_ref", "_id", "_watch")

    def __init__(self, obj):
        self._id = id(obj)
        self._watch = None  # a weakref with a cache-eviction callback, set by `watch`
        try:
            self._ref = weakref.ref(obj)
        except TypeError:
            self._ref = lambda: obj

    def get(self):
        """Returns the object, or None once it has been garbage collected."""
        return self._ref()

    def watch(self, callback):
        """Calls `callback()` when the object dies (no-op for strongly held objects).

        Args:
            callback: A callable taking no arguments.
        """
        obj = self._ref()
        if obj is None or self._watch is not None:
            return
        try:
            self._watch = weakref.ref(obj, lambda _: callback())
        except TypeError:
            pass

    def __hash__(self):
        return self._id

    def __eq__(self, other):
        if type(other) is not IdRef or other._id != self._id:
            return False
        obj = self._ref()
        return obj is not None and obj is other._ref()

    def __repr__(self):
        obj = self._ref()
        return "<dead object>" if obj is None else safe_repr(obj)


class Leaf:
    """One leaf of a call's arguments.

    Attributes:
        path: Where the leaf is, e.g. 'x', 'x[0]', "opts['lr']", 'args_1'.
        kind: TENSOR, VARIABLE, PYTHON or OBJECT.
        payload: TensorSpec for tensors, the value for Python primitives, else an IdRef.
        name: For tensors, the base name of the placeholder ('x' for 'x[0]').
    """

    __slots__ = ("path", "kind", "payload", "name")

    def __init__(self, path, kind, payload, name):
        self.path = path
        self.kind = kind
        self.payload = payload
        self.name = name

    def key(self):
        """Returns the hashable cache-key part of this leaf."""
        payload = self.payload
        if self.kind == TENSOR:
            if type(payload) is DatasetSpec:
                return (TENSOR, payload)
            return (TENSOR, payload.shape, payload.dtype)
        if self.kind == PYTHON:
            return (PYTHON, type(payload), payload)
        return (self.kind, payload)

    def __repr__(self):
        return f"Leaf({self.path}, {self.kind}, {self.payload!r})"


# -- keys -------------------------------------------------------------------------------------

def normalize(value):
    """Converts numpy arrays and numpy scalars in a nested value to tensors.

    Args:
        value: A nested structure.

    Returns:
        The structure with numpy leaves converted (other leaves unchanged).
    """
    if isinstance(value, (np.ndarray, np.generic)):
        return convert_to_tensor(value)
    if is_nested(value):
        items = children(value)
        new = [normalize(v) for _, v in items]
        if all(a is b for a, b in zip(new, (v for _, v in items))):
            return value
        return rebuild(value, new)
    return value


def _walk(value, path, name, leaves):
    if isinstance(value, DatasetBase):
        # a variant placeholder keyed by the element_spec (TensorFlow's DatasetSpec)
        leaves.append(Leaf(path, TENSOR, DatasetSpec(value.element_spec), name))
        return leaves[-1].key()
    if type(value) is ResourceTensor:  # a Variable's handle: the trace captures it, by identity
        leaves.append(Leaf(path, OBJECT, IdRef(value), name))
        return leaves[-1].key()
    if isinstance(value, Tensor):
        leaves.append(Leaf(path, TENSOR, TensorSpec(value.shape, value.dtype), name))
        return leaves[-1].key()
    if isinstance(value, TensorSpec):
        leaves.append(Leaf(path, TENSOR, TensorSpec(value.shape, value.dtype), name))
        return leaves[-1].key()
    if type(value) in _PRIMITIVES:
        leaves.append(Leaf(path, PYTHON, value, name))
        return leaves[-1].key()
    if isinstance(value, Variable):
        leaves.append(Leaf(path, VARIABLE, IdRef(value), name))
        return leaves[-1].key()
    if is_nested(value):
        items = children(value)
        kind = type(value) if is_namedtuple(value) else (
            dict if isinstance(value, dict) else list if isinstance(value, list) else tuple)
        head = (kind, tuple(s for s, _ in items))
        return head + tuple(_walk(v, path + s, name, leaves) for s, v in items)
    leaves.append(Leaf(path, OBJECT, IdRef(value), name))
    return leaves[-1].key()


def walk_arguments(values, names, keywords):
    """Computes the cache key and the leaves of canonicalized arguments.

    Args:
        values: Positional values (after `normalize`).
        names: Their parameter names.
        keywords: Keyword values by name.

    Returns:
        (key, leaves): a hashable key and the list of Leaf in flattening order
        (positional values first, then keywords by name).
    """
    leaves = []
    key = [_walk(v, n, n, leaves) for v, n in zip(values, names)]
    for k, v in keywords.items():
        key.append((k, _walk(v, k, k, leaves)))
    return tuple(key), leaves


# -- specs and formatting ----------------------------------------------------------------------

def format_shape(shape):
    """Formats a shape as the guide does: '()', '(None,)', '(2, 3)' or '<unknown>'."""
    if shape is None:
        return "<unknown>"
    return tuple.__repr__(tuple(shape))


def describe_spec(spec):
    """Returns 'float32 Tensor, shape=(2,)' for a TensorSpec."""
    return f"{spec.dtype.name} Tensor, shape={format_shape(spec.shape)}"


def describe_structure(value):
    """Describes a nested structure of TensorSpecs/tensors/values for signature summaries.

    Args:
        value: A nested structure.

    Returns:
        A string.
    """
    if isinstance(value, TensorSpec):
        return describe_spec(value)
    if isinstance(value, Tensor):
        return describe_spec(TensorSpec(value.shape, value.dtype))
    if isinstance(value, dict):
        items = ", ".join(f"[{k!r}, {describe_structure(value[k])}]" for k in nest.sorted_keys(value))
        return f"Dict[{items}]"
    if is_namedtuple(value):
        items = ", ".join(f"{f}={describe_structure(v)}"
                          for f, v in zip(type(value)._fields, value))
        return f"{type(value).__name__}[{items}]"
    if isinstance(value, (list, tuple)):
        kind = "List" if isinstance(value, list) else "Tuple"
        return f"{kind}[{', '.join(describe_structure(v) for v in value)}]"
    return safe_repr(value)


def generalize(spec, other):
    """Returns the most specific spec compatible with both specs (differing dims -> None).

    Args:
        spec: A TensorSpec.
        other: A TensorSpec of the same dtype.

    Returns:
        A TensorSpec, or None when the dtypes differ.
    """
    if spec.dtype is not other.dtype:
        return None
    if spec.shape is None or other.shape is None or len(spec.shape) != len(other.shape):
        return TensorSpec(None, spec.dtype)
    dims = [a if a == b else None for a, b in zip(spec.shape, other.shape)]
    return TensorSpec(dims, spec.dtype)


def leaves_accept(old, new):
    """True when a trace made for Leafs `old` can run arguments whose Leafs are `new`.

    Args:
        old: The Leafs of a trace.
        new: The Leafs of a call.

    Returns:
        A Python bool: same paths and kinds, tensors fit the traced specs, other keys equal.
    """
    if len(old) != len(new):
        return False
    for a, b in zip(old, new):
        if a.path != b.path or a.kind != b.kind:
            return False
        if a.kind == TENSOR:
            if not _spec_accepts(a.payload, b.payload):
                return False
        elif a.key() != b.key():
            return False
    return True


def _spec_accepts(traced, given):
    if type(traced) is DatasetSpec or type(given) is DatasetSpec:
        return traced == given
    return spec_accepts(traced, given)


def generalize_leaves(old, new):
    """reduce_retracing: relaxes the tensor shapes of `new` against a similar trace's `old`.

    Args:
        old: The Leafs of an earlier trace.
        new: The Leafs of a call.

    Returns:
        The generalised Leafs, or None when the traces differ in more than tensor dims.
    """
    if len(old) != len(new) or any(
            a.path != b.path or a.kind != b.kind
            or (a.kind != TENSOR and a.key() != b.key())
            or (a.kind == TENSOR and not _same_rank(a.payload, b.payload))
            for a, b in zip(old, new)):
        return None
    return [Leaf(b.path, b.kind, generalize(a.payload, b.payload), b.name)
            if b.kind == TENSOR and type(b.payload) is not DatasetSpec else b
            for a, b in zip(old, new)]


def _same_rank(a, b):
    if type(a) is DatasetSpec or type(b) is DatasetSpec:
        return a == b
    return (a.dtype is b.dtype and a.shape is not None and b.shape is not None
            and len(a.shape) == len(b.shape))


def leaf_text(leaf):
    """Describes a Leaf's value for messages: 'float32 tensor of shape (2,)', '3', ..."""
    if leaf.kind == TENSOR:
        return f"{leaf.payload.dtype.name} tensor of shape {format_shape(leaf.payload.shape)}"
    if leaf.kind == PYTHON:
        return repr(leaf.payload)
    return f"{type(leaf.payload.get()).__name__} object"


# -- call arguments -------------------------------------------------------------------------

def feed_values(positional, keywords):
    """The numpy values of a call's tensor arguments, in flattening order (what is fed)."""
    values = []
    for leaf in flatten(list(positional) + list(keywords.values())):
        if isinstance(leaf, Tensor):
            if type(leaf) is not EagerTensor:
                if type(leaf) is ResourceTensor:  # keyed by identity and captured: not fed
                    continue
                raise leaked_eager_error(leaf)
            values.append(leaf._value)
        elif isinstance(leaf, DatasetBase):
            values.append(leaf._feed_value())
    return values


def strip_objects(args, leaves):
    """Replaces objects and Variables in traced arguments by their (weak) IdRefs."""
    by_id = {id(leaf.payload.get()): leaf.payload for leaf in leaves
             if leaf.kind in (OBJECT, VARIABLE)}

    def strip(value):
        if isinstance(value, (SymbolicTensor, TensorSpec)) or type(value) in (
                type(None), bool, int, float, complex, str, bytes):
            return value
        return by_id.get(id(value), value)

    return [map_structure(strip, v) for v in args]


def strip_objects_kw(kwargs, leaves):
    """`strip_objects` for a keyword dict."""
    names = list(kwargs)
    return dict(zip(names, strip_objects([kwargs[k] for k in names], leaves)))


# -- retrace explanations ----------------------------------------------------------------------

def _type_name(value):
    return type(value).__name__


def explain_change(old_leaves, new_leaves):
    """Says which arguments differ between two traces, and how to avoid the retrace.

    Args:
        old_leaves: The Leafs of the previous trace.
        new_leaves: The Leafs of the new trace.

    Returns:
        A list of sentences, one per changed argument.
    """
    old_by_path = {leaf.path: leaf for leaf in old_leaves}
    new_paths = [leaf.path for leaf in new_leaves]
    if [leaf.path for leaf in old_leaves] != new_paths:
        return [f"the structure of the arguments changed: ({', '.join(old_by_path)}) -> "
                f"({', '.join(new_paths)}); pass containers of the same structure to avoid "
                f"retracing"]
    reasons = []
    for new in new_leaves:
        old = old_by_path[new.path]
        if old.key() == new.key():
            continue
        reasons.append(_explain_leaf(old, new))
    return reasons


def _explain_leaf(old, new):
    arg = f"argument `{new.path}`"
    if old.kind != new.kind:
        return (f"{arg} changed kind: it was a {_leaf_kind(old)} and is now a "
                f"{_leaf_kind(new)}; pass the same kind of value on every call")
    if new.kind == PYTHON:
        if type(old.payload) is not type(new.payload):
            return (f"{arg} changed Python type: {_type_name(old.payload)} "
                    f"{old.payload!r} -> {_type_name(new.payload)} {new.payload!r}; "
                    f"pass a tensor to avoid retracing")
        return (f"{arg} is a Python {_type_name(new.payload)} whose value changed: "
                f"{old.payload!r} -> {new.payload!r}; pass a tensor to avoid retracing")
    if new.kind == TENSOR:
        a, b = old.payload, new.payload
        if a.dtype is not b.dtype:
            return (f"{arg} is a tensor whose dtype changed: {a.dtype.name} -> "
                    f"{b.dtype.name}; cast it to one dtype to avoid retracing")
        return (f"{arg} is a tensor whose shape changed: {format_shape(a.shape)} -> "
                f"{format_shape(b.shape)}; use an input_signature with None dimensions or "
                f"reduce_retracing=True to avoid retracing")
    what = "Variable" if new.kind == VARIABLE else f"{_type_name(new.payload.get())} object"
    return (f"{arg} is a {what}, keyed on its identity, and a different one was passed; "
            f"reuse the same object (or pass its values as tensors) to avoid retracing")


def _leaf_kind(leaf):
    if leaf.kind == PYTHON:
        return f"Python {_type_name(leaf.payload)}"
    if leaf.kind == OBJECT:
        return f"{_type_name(leaf.payload.get())} object"
    return leaf.kind


def safe_repr(value):
    """Returns repr(value), or the default object repr when the object's __repr__ fails."""
    try:
        return repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real error
        return object.__repr__(value)
