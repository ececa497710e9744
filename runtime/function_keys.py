"""Trace-cache keys for runtime.function: argument binding, nesting, keys and retrace reasons.

A call's arguments are bound to the Python function's parameters (`ArgSpec.canonicalize`),
then walked (`walk_arguments`) into a hashable cache key plus a flat list of `Leaf`s in
flattening order. Keys follow the tf.function guide:

- a tensor (or numpy array, converted to one) -> its shape and dtype;
- a Variable -> its identity; any other object -> its identity; both held weakly (`IdRef`);
- a Python primitive (None, bool, int, float, complex, str, bytes) -> its type and value;
- a list, tuple, dict or namedtuple -> its structure plus the keys of its items.
"""
import inspect
import weakref

import numpy as np

from runtime.tensor import Tensor
from runtime.tensor import TensorSpec
from runtime.tensor import convert_to_tensor

_PRIMITIVES = (type(None), bool, int, float, complex, str, bytes)

# Leaf kinds, stored in Leaf.kind.
TENSOR = "tensor"  # payload: TensorSpec (shape, dtype)
VARIABLE = "variable"  # payload: IdRef to the Variable
PYTHON = "python"  # payload: the primitive value
OBJECT = "object"  # payload: IdRef to the object

_variable_class = None


def _variable_type():
    """Returns runtime.variables.Variable, or a placeholder class while it does not exist."""
    global _variable_class
    if _variable_class is None:
        try:
            from runtime.variables import Variable
        except ImportError:
            return _NoVariable
        _variable_class = Variable
    return _variable_class


class _NoVariable:
    """Stands for the Variable class until runtime.variables exists (matches nothing)."""


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
            return (TENSOR, payload.shape, payload.dtype)
        if self.kind == PYTHON:
            return (PYTHON, type(payload), payload)
        return (self.kind, payload)

    def __repr__(self):
        return f"Leaf({self.path}, {self.kind}, {self.payload!r})"


# -- nesting ----------------------------------------------------------------------------------

def is_namedtuple(value):
    """True for instances of classes made by collections.namedtuple / typing.NamedTuple."""
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_nested(value):
    """True for the containers that are flattened: list, tuple, dict (and subclasses)."""
    return isinstance(value, (list, tuple, dict))


def _sorted_keys(mapping):
    try:
        return sorted(mapping)
    except TypeError:
        return list(mapping)


def children(value):
    """Returns the items of a nested value in flattening order (dicts by sorted key).

    Args:
        value: A list, tuple or dict.

    Returns:
        A list of (path suffix, item) pairs.
    """
    if isinstance(value, dict):
        return [(f"[{k!r}]", value[k]) for k in _sorted_keys(value)]
    if is_namedtuple(value):
        return [(f".{f}", v) for f, v in zip(type(value)._fields, value)]
    return [(f"[{i}]", v) for i, v in enumerate(value)]


def rebuild(value, items):
    """Returns a container like `value` holding `items` (in flattening order).

    Args:
        value: The original list, tuple or dict.
        items: The new items.

    Returns:
        The new container.
    """
    if isinstance(value, dict):
        new = dict(zip(_sorted_keys(value), items))
        ordered = {k: new[k] for k in value}
        try:
            return type(value)(ordered)
        except TypeError:
            return ordered
    if is_namedtuple(value):
        return type(value)(*items)
    try:
        return type(value)(items)
    except TypeError:
        return tuple(items) if isinstance(value, tuple) else list(items)


def flatten(value):
    """Returns the leaves of a nested structure, in order.

    Args:
        value: Any value; lists, tuples and dicts are descended into.

    Returns:
        A list of leaves.
    """
    if not is_nested(value):
        return [value]
    out = []
    for _, item in children(value):
        out.extend(flatten(item))
    return out


def map_structure(fn, value):
    """Applies `fn` to every leaf, in flattening order, and rebuilds the structure.

    Args:
        fn: A callable taking a leaf.
        value: A nested structure.

    Returns:
        The structure with each leaf replaced by `fn(leaf)`.
    """
    if not is_nested(value):
        return fn(value)
    return rebuild(value, [map_structure(fn, item) for _, item in children(value)])


def pack_sequence_as(structure, flat):
    """Fills `structure`'s leaves with the items of `flat`, in order.

    Args:
        structure: A nested structure.
        flat: A sequence with one item per leaf.

    Returns:
        The new structure.
    """
    items = iter(flat)
    return map_structure(lambda _: next(items), structure)


