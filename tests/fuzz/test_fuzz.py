"""Differential fuzzing: generated programs run plain, converted and traced must all agree.

The CI budget is FUZZ_PROGRAMS programs from a fixed seed; `python -m tests.fuzz` runs longer
and shrinks failures. Also tests the fuzzer itself (generator, stageability analysis, harness,
shrinker) so that a broken fuzzer cannot pass silently, and runs the regression corpus.
"""

import ast
import collections
import re

import pytest

import autograph as ag
from tests.fuzz import harness
from tests.fuzz import realcode_features
from tests.fuzz import shrink
from tests.fuzz import stageability
from tests.fuzz.generator import ALL_FEATURES
from tests.fuzz.generator import generate
from tests.fuzz.regressions import REGRESSIONS

FUZZ_PROGRAMS = 2000
CHUNK = 100
SEED = "ci"
# Small programs keep the CI budget (conversion costs a few ms per source line).
CI_SIZE = dict(max_stmts=6, max_locals=4, max_helpers=1)


def _seeds(chunk):
    return ["{}:{}".format(SEED, i) for i in range(chunk * CHUNK, (chunk + 1) * CHUNK)]


@pytest.mark.parametrize("chunk", range(FUZZ_PROGRAMS // CHUNK))
def test_generated_programs_agree(chunk):
    stats = collections.Counter()
    problems = []
    for seed in _seeds(chunk):
        program = generate(seed, **CI_SIZE)
        failures = harness.check_program(program, stats=stats)
        if failures:
            problems.append("seed {!r}: {}\n{}".format(seed, failures[0], program.source))
    assert not problems, (
        "{} of {} programs disagree (shrink with `python -m tests.fuzz`):\n\n{}".format(
            len(problems), CHUNK, "\n".join(problems[:3])))
    assert stats["programs"] == CHUNK
    # Most programs must really be traced, or the third way would test nothing.
    assert stats["traceable"] >= 0.8 * CHUNK, stats


def _regression_params():
    params = []
    for r in REGRESSIONS:
        marks = [pytest.mark.xfail(reason=r.xfail, strict=True)] if r.xfail else []
        params.append(pytest.param(r, id=r.name, marks=marks))
    return params


@pytest.mark.parametrize("regression", _regression_params())
def test_regression(regression):
    # A known bug must show as a failure, not as an accepted limitation.
    failures = harness.check_source(regression.source.lstrip("\n"), regression.inputs,
                                    regression.param_types, accept=regression.xfail is None,
                                    known_bugs=False)
    assert not failures, "\n".join(map(str, failures))


# -- the fuzzer itself -------------------------------------------------------------------------

def test_generator_is_deterministic():
    assert generate("x:1").source == generate("x:1").source
    assert generate("x:1").inputs == generate("x:1").inputs
    assert generate("x:1").source != generate("x:2").source


def test_generator_covers_every_feature():
    text = "\n".join(generate("cov:{}".format(i), **CI_SIZE).source for i in range(300))
    features = {
        "if": r"^\s+if ", "elif": r"^\s+elif ", "else": r"^\s+else:", "while": r"^\s+while ",
        "for range": r"for i\d+ in range\(", "break": r"^\s+break$",
        "continue": r"^\s+continue$", "early return": r"^\s{8,}return ", "and": r" and ",
        "or": r" or ", "not": r"not ", "ternary": r" if .* else ", "augmented": r" [-+*/%]+= ",
        "closure": r"def h\d+\(t\)", "nonlocal": r"nonlocal ", "lambda": r"lambda t:",
        "print": r"print\(", "float": r"\d\.\d", "bool": r"\bTrue\b|\bFalse\b",
        "variable first assigned in a branch or loop": r"^\s+u\d+ = ",
        "while True": r"^\s+while True:$",
        "while True with a staged break": r"if k\d+ > [abx] % \d:",
        "chained comparison": r"[<>=] \S+ [<>=!]=? ",
        "vector parameter": r"def fuzz_fn\(.*\bw\):",
        "reductions in conditions": r"(if|and|or) .*reduce_(sum|max|mean)\(w\)",
        "for x in vector": r"for x\d+ in w:", "enumerate": r"in enumerate\(w\):",
        "list appended in a loop": r"^\s+l\d+\.append\(",
        "list stacked": r"reduce_sum\(stack\(l\d+\)\)",
        "module-level helper": r"^def g\d+\(t\):",
        "module helper with a loop": r"^    (while k|for j) ",
        "early return of a tuple": r"^\s{8,}return \(.*,\)$",
        "matrix parameter read at two indices": r"\bm\[-?\(?\w+ % 2\)?( - 1)?, ",
        "match statement": r"^\s+match ", "case with a guard": r"^\s+case c\d+ if ",
        "or-pattern": r"^\s+case -?\d \| -?\d:", "wildcard case": r"^\s+case _:",
    }
    missing = [k for k, pattern in features.items() if not re.search(pattern, text, re.M)]
    assert not missing
    # Helpers (closures, lambdas, module-level functions) are called inside loops.
    assert _helper_called_in_a_loop(text.splitlines())


def _helper_called_in_a_loop(lines):
    """Whether a line inside a loop body of fuzz_fn calls a helper (h1(...) or g1(...))."""
    loop_indent = None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if loop_indent is not None and indent <= loop_indent:
            loop_indent = None
        if loop_indent is None and re.match(r"\s+(for|while) ", line):
            loop_indent = indent
        elif loop_indent is not None and re.search(r"\b[hg]\d+\(", line):
            return True
    return False


def test_generator_features_switch():
    text = "\n".join(generate("feat:{}".format(i), features=ALL_FEATURES).source
                     for i in range(300))
    assert re.search(r"[<>=] \S+ [<>=!]=? ", text)  # a chained comparison
    plain = "\n".join(generate("feat:{}".format(i), features=()).source for i in range(300))
    assert not re.search(r"while True|\bu\d+ = ", plain)
    with pytest.raises(ValueError, match="unknown fuzz features"):
        generate("x", features=("chained", "nope"))


def test_trace_time_errors_after_staged_side_effects_agree():
    # Each was once a disagreement, counted as a limitation or a known bug.
    sources = [
        # An undefined read inside a staged branch raised while tracing.
        "def fuzz_fn(a):\n    v = 0\n    if a > 0:\n        if False:\n            u = 1\n"
        "        v = u\n    return v\n",
        # A staged print before a trace-time error never ran.
        "def fuzz_fn(a):\n    if a > 0:\n        print('p', a)\n    if False:\n"
        "        u = 1\n    return u\n",
        # Found by the 20,000-program run (seed '20261123:572'): plain Python fails the
        # assert; tracing raised the UnboundLocalError after it at once.
        "def fuzz_fn(a):\n    assert a > 1, 'a'\n    if False:\n        u = 1\n    return u\n",
    ]
    for src in sources:
        stats = collections.Counter()
        assert harness.check_source(src, [(-1,), (1,), (2,)], ("int",), stats=stats,
                                    known_bugs=False) == []
        assert stats["traced"] == 3, stats
    assert harness._trace_time_error_after_assert(  # pylint: disable=protected-access
        harness.Outcome(None, AssertionError, "a", ""),
        harness.Outcome(None, UnboundLocalError, "cannot access", ""))


def test_generated_programs_are_valid_and_terminate():
    for i in range(50):
        program = generate("valid:{}".format(i))
        ast.parse(program.source)
        fn, filename = harness.load(program.source)
        try:
            for args in program.inputs:
                outcome = harness.run(fn, args)
                assert outcome.exc_type in (None, AssertionError, UnboundLocalError,
                                            *realcode_features.RAISED), outcome
        finally:
            harness.unload(filename)


def test_stageability_hard_problems():
    report = stageability.analyse("def fuzz_fn(a):\n    print('x', a)\n    return a\n")
    assert report.hard == ["print outside staged control flow (line 2)"]
    report = stageability.analyse(
        "def fuzz_fn(a):\n    if a > 0:\n        print('x', a)\n    return a\n")
    assert report.traceable and not report.soft


def test_stageability_has_no_soft_problems_left():
    # Issue #11: each of these was a documented limitation (a staged break in a Python loop, a
    # Python while whose exit turns staged, a return in one staged branch only); now each is
    # traced and must agree with plain Python.
    sources = [
        "def fuzz_fn(a):\n    for i in range(3):\n        if a > i:\n            break\n"
        "    return a\n",
        "def fuzz_fn(a):\n    v = 0\n    if a > 0:\n        v = 1\n    k = 0\n"
        "    while k < 3:\n        k += 1\n        if v > 0:\n            break\n    return v\n",
        "def fuzz_fn(a):\n    if a > 0:\n        if a > 5:\n            return 1\n    return 3\n",
    ]
    for src in sources:
        report = stageability.analyse(src)
        assert report.traceable and not report.soft
        assert not report.accepts("depends on a staged value")
        stats = collections.Counter()
        assert harness.check_source(src, [(-1,), (1,), (7,)], ("int",), stats=stats) == []
        assert stats["traced"] == 3, stats


def test_harness_reports_each_kind_of_difference(monkeypatch):
    src = "def fuzz_fn(a):\n    if a > 0:\n        print('p', a)\n    return a * 2\n"
    assert harness.check_source(src, [(1,), (-1,)], ("int",)) == []

    def wrong(fn):
        def converted(a):
            if a < 0:
                print("extra")
            return fn(a) + (1 if a > 0 else 0)
        return converted

    monkeypatch.setattr(ag, "convert", wrong)
    failures = harness.check_source(src, [(1,), (-1,)], ("int",), modes=("converted",))
    assert [(f.kind, f.args) for f in failures] == [("result", (1,)), ("stdout", (-1,))]


def test_harness_compares_traced_output_with_float_tolerance():
    assert harness._same_stdout("L 2.0 True\n", "L 2 True\n")
    assert not harness._same_stdout("L 2.5\n", "L 2\n")
    assert not harness._same_stdout("a\nb\n", "b\na\n")
    assert harness._same_value((1, 0.1, True), (1, 0.100000001, True))
    assert not harness._same_value((1, True), (1, 1))


def test_shrinker_finds_the_minimal_program(monkeypatch):
    # A deliberately broken "converter" that gets `%` wrong: the shrinker must keep the `%`.
    def broken(fn):
        source = __import__("inspect").getsource(fn)
        return (lambda *a: fn(*a) + 1) if "%" in source else fn

    monkeypatch.setattr(ag, "convert", broken)
    src = ("def fuzz_fn(a):\n    v = a + 1\n    w = 3\n    if a > 2:\n        w = w + 1\n"
           "    v = (v * 2) % 7\n    return v\n")
    failures = harness.check_source(src, [(1,), (4,)], ("int",), modes=("converted",))
    assert failures
    small, inputs = shrink.shrink(src, [(1,), (4,)], ("int",), failures[0])
    # `v = a` stays: without it both ways raise UnboundLocalError, which is no longer the bug.
    assert small == "def fuzz_fn(a):\n    v = a\n    v = v % 7\n    return v\n"
    assert len(inputs) == 1
