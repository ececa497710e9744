"""Signature binding for runtime.function: call arguments to parameters, input_signature checks.

`ArgSpec.canonicalize` binds a call's arguments to the Python function's parameters (positional
values with their names, keywords sorted by name). The `input_signature` helpers check a
signature when a Function is made and conform call arguments to it.
"""
import inspect
import types

from runtime import nest
from runtime.tensor import Tensor
from runtime.tensor import TensorSpec
from runtime.tensor_conversion import convert_to_tensor
from runtime.variables import Variable

__all__ = ["ArgSpec", "check_input_signature", "conform", "incompatible_message", "find_spec",
           "spec_accepts"]


def _plain_parameters(fn):
    """(positional names, *args name, keyword-only names, **kwargs name) of a plain function,
    read off its code object; None where inspect.signature decides (a wrapper with
    `__wrapped__`, a `__signature__`, a callable that is no Python function)."""
    if type(fn) is not types.FunctionType:
        return None
    attributes = fn.__dict__
    if "__wrapped__" in attributes or "__signature__" in attributes:
        return None
    code = fn.__code__
    names = code.co_varnames
    count = code.co_argcount
    end = count + code.co_kwonlyargcount
    var_positional = var_keyword = None
    if code.co_flags & inspect.CO_VARARGS:
        var_positional = names[end]
        end += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        var_keyword = names[end]
    keyword_only = list(names[count:count + code.co_kwonlyargcount])
    return list(names[:count]), var_positional, keyword_only, var_keyword


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
        self._fn = fn
        self._drop_first = drop_first
        self._signature = None
        plain = _plain_parameters(fn)
        if plain is None:
            params = list(self.signature.parameters.values())
            kinds = inspect.Parameter
            self.positional = [p.name for p in params
                               if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)]
            self.var_positional = next(
                (p.name for p in params if p.kind == kinds.VAR_POSITIONAL), None)
            self.keyword_only = [p.name for p in params if p.kind == kinds.KEYWORD_ONLY]
            self.var_keyword = next((p.name for p in params if p.kind == kinds.VAR_KEYWORD),
                                    None)
        else:
            self.positional, self.var_positional, self.keyword_only, self.var_keyword = plain
            if drop_first and self.positional:
                self.positional = self.positional[1:]
        # every parameter positional (no *args, keyword-only or **kwargs): a call giving each
        # one positionally binds without inspect's (slow) binding
        self._all_positional = (self.var_positional is None and not self.keyword_only
                                and self.var_keyword is None)

    @property
    def signature(self):
        """The inspect.Signature of the parameters (without the bound first one), made on first
        use: a plain function's names come from its code object (inspect.signature was 60 us
        of a fresh process's first call)."""
        if self._signature is None:
            try:
                sig = inspect.signature(self._fn)
            except (TypeError, ValueError):
                sig = inspect.Signature([
                    inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                    inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])
            params = list(sig.parameters.values())
            if self._drop_first and params and params[0].kind in (
                    inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
                params = params[1:]
            self._signature = sig.replace(parameters=params)
        return self._signature

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
        if not kwargs and self._all_positional and len(args) == len(self.positional):
            return list(args), list(self.positional), {}
        if kwargs:
            self._check_keywords(kwargs)
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


# -- input_signature ---------------------------------------------------------------------------

    def _check_keywords(self, kwargs):
        """Reports an unknown keyword as unknown, as Python does (bind says 'missing')."""
        params = self.signature.parameters
        if any(p.kind is p.VAR_KEYWORD for p in params.values()):
            return
        for name in kwargs:
            param = params.get(name)
            if param is None or param.kind is param.POSITIONAL_ONLY:
                raise TypeError(f"{self.name}{self.signature}: got an unexpected keyword "
                                f"argument {name!r}.")

def check_input_signature(signature):
    """Checks an input_signature given to tf.function.

    Args:
        signature: None, or a list or tuple of (nested) TensorSpecs.

    Returns:
        None, or the signature as a tuple.

    Raises:
        TypeError: if `signature` is not a sequence of (nested) TensorSpecs.
    """
    if signature is None:
        return None
    if isinstance(signature, TensorSpec) or not isinstance(signature, (list, tuple)):
        raise TypeError(f"input_signature must be a list or tuple of TensorSpecs, found "
                        f"{signature!r}. Write input_signature=[tf.TensorSpec(...)].")
    for spec in nest.flatten(list(signature)):
        if not isinstance(spec, TensorSpec):
            raise TypeError(f"input_signature must contain only (nested) TensorSpecs, found "
                            f"{type(spec).__name__}: {spec!r}.")
    return tuple(signature)


def conform(value, spec):
    """Returns `value` (nested like `spec`) as tensors compatible with `spec`.

    Args:
        value: A call argument (tensors, Variables, Python values, TensorSpecs; nested).
        spec: The (nested) TensorSpec it must fit.

    Returns:
        The value with its leaves converted to tensors (TensorSpecs stay specs).

    Raises:
        ValueError, TypeError: if the value does not fit.
    """
    if isinstance(spec, TensorSpec):
        if isinstance(value, TensorSpec):
            if not spec_accepts(spec, value):
                raise ValueError("incompatible spec")
            return value
        if isinstance(value, Variable):
            value = value.read_value()
        if not isinstance(value, Tensor):
            value = convert_to_tensor(value, spec.dtype)
        if not spec.is_compatible_with(value):
            raise ValueError("incompatible tensor")
        return value
    if not nest.is_nested(value) or type(nest.is_nested(spec)) is not type(
            nest.is_nested(value)) or len(value) != len(spec):
        raise ValueError("structure mismatch")
    parts = [conform(v, s) for (_, v), (_, s) in zip(nest.children(value),
                                                     nest.children(spec))]
    return nest.rebuild(spec, parts)


def incompatible_message(inputs, signature):
    """The ValueError text for call arguments that do not fit the input_signature."""
    shown = ",\n    ".join(str(v) for v in inputs)
    specs = ",\n    ".join(repr(s) for s in signature)
    return (f"Python inputs incompatible with input_signature:\n  inputs: (\n    {shown})\n"
            f"  input_signature: (\n    {specs}).")


def find_spec(signature, names, path):
    """Returns the top-level TensorSpec of `signature` for the parameter at `path`, or None."""
    for spec, name in zip(signature, names):
        if path == name and isinstance(spec, TensorSpec):
            return spec
    return None


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