# -- binding ----------------------------------------------------------------------------------

class ArgSpec:
    """The parameters of a Python function, and the binding of call arguments to them.

    Args:
        fn: The Python function.
        name: The name used in messages.
        drop_first: True for methods bound to an instance: the first parameter (self) is
            supplied by the binding, not by callers.
    """

    def __init__(self, fn, name, drop_first=False):
        self.name = name
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            sig = inspect.Signature([
                inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])
        params = list(sig.parameters.values())
        if drop_first and params and params[0].kind in (
                inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            params = params[1:]
        self.signature = sig.replace(parameters=params)
        kinds = inspect.Parameter
        self.positional = [p.name for p in params
                           if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)]
        self.var_positional = next((p.name for p in params if p.kind == kinds.VAR_POSITIONAL),
                                   None)
        self.keyword_only = [p.name for p in params if p.kind == kinds.KEYWORD_ONLY]
        self.var_keyword = next((p.name for p in params if p.kind == kinds.VAR_KEYWORD), None)

    def canonicalize(self, args, kwargs, partial=False):
        """Binds call arguments to parameters, applying defaults.

        Args:
            args: The positional arguments.
            kwargs: The keyword arguments.
            partial: Allow missing arguments (they are left out).

        Returns:
            (positional values, their names, keyword dict): positional-or-keyword parameters
            (and *args items, named 'args_0', ...) become positional; keyword-only and
            **kwargs items go in the dict, sorted by name.

        Raises:
            TypeError: if the arguments do not fit the signature.
        """
        try:
            if partial:
                bound = self.signature.bind_partial(*args, **kwargs)
            else:
                bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.name}{self.signature}: {e}.") from None
        bound.apply_defaults()
        arguments = bound.arguments
        values, names = [], []
        for name in self.positional:
            if name in arguments:
                values.append(arguments[name])
                names.append(name)
        if self.var_positional is not None:
            for i, value in enumerate(arguments.get(self.var_positional, ())):
                values.append(value)
                names.append(f"{self.var_positional}_{i}")
        keywords = {name: arguments[name] for name in self.keyword_only if name in arguments}
        if self.var_keyword is not None:
            keywords.update(arguments.get(self.var_keyword, {}))
        keywords = {k: keywords[k] for k in sorted(keywords)}
        return values, names, keywords


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


def _walk(value, path, name, leaves, variable_type):
    if isinstance(value, Tensor):
        leaves.append(Leaf(path, TENSOR, TensorSpec(value.shape, value.dtype), name))
        return leaves[-1].key()
    if isinstance(value, TensorSpec):
        leaves.append(Leaf(path, TENSOR, TensorSpec(value.shape, value.dtype), name))
        return leaves[-1].key()
    if type(value) in _PRIMITIVES:
        leaves.append(Leaf(path, PYTHON, value, name))
        return leaves[-1].key()
    if isinstance(value, variable_type):
        leaves.append(Leaf(path, VARIABLE, IdRef(value), name))
        return leaves[-1].key()
    if is_nested(value):
        items = children(value)
        kind = type(value) if is_namedtuple(value) else (
            dict if isinstance(value, dict) else list if isinstance(value, list) else tuple)
        head = (kind, tuple(s for s, _ in items))
        return head + tuple(_walk(v, path + s, name, leaves, variable_type) for s, v in items)
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
    variable_type = _variable_type()
    key = [_walk(v, n, n, leaves, variable_type) for v, n in zip(values, names)]
    for k, v in keywords.items():
        key.append((k, _walk(v, k, k, leaves, variable_type)))
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
        items = ", ".join(f"[{k!r}, {describe_structure(value[k])}]" for k in _sorted_keys(value))
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


def spec_accepts(spec, value_spec):
    """True when a value with TensorSpec `value_spec` may be fed where `spec` is expected.

    Args:
        spec: The expected TensorSpec (None dims and None shape are wildcards).
        value_spec: The TensorSpec of the value.

    Returns:
        A Python bool.
    """
    if spec.dtype is not value_spec.dtype:
        return False
    if spec.shape is None:
        return True
    if value_spec.shape is None:
        return False
    if len(spec.shape) != len(value_spec.shape):
        return False
    return all(a is None or a == b for a, b in zip(spec.shape, value_spec.shape))


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
