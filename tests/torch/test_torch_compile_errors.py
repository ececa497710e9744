"""What `ag_torch.compile` raises when the converted code raises while dynamo traces it: the
user's exception, from the user's line, as the unconverted function raises it (dynamo raised
"Unsupported output type for nonstrict_trace-ed function", naming autograph's wrapper and
hiding the user's exception); and branches of different shapes compile (dynamo refused the
size that the staged torch.cond made: "Pending unbacked symbols").

PYTEST_DONT_REWRITE: the asserts of the functions below keep Python's messages."""

import traceback

import pytest
import torch

from autograph.backends import torch as ag_torch


def checks_its_argument(x, k):
    assert k > 0, 'k must be positive'
    if x.sum() > 0:
        x = x * k
    return x


def reads_an_undefined_name(x):
    if x.sum() > 0:
        x = x * 2
    return x + undefined_name  # pylint: disable=undefined-variable  # noqa: F821


class Checks(torch.nn.Module):
    def forward(self, x, k):
        assert k > 0, 'k must be positive'
        return x * k


def _raised(call):
    with pytest.raises(Exception) as info:
        call()
    return info.value


@pytest.mark.parametrize('fn, args', [
    (checks_its_argument, (torch.ones(3), 0)),
    (reads_an_undefined_name, (torch.ones(3),)),
    (Checks(), (torch.ones(3), 0)),
])
def test_the_users_exception_is_raised_from_the_users_line(fn, args):
    plain = _raised(lambda: fn(*args))
    compiled = ag_torch.compile(fn, backend='aot_eager')
    error = _raised(lambda: compiled(*args))
    assert type(error) is type(plain)
    assert str(error) == str(plain)
    frames = traceback.extract_tb(error.__traceback__)
    assert frames[-1].filename == __file__
    assert frames[-1].line == traceback.extract_tb(plain.__traceback__)[-1].line


def _broken_backend(graph, inputs):
    raise ValueError('this backend is broken')


def test_other_errors_are_torchs_own():
    # an error raised outside the converted code passes through as torch raised it
    compiled = ag_torch.compile(checks_its_argument, backend=_broken_backend)
    error = _raised(lambda: compiled(torch.ones(3), 1))
    assert isinstance(error, torch._dynamo.exc.BackendCompilerFailed)
    assert 'this backend is broken' in str(error)


def different_shapes(x):
    if x.sum() > 0:
        y = torch.cat([x, x])
    else:
        y = x
    return y * 2


def different_shapes_summed(x):
    return different_shapes(x).sum()


@pytest.mark.parametrize('fn', [different_shapes, different_shapes_summed])
def test_branches_of_different_shapes_compile(fn):
    compiled = ag_torch.compile(fn, backend='aot_eager')
    for x in (torch.ones(2), -torch.ones(2)):
        torch.testing.assert_close(compiled(x), fn(x))


def describes(x):
    if x.sum() > 0:
        x = x * 2
    return 'total: ' + str(x.sum())


@pytest.mark.parametrize('way', ['export', 'compile'])
def test_a_text_of_a_staged_value_returned_says_what_to_do(way):
    # torch said "Found <class '...StagedMessage'> in output, which is not a known type. If
    # this type holds tensors, you need to register a pytree for it"
    x = torch.ones(3)
    if way == 'export':
        error = _raised(lambda: ag_torch.export(describes, (x,)))
    else:
        error = _raised(lambda: ag_torch.compile(describes, fullgraph=True)(x))
    assert type(error).__name__ == 'StagingError', repr(error)
    message = str(error)
    assert "'describes'" in message and "returns the text 'total: {...}'" in message
    assert '{}:{}'.format(__file__, describes.__code__.co_firstlineno) in message
    assert 'Return the value itself' in message
    assert describes(x) == 'total: tensor(6.)'  # eager: plain Python
