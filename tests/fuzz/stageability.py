"""Decides whether a fuzz program can be traced with tensor inputs and mean the same thing.

A program is traced with every parameter as a tensor. Some Python programs cannot be staged by
design (TensorFlow's documented limitations, shared by this project). This module finds them
with a small abstract interpretation over the program's AST that tracks two sets of variables:
those that MAY hold a staged value and those that MUST.

Problems come in two kinds:
- hard: tracing would run but mean something else by design, so the program is not traced: a
  `print` outside staged control flow (runtime prints it once, at trace time, showing symbolic
  tensors, as in the tf.function guide), an `assert` on Python values.
- soft: tracing may stop with a documented limitation error. The program is traced anyway; the
  error is accepted only when the analysis flagged the matching problem (it over-approximates),
  and any other disagreement is a failure.
"""

import ast
import re

# soft problem kind -> the documented error message it may produce (a regex). Empty since issue
# #11: Python loops whose break/return/test becomes staged go on staged, a return no traced
# path reaches needs no type, and a return in one staged branch only is aligned. What remains
# inherently unstageable (branch outputs of different structure, a dtype change in a loop)
# the generator's typed programs cannot write; a new kind must name its documented message.
SOFT = {}


_DO_RETURN = "<do_return>"  # pseudo-variable: the converter's flag set by `return`


