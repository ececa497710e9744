"""Lowers `match` statements to `if` statements, whose tests the control-flow converter stages.

The subject is evaluated once, into a new name; then each case, in order, tests its pattern,
binds its captures, tests its guard and runs its block, as Python runs them::

    match command:                            subject_ = command
        case 'stop' | 'halt':                 if subject_ == 'stop' or subject_ == 'halt':
            stop()                                stop()
        case Point(x=0) as p:           ->    else:
            origin(p)                             match subject_:
        case other:                                   case Point(x=0) as p:
            log(other)                                    case_ = True
                                                      case _:
                                                          case_ = False
                                                  if case_:
                                                      origin(p)
                                                  else:
                                                      other = subject_
                                                      log(other)

- A pattern made of values, `None`/`True`/`False`, captures, `_`, `as` and `|` becomes a
  test of the subject (`subject_ == value`, `subject_ is None`, joined with `or`; a capture
  binds the subject): with a staged subject (a tensor), the test and so the `if` are staged
  (`match x: case 0: ... case 1: ...` becomes a staged `cond` chain). Python tests a value
  pattern as `subject == value`, and a singleton as `subject is value`: the same.
- Any other pattern (sequence, mapping, class, or an alternative that binds names) is matched
  by Python itself: a `match` statement with that one case, which sets a flag (and binds the
  captures, only when the pattern matches, as Python does). Such a pattern has no staged
  meaning (a tensor is not a sequence; a class pattern's attribute values are compared as
  Python compares them).
- A guard is tested after the captures are bound. When a case has one, a flag records that a
  case ran (`Symbol.MATCH_DONE` in messages) and each later case runs under `if not flag:`;
  otherwise the cases nest as `if`/`else`.

The case blocks become `if` blocks, so `break`, `continue` and `return` in them are lowered
as in any `if` (this converter runs before those converters).
"""

import gast

from autograph.operators.variables import Symbol
from autograph.pyct import templates
from autograph.pyct import transformer


def _binds(pattern):
    """Whether a pattern binds a name (a capture, `as`, `*rest`, `**rest`)."""
    for node in gast.walk(pattern):
        if isinstance(node, (gast.MatchAs, gast.MatchStar)) and node.name is not None:
            return True
        if isinstance(node, gast.MatchMapping) and node.rest is not None:
            return True
    return False


def _testable(pattern):
    """Whether the converter tests `pattern` itself (see the module docstring)."""
    if isinstance(pattern, (gast.MatchValue, gast.MatchSingleton)):
        return True
    if isinstance(pattern, gast.MatchAs):
        return pattern.pattern is None or _testable(pattern.pattern)
    if isinstance(pattern, gast.MatchOr):
        return all(_testable(p) and not _binds(p) for p in pattern.patterns)
    return False


def _irrefutable(pattern):
    """Whether `pattern` matches every subject (Python's rule)."""
    if isinstance(pattern, gast.MatchAs):
        return pattern.pattern is None or _irrefutable(pattern.pattern)
    if isinstance(pattern, gast.MatchOr):
        return any(_irrefutable(p) for p in pattern.patterns)
    return False


def _test(pattern, subject):
    """The test of a testable pattern (None when it always matches) and its capture names."""
    if isinstance(pattern, gast.MatchValue):
        return templates.replace_as_expression(
            'subject == value', subject=subject, value=pattern.value), []
    if isinstance(pattern, gast.MatchSingleton):
        return templates.replace_as_expression(
            'subject is value', subject=subject,
            value=gast.Constant(value=pattern.value, kind=None)), []
    if isinstance(pattern, gast.MatchAs):
        test, names = (None, []) if pattern.pattern is None else _test(pattern.pattern, subject)
        return test, names + ([pattern.name] if pattern.name is not None else [])
    tests = [_test(p, subject)[0] for p in pattern.patterns]  # MatchOr, binding nothing
    if any(t is None for t in tests):
        return None, []
    return gast.BoolOp(op=gast.Or(), values=tests), []


def _matched_by_python(pattern, subject, flag):
    """A `match` statement with the one case `pattern`, which binds its captures and sets
    `flag` (None for a pattern that always matches), and the test of the flag."""
    cases = [gast.match_case(pattern=pattern, guard=None, body=[gast.Pass()])]
    if flag is not None:
        cases[0].body = templates.replace('flag = True', flag=flag)
        cases.append(gast.match_case(pattern=gast.MatchAs(pattern=None, name=None), guard=None,
                                     body=templates.replace('flag = False', flag=flag)))
    native = gast.Match(subject=gast.Name(id=subject, ctx=gast.Load(), annotation=None,
                                          type_comment=None), cases=cases)
    test = None if flag is None else gast.Name(id=flag, ctx=gast.Load(), annotation=None,
                                               type_comment=None)
    return test, [native]


class MatchTransformer(transformer.Base):
    """Lowers `match` statements to `if` statements (see the module docstring)."""

    statements_only = True

    def visit_ClassDef(self, node):
        return node

    def visit_Match(self, node):
        for case in node.cases:
            case.body = self.visit_block(case.body)
        subject = self.ctx.namer.new_symbol('subject_')
        self.ctx.generated_symbols[subject] = Symbol.MATCH_SUBJECT
        statements = templates.replace('subject = value', subject=subject, value=node.subject)
        done = None
        if any(case.guard is not None for case in node.cases):
            done = self.ctx.namer.new_symbol('case_done_')
            self.ctx.generated_symbols[done] = Symbol.MATCH_DONE
            statements += templates.replace('done = False', done=done)
        plans = []  # (case, whether it is testable, its flag), flags named in source order
        for case in node.cases:
            testable, flag = _testable(case.pattern), None
            if not testable and not _irrefutable(case.pattern):
                flag = self.ctx.namer.new_symbol('case_')
                self.ctx.generated_symbols[flag] = Symbol.MATCH_CASE
            plans.append((case, testable, flag))
        rest = []
        for case, testable, flag in reversed(plans):
            rest = self._case(case, testable, flag, subject, done, rest)
        statements += rest
        for statement in statements:
            transformer.set_missing_locations(statement, node)
        return statements

    def _case(self, case, testable, flag, subject, done, rest):
        """The statements of `case`, with `rest` (the later cases) where it does not run."""
        before, bindings = [], []
        if testable:
            test, names = _test(case.pattern, subject)
            for name in names:
                bindings += templates.replace('name = subject', name=name, subject=subject)
        else:
            test, before = _matched_by_python(case.pattern, subject, flag)
        block = case.body
        if done is not None:
            block = templates.replace('done = True', done=done) + block
        if case.guard is not None:
            block = [gast.If(test=case.guard, body=block, orelse=[])]
        block = bindings + block
        if done is not None:
            statements = before + ([gast.If(test=test, body=block, orelse=[])]
                                   if test is not None else block)
            if rest:
                statements += templates.replace('if not done:\n    rest', done=done, rest=rest)
            return statements
        if test is None:  # an irrefutable pattern without a guard: the last case
            return before + block
        return before + [gast.If(test=test, body=block, orelse=rest)]


def transform(node, ctx):
    """Lowers a tree's `match` statements to `if` statements (see the module docstring).

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return MatchTransformer(ctx).visit(node)
