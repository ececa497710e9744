"""runtime.function_signature.ArgSpec.canonicalize: binding call arguments to parameters."""
import pytest

from runtime.function_signature import ArgSpec


def two(a, b):
    return a, b


def positional_only(a, /, b):
    return a, b


def with_default(a, b=2):
    return a, b


def with_rest(a, *rest, k=1, **options):
    return a, rest, k, options


class Method:
    def run(self, a, b):
        return a, b


def _bound(fn, args, kwargs, drop_first=False):
    """What inspect's binding gives, in canonicalize's form."""
    spec = ArgSpec(fn, fn.__name__, drop_first=drop_first)
    bound = spec.signature.bind(*args, **kwargs)
    bound.apply_defaults()
    values = [bound.arguments[n] for n in spec.positional if n in bound.arguments]
    names = [n for n in spec.positional if n in bound.arguments]
    if spec.var_positional:
        rest = bound.arguments.get(spec.var_positional, ())
        values += list(rest)
        names += [f"{spec.var_positional}_{i}" for i in range(len(rest))]
    keywords = {n: bound.arguments[n] for n in spec.keyword_only if n in bound.arguments}
    keywords.update(bound.arguments.get(spec.var_keyword, {}) if spec.var_keyword else {})
    return values, names, dict(sorted(keywords.items()))


@pytest.mark.parametrize("fn, args, kwargs, drop_first", [
    (two, (1, 2), {}, False),  # every parameter given positionally: bound without inspect
    (two, (1,), {"b": 2}, False),
    (positional_only, (1, 2), {}, False),
    (with_default, (1,), {}, False),
    (with_default, (1, 3), {}, False),
    (with_rest, (1, 2, 3), {"z": 4}, False),
    (with_rest, (1,), {}, False),
    (Method.run, (1, 2), {}, True),
])
def test_canonicalize_binds_as_inspect_does(fn, args, kwargs, drop_first):
    spec = ArgSpec(fn, fn.__name__, drop_first=drop_first)
    assert spec.canonicalize(args, kwargs) == _bound(fn, args, kwargs, drop_first)


def test_a_wrong_number_of_arguments_still_raises():
    spec = ArgSpec(two, "two")
    with pytest.raises(TypeError, match="missing a required argument: 'b'"):
        spec.canonicalize((1,), {})
    with pytest.raises(TypeError, match="too many positional arguments"):
        spec.canonicalize((1, 2, 3), {})
