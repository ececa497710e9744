"""The differential fuzzer under torch.export: a generated program, converted and exported
with torch tensors for its parameters, must agree with plain Python on every input.

Each program is exported once (`autograph.backends.torch.export`, non-strict) with its first
input, and the exported program runs every input, each taking its own path through the
staged `torch.cond` and `torch.while_loop`: the same graph must be right on all of them.
Ints are int64 tensors and floats float32 (torch's defaults for `torch.tensor` of a Python
number), bools bool tensors; a vector is a float32 tensor of shape (3,), an int vector an
int64 one of shape (4,), an int matrix an int64 one of shape (2, 3). A failed staged check
raises the exception plain Python raises (AssertionError, UnboundLocalError). Augmented
assignments are written out of place first (`out_of_place`): the same program on Python
numbers, and the one that means it on torch tensors.

Used by tests/torch/test_fuzz_torch.py (a few hundred programs in the suite) and by
`python -m tests.fuzz --backend torch` (the long run).
"""

import ast

import torch

import autograph as ag
from autograph.backends import torch as ag_torch
from tests.fuzz import harness
from tests.fuzz import stageability

# per run, the export included: the nested torch.cond of a large program takes seconds to trace
EXPORT_LIMIT_S = 60.0
_DTYPES = {'int': torch.int64, 'float': torch.float32, 'bool': torch.bool,
           'vec': torch.float32, 'ivec': torch.int64, 'imat': torch.int64}


def to_tensors(args, param_types):
    """The Python inputs as tensors of each parameter's dtype."""
    return tuple(torch.tensor(a, dtype=_DTYPES[t]) for a, t in zip(args, param_types))


def to_python(value, like):
    """Tensors -> Python values of the type plain Python gave (bool/int/float)."""
    if isinstance(value, torch.Tensor):
        if type(value) is not torch.Tensor:  # a fake tensor of the trace: a failure
            return repr(value)
        value = value.detach().numpy()
    value = harness.to_python(value)
    if isinstance(like, (list, tuple)) and isinstance(value, (list, tuple)):
        return type(like)(to_python(v, l) for v, l in zip(value, like))
    if type(like) in (bool, int, float) and type(value) in (bool, int, float):
        return type(like)(value) if type(value) is not float or type(like) is float else value
    return value


class _Exported:
    """Exports `fn` on its first call; runs the exported program on every call."""

    def __init__(self, fn):
        self.fn = fn
        self.module = None

    def __call__(self, *args):
        if self.module is None:
            self.module = ag_torch.export(self.fn, args).module()
        return self.module(*args)


def _list_limitation(actual):
    """The documented StagingError for a list that grows under staged control flow: a
    torch.while_loop or torch.cond carries tensors of fixed shapes (docs/torch.md)."""
    return actual.exc_type is not None and issubclass(actual.exc_type, ag.StagingError) and (
        'cannot change its size inside a staged loop' in actual.exc_msg
        or 'cannot make it a staged list without a bound' in actual.exc_msg)


def _compare(expected, actual):
    """None when the staged run agrees with plain Python, else (kind, detail)."""
    if expected.exc_type is not actual.exc_type:
        return 'exception', 'expected {}({!r}), got {}({!r})'.format(
            expected.exc_type, expected.exc_msg, actual.exc_type, actual.exc_msg)
    if not harness._same_stdout(expected.stdout, actual.stdout):  # pylint: disable=protected-access
        return 'stdout', '{!r} != {!r}'.format(expected.stdout[-200:], actual.stdout[-200:])
    if actual.exc_type is None:
        result = to_python(actual.result, expected.result)
        if not harness._same_value(expected.result, result):  # pylint: disable=protected-access
            return 'result', 'expected {!r}, got {!r}'.format(expected.result, result)
    return None


class _OutOfPlace(ast.NodeTransformer):
    """`x op= e` -> `x = x op e`: the same program on Python numbers, which are immutable;
    on torch tensors `x op= e` changes x in place, under every name that holds it."""

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            return node
        load = ast.Name(id=node.target.id, ctx=ast.Load())
        return ast.copy_location(ast.Assign(targets=[node.target], value=ast.BinOp(
            left=load, op=node.op, right=node.value)), node)


def out_of_place(source):
    """The program with each augmented assignment to a name written out of place.

    A generated program means Python's numbers: `v = a; v -= 4` leaves `a` as it was. With
    torch tensors it changes `a` in place, as plain torch code would, and a tensor that
    comes out of a staged torch.cond or while_loop is a new one, no longer shared, so the
    original program has no single meaning under torch to compare with.
    """
    tree = ast.fix_missing_locations(_OutOfPlace().visit(ast.parse(source)))
    return ast.unparse(tree) + '\n'


def check_exported(fn, inputs, param_types, stats):
    """Compares fn with its exported program on every input; returns a list of Failures."""
    failures = []
    exported = _Exported(fn)
    for args in inputs:
        expected = harness.run(fn, args)
        try:
            actual = harness.run(exported, to_tensors(args, param_types), EXPORT_LIMIT_S)
        except harness.Timeout as e:
            return failures + [harness.Failure('torch', 'timeout', args, str(e))]
        if _list_limitation(actual):
            stats['limitation: a list grows in a torch-staged loop or if'] += 1
            return failures
        if exported.module is None:
            # export itself raised: the error Python raises, found while tracing (the
            # staged prints before it never ran), or a failure
            if harness._trace_time_error(expected, actual):  # pylint: disable=protected-access
                stats['limitation: trace-time error, prints before it not run'] += 1
                return failures
            if harness._trace_time_error_after_assert(  # pylint: disable=protected-access
                    expected, actual):
                stats['limitation: trace-time error, a staged assert before it not run'] += 1
                return failures
        stats['exported'] += 1
        difference = _compare(expected, actual)
        if difference:
            failures.append(harness.Failure('torch', difference[0], args, difference[1]))
        if exported.module is None:
            return failures
    return failures


def check_program(program, stats):
    """Runs one generator Program under torch.export; returns a list of Failures."""
    source = out_of_place(program.source)
    fn, filename = harness.load(source, program.name)
    try:
        report = stageability.analyse(source, program.name)
        stats['programs'] += 1
        if not report.traceable:
            return []
        stats['traceable'] += 1
        return check_exported(fn, program.inputs, program.param_types, stats)
    finally:
        harness.unload(filename)

