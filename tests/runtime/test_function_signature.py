"""runtime.function_signature.ArgSpec.canonicalize: binding call arguments to parameters."""
import pytest

from runtime.function.signature import ArgSpec


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


def _wrapped(a, b):
    return a, b


def _with_signature(*args):
    return args


_with_signature.__signature__ = __import__("inspect").signature(two)


def _kinds(spec):
    return spec.positional, spec.var_positional, spec.keyword_only, spec.var_keyword


def _inspected(fn, drop_first):
    """The parameter kinds as inspect.signature gives them."""
    import inspect  # pylint: disable=import-outside-toplevel
    params = list(inspect.signature(fn).parameters.values())
    if drop_first and params and params[0].kind in (params[0].POSITIONAL_ONLY,
                                                    params[0].POSITIONAL_OR_KEYWORD):
        params = params[1:]
    kinds = inspect.Parameter
    return ([p.name for p in params if p.kind in (kinds.POSITIONAL_ONLY,
                                                  kinds.POSITIONAL_OR_KEYWORD)],
            next((p.name for p in params if p.kind == kinds.VAR_POSITIONAL), None),
            [p.name for p in params if p.kind == kinds.KEYWORD_ONLY],
            next((p.name for p in params if p.kind == kinds.VAR_KEYWORD), None))


@pytest.mark.parametrize("drop_first", [False, True])
@pytest.mark.parametrize("fn", [
    two, positional_only, with_default, with_rest, Method.run, lambda *a, **k: None,
    lambda *, k: k, lambda x, *, k, **rest: x, __import__("functools").wraps(two)(_wrapped),
    _with_signature, len, __import__("functools").partial(with_rest, 1)])
def test_parameters_read_off_the_code_are_inspects(fn, drop_first):
    # A plain function's parameters come from its code object; a wrapper (__wrapped__), a
    # __signature__ or another callable go through inspect.signature: the same either way.
    spec = ArgSpec(fn, "f", drop_first=drop_first)
    try:
        want = _inspected(fn, drop_first)
    except ValueError:  # a builtin without a signature: (*args, **kwargs)
        want = ([], "args", [], "kwargs")
    assert _kinds(spec) == want
    assert list(spec.signature.parameters) == [
        n for n in (*want[0], want[1], *want[2], want[3]) if n is not None]
