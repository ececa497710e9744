"""The corpus run a sixth way: converted, exported with torch.export, and compiled with
torch.compile(fullgraph=True), on torch tensors (the PyTorch backend), through the shared
harness (tests/corpus/harness.py).

Numbers become 0-d tensors; other arguments stay Python values that the exported function
closes over. Each case is exported once per signature (the Python arguments and the dtypes)
and that program runs every input of that signature, each taking its own path through the
staged control flow. The exported program's module is then compiled with fullgraph=True
(backend "eager": dynamo's capture, which is what fullgraph checks, without a compiler's
cost per case); both must agree with each other and with plain Python.
"""

import contextlib
import io

import pytest
import torch

import autograph as ag
from autograph.backends import torch as ag_torch
from tests.corpus.functions import CORPUS
from tests.corpus.harness import Way
from tests.corpus.harness import check
from tests.corpus.harness import numpy_to_python


def _of_tensors(case, args):
    """(a key for the case and the types of its arguments, `case.fn` as a function of the
    tensors among `args`, the other arguments fixed)."""
    tensors = [isinstance(a, torch.Tensor) for a in args]
    key = (case.fn, repr([a.dtype if t else a for a, t in zip(args, tensors)]))

    def call(*values):
        it = iter(values)
        return case.fn(*[next(it) if t else a for a, t in zip(args, tensors)])
    return key, call


class TorchWay(Way):
    name = 'torch'
    cannot_express = {
        # The exported program changes its input in place (`y = x; y += 2` on a tensor, as
        # eager torch does), so the compiled run after it sees another input and disagrees.
        'augmented_ops': (AssertionError, 'the exported program changes its input'),
        # A staged check that raises UnboundLocalError: the exported program raises it as
        # Python does; torch.compile(fullgraph=True, backend='eager') of the exported module
        # raises torch._dynamo.exc.Unsupported ("Attempt to trace generator") when a staged
        # check fails (an assert's too), so run() sees the two disagree.
        'first_assigned_in_loop': (AssertionError, 'compiled check: Unsupported'),
        'undefined_read_in_a_branch': (AssertionError, 'compiled check: Unsupported'),
        'match_capture_as_and_guard_binding': (AssertionError, 'compiled check: Unsupported'),
        'best_so_far_guarded_by_a_first_flag': (AssertionError, 'compiled check: Unsupported'),
        'or_reads_a_variable_before_it_is_assigned': (AssertionError,
                                                      'compiled check: Unsupported'),
    }
    # What real numeric code does (issue #29). A staged `raise` (raise_unless) and a table or
    # dict read at a traced index (stack) stage: each exported program raises what Python
    # raises, from the run-time values. torch.compile of the exported module raises
    # Unsupported ("Attempt to trace generator") when a staged check or raise fails, so
    # run() sees the two disagree on the inputs that raise.
    real_code = {name: (AssertionError, 'compiled check: Unsupported') for name in (
        'raise_in_staged_branch', 'raise_user_defined_after_a_print',
        'max_and_min_of_generators',  # the ValueError of max() of no element
        'raise_class_and_raise_from', 'raise_in_staged_while',
        'raise_after_a_loop_that_returns', 'raise_in_elif_chain_with_else',
        'raise_in_a_staged_loop_body', 'raise_with_str_in_message',
        'dict_of_numbers_at_a_staged_key', 'tuple_index_out_of_range',
        'searches_of_lists_of_staged_numbers')}
    cannot_express = {**cannot_express, **real_code}

    def __init__(self):
        self._programs = {}  # (function, signature) -> (exported module, compiled module)

    def to_staged(self, value):
        return torch.tensor(value)

    def _programs_for(self, case, args):
        key, call = _of_tensors(case, args)
        if key not in self._programs:
            program = ag_torch.export(call, [a for a in args if isinstance(a, torch.Tensor)])
            module = program.module()
            self._programs[key] = (module, torch.compile(module, fullgraph=True,
                                                         backend='eager'))
        return self._programs[key]

    def run(self, case, args):
        exported, compiled = self._programs_for(case, args)
        inputs = [a for a in args if isinstance(a, torch.Tensor)]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                expected = self.to_python(exported(*inputs))
            except Exception as e:  # noqa: BLE001 - compared with the compiled run's
                expected = e
        printed = out.getvalue()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                result = compiled(*inputs)
            except Exception as e:  # noqa: BLE001
                assert type(e) is type(expected), ('exported and compiled raise apart', e)
                print(printed, end='')
                raise
        assert (self.to_python(result), out.getvalue()) == (expected, printed), (
            'the exported and the compiled program disagree')
        print(printed, end='')
        return result

    def to_python(self, value):
        if isinstance(value, torch.Tensor):
            value = value.detach().cpu().numpy()
        if isinstance(value, (list, tuple)):
            return type(value)(self.to_python(v) for v in value)
        if isinstance(value, dict):
            return {k: self.to_python(v) for k, v in value.items()}
        return numpy_to_python(value)


WAY = TorchWay()


@pytest.mark.parametrize('case', CORPUS, ids=[c.fn.__name__ for c in CORPUS])
def test_exported_and_compiled_match_plain(case):
    check(WAY, case)


def test_cannot_express_is_short_and_current():
    assert set(WAY.cannot_express) <= {c.fn.__name__ for c in CORPUS}
    assert len(set(WAY.cannot_express) - set(WAY.real_code)) <= 10


class CompiledFunctionWay(TorchWay):
    """The converted function compiled itself (`ag_torch.compile`, fullgraph=True, through
    AOTAutograd so that it stages), where `TorchWay` compiles its exported program."""
    name = 'torch-compile'
    cannot_express = {}

    def __init__(self):
        super().__init__()
        self._compiled = {}

    def run(self, case, args):
        key, call = _of_tensors(case, args)
        if key not in self._compiled:
            self._compiled[key] = ag_torch.compile(call, backend='aot_eager')
        return self._compiled[key](*[a for a in args if isinstance(a, torch.Tensor)])


COMPILED_CHECKS = [c for c in CORPUS if TorchWay.cannot_express.get(c.fn.__name__, (None, ''))[1]
                   == 'compiled check: Unsupported']


@pytest.mark.parametrize('case', COMPILED_CHECKS, ids=[c.fn.__name__ for c in COMPILED_CHECKS])
def test_a_failing_staged_check_raises_as_python_when_the_function_is_compiled(case):
    """What `TorchWay` lists as 'compiled check: Unsupported' is torch.compile of an exported
    program's module (docs/torch.md has the reproducer); compiling the converted function
    itself, as `ag_torch.compile` does, raises what Python raises."""
    check(CompiledFunctionWay(), case)


def test_the_compiled_check_list_is_current():
    assert len(COMPILED_CHECKS) == 17