class _Analyser:
    def __init__(self, fn_node):
        self.params = {a.arg for a in fn_node.args.args}
        self.hard = []
        self.soft = []
        # local function name -> (free names it reads, names it writes through nonlocal)
        self.local_fns = {}
        # enclosing loops: (runs as a Python loop, may_depth at its entry, staged continues)
        self.loops = []
        self.may_depth = 0  # enclosing control flow that may be staged
        self.must_depth = 0  # enclosing control flow that is certainly staged

    # -- expressions ----------------------------------------------------------------------

    def may(self, node, may):
        """Whether the expression may be staged: it reads a possibly staged name."""
        bound = set()
        names = set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Lambda):
                bound.update(a.arg for a in sub.args.args)
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                names.add(sub.id)
                if sub.id in self.local_fns:
                    names.update(self.local_fns[sub.id][0])
        return bool((names - bound) & may)

    def must(self, node, must):
        """Whether the expression is certainly staged."""
        if isinstance(node, ast.Name):
            return node.id in must
        if isinstance(node, ast.BinOp):
            return self.must(node.left, must) or self.must(node.right, must)
        if isinstance(node, ast.UnaryOp):
            return self.must(node.operand, must)
        if isinstance(node, ast.Compare):
            return any(self.must(n, must) for n in [node.left] + node.comparators[:1])
        if isinstance(node, ast.BoolOp):
            return self.must(node.values[0], must) or all(self.must(v, must)
                                                          for v in node.values)
        if isinstance(node, ast.IfExp):
            return self.must(node.test, must) or (self.must(node.body, must)
                                                  and self.must(node.orelse, must))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("abs", "min", "max", "float", "int", "reduce_sum",
                                "reduce_max", "reduce_mean", "stack", "enumerate"):
                return any(self.must(a, must) for a in node.args)
        return False

    # -- statements -----------------------------------------------------------------------

    def block(self, stmts, state):
        guarded = 0
        for i, stmt in enumerate(stmts):
            if not guarded and ((self.loops and self.loops[-1][2]) or _DO_RETURN in state[0]):
                # After a staged `continue` or a `return` in possibly staged control flow, the
                # converter guards the rest with a staged `if not continue_` / `do_return`.
                guarded = 1
                self.may_depth += 1
            state = self.stmt(stmt, state)
        self.may_depth -= guarded
        return state

    def stmt(self, node, state):
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            self.hard.append("unsupported statement {}".format(type(node).__name__))
            return state
        return method(node, state)

    def stmt_Pass(self, node, state):
        return state

    def _assign(self, name, may_staged, must_staged, state):
        may, must = state
        if name in self.params:
            self.hard.append("parameter {} is assigned".format(name))
        may = may | {name} if may_staged else may - {name}
        must = must | {name} if must_staged else must - {name}
        return may, must

    def stmt_Assign(self, node, state):
        target = node.targets[0]
        if isinstance(node.value, ast.Lambda):
            reads = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
            self.local_fns[target.id] = (reads, set())
            return self._assign(target.id, False, False, state)
        if isinstance(target, ast.Subscript) and len(node.targets) == 1:
            return self._item_assigned(target, node.value, state)
        if not isinstance(target, ast.Name) or len(node.targets) != 1:
            self.hard.append("unsupported assignment")
            return state
        return self._assign(target.id, self.may(node.value, state[0]),
                            self.must(node.value, state[1]), state)

    def _item_assigned(self, target, value, state):
        """`t[i][j] = value` (a table's cell): the table may be staged from then on when it
        was, or when an index or the value may be (it is not certainly staged)."""
        root = target
        while isinstance(root, ast.Subscript):
            root = root.value
        may, must = state
        staged = root.id in may or self.may(value, may) or self.may(target, may)
        return self._assign(root.id, staged, root.id in must, state)

    def stmt_AugAssign(self, node, state):
        if isinstance(node.target, ast.Subscript):
            return self._item_assigned(node.target, node.value, state)
        name = node.target.id
        may, must = state
        return self._assign(name, name in may or self.may(node.value, may),
                            name in must or self.must(node.value, must), state)

    def stmt_FunctionDef(self, node, state):
        inner_params = {a.arg for a in node.args.args}
        reads, writes = set(), set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                reads.add(sub.id)
            elif isinstance(sub, ast.Nonlocal):
                writes.update(sub.names)
        self.local_fns[node.name] = (reads - inner_params, writes)
        return self._assign(node.name, False, False, state)

    def stmt_Expr(self, node, state):
        value = node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            fn = value.func.id
            if fn == "print":
                self.check_print(value, state)
                return state
            if fn in self.local_fns:
                # A call of a local function that assigns variables through `nonlocal`
                # assigns them where it is called (in a staged branch or loop, they are its
                # outputs, as if assigned there).
                writes = self.local_fns[fn][1]
                may, must = state
                if self.may_depth or self.may(value, may):
                    may = may | writes
                return may, must - writes
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and value.func.attr == "append" and isinstance(value.func.value, ast.Name)):
            # a list appended to: staged when a staged value or staged control flow adds to it
            name = value.func.value.id
            may, must = state
            if self.may_depth or self.may(value, may):
                may = may | {name}
            return may, must
        self.hard.append("unsupported expression statement")
        return state

    def check_print(self, call, state):
        # runtime's documented choice (the guide's): outside staged control flow, print runs
        # once, at trace time, and shows symbolic tensors; inside, it prints at every run.
        if not self.must_depth:
            self.hard.append("print outside staged control flow (line {})".format(call.lineno))
        elif not any(self.must(a, state[1]) for a in call.args):
            self.hard.append("print without a staged argument (line {})".format(call.lineno))

    def stmt_Assert(self, node, state):
        if not self.must(node.test, state[1]):
            self.hard.append("assert on Python values (line {})".format(node.lineno))
        return state

    def stmt_If(self, node, state):
        may_staged = self.may(node.test, state[0])
        must_staged = self.must(node.test, state[1])
        self.may_depth += may_staged
        self.must_depth += must_staged
        body = self.block(node.body, state)
        orelse = self.block(node.orelse, state)
        self.may_depth -= may_staged
        self.must_depth -= must_staged
        assigned = _assigned(node.body) | _assigned(node.orelse)
        may = body[0] | orelse[0] | (assigned if may_staged else set())
        must = (body[1] & orelse[1]) | (assigned if must_staged else set())
        return may, must

    def stmt_Match(self, node, state):
        # The converter makes the cases nested ifs whose tests compare the subject (a capture
        # binds it), each guard an if inside: staged where the subject or a guard is.
        captures = {n.name for case in node.cases for n in ast.walk(case.pattern)
                    if isinstance(n, ast.MatchAs) and n.name}
        may_staged = self.may(node.subject, state[0])
        must_staged = self.must(node.subject, state[1])
        may, must = state
        may = may | captures if may_staged else may - captures
        must = must | captures if must_staged else must - captures
        may_staged = may_staged or any(
            case.guard is not None and self.may(case.guard, may) for case in node.cases)
        self.may_depth += may_staged
        self.must_depth += must_staged
        outs = [self.block(case.body, (may, must)) for case in node.cases]
        self.may_depth -= may_staged
        self.must_depth -= must_staged
        assigned = set().union(*(_assigned(case.body) for case in node.cases))
        out_may = may.union(*(o[0] for o in outs)) | (assigned if may_staged else set())
        out_must = must.intersection(*(o[1] for o in outs)) | (
            assigned if must_staged else set())
        return out_may, out_must

    def stmt_Break(self, node, state):
        return state

    def stmt_Continue(self, node, state):
        if self.loops and self.may_depth > self.loops[-1][1]:
            self.loops[-1][2].append(node.lineno)
        return state

    def stmt_Return(self, node, state):
        if self.may_depth:
            return state[0] | {_DO_RETURN}, state[1]
        return state

    def loop(self, node, state, may_staged, must_staged, targets=()):
        may, must = set(state[0]), set(state[1])
        assigned = _assigned(node.body)
        if may_staged:
            may |= assigned | set(targets)
        if must_staged:
            must |= assigned | set(targets)
        else:
            must -= set(targets)
        # Iterate to a fixed point: a later iteration may see values staged by an earlier one.
        for attempt in range(len(assigned) + 3):
            saved = len(self.hard), len(self.soft)
            self.loops.append((not may_staged, self.may_depth, []))
            self.may_depth += may_staged
            self.must_depth += must_staged
            out_may, out_must = self.block(node.body, (may, must))
            self.may_depth -= may_staged
            self.must_depth -= must_staged
            self.loops.pop()
            if (out_may <= may and out_must >= must) or attempt == len(assigned) + 2:
                break
            del self.hard[saved[0]:]
            del self.soft[saved[1]:]
            may |= out_may
            must &= out_must
        return may, must

    def stmt_For(self, node, state):
        targets = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        may, must = self.loop(node, state, self.may(node.iter, state[0]),
                              self.must(node.iter, state[1]), targets)
        return may - targets, must - targets

    def stmt_While(self, node, state):
        may_staged = self.may(node.test, state[0])
        return self.loop(node, state, may_staged, self.must(node.test, state[1]))


def _assigned(stmts):
    names = set()
    for stmt in stmts:
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                names.add(sub.id)
    return names


class Report:
    """The analysis result: hard problems (do not trace) and soft ones (errors to accept)."""

    def __init__(self, hard, soft):
        self.hard = hard
        self.soft = soft

    @property
    def traceable(self):
        return not self.hard

    def accepts(self, message):
        """Whether a traced run's error message is a limitation this program was flagged for.

        Args:
            message: the exception message.

        Returns:
            bool.
        """
        # One limitation can surface through another: a staged `break` guards the statements
        # after it with a staged `if`, so a later `return` is then "not in all branches".
        return bool(self.soft) and any(re.search(pattern, message) for pattern in SOFT.values())


def analyse(source, name="fuzz_fn"):
    """Returns the Report for function `name` in `source`.

    Args:
        source: module source text defining the function.
        name: the function's name.

    Returns:
        A Report.
    """
    module = ast.parse(source)
    fn = next(n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == name)
    analyser = _Analyser(fn)
    params = set(analyser.params)
    analyser.block(fn.body, (params, params))
    return Report(analyser.hard, analyser.soft)
