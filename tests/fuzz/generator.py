"""A seeded generator of random, well-typed, always-terminating Python functions for fuzzing.

Every generated function is typed (each variable holds only ints, only floats or only bools), so
that the same source is meaningful with Python values and with tensors: `and`/`or`/`not` only
see bools, arithmetic never mixes ints and floats, and `*` only multiplies by a constant.
Values stay small: an assignment whose right side could grow a value (a product, two variables,
a call) is wrapped in `% M`, so int32 and float32 hold every value exactly (floats are
multiples of 0.25). Loops always terminate: `for` runs over `range` with small bounds and every
`while` has its own counter `kN`, incremented first thing in the body and never touched
elsewhere, with a small bound. Parameters are never assigned, so printing a parameter always
prints a staged value when the function is traced.
"""

import dataclasses
import random

from tests.fuzz import realcode_features
from tests.fuzz.parens import paren as _paren
from tests.fuzz import vector_ops

INT, FLOAT, BOOL = "int", "float", "bool"
TYPES = (INT, FLOAT, BOOL)
VEC = "vec"  # a float32 vector of shape (3,): a list of 3 floats in plain Python
IVEC = "ivec"  # an int32 vector of shape (4,): a list of 4 ints in plain Python
IMAT = "imat"  # an int32 matrix of shape (2, 3): a vector_ops.Matrix (2 lists) in plain Python

_INT_INPUTS = (-12, -7, -3, -2, -1, 0, 1, 2, 3, 4, 5, 7, 9, 11, 20)
_FLOAT_INPUTS = (-3.5, -1.0, -0.25, 0.0, 0.5, 1.25, 2.0, 4.75)
_INT_CONSTS = (0, 1, 2, 3, 5, -1, -4, 10)
_FLOAT_CONSTS = (0.0, 0.25, 1.0, 1.5, -0.5, -2.0, 3.75)
_INT_MODS = (7, 13, 100, 1000)
_FLOAT_MODS = ("8.0", "64.0")

# Switchable generator features (on by default unless noted):
# - "branch_vars": a variable first assigned inside an if branch or a loop body and read after
#   it; on paths where plain Python raises UnboundLocalError, staged must raise it too.
# - "while_true": `while True:` loops left by a `break` on their counter (constant bound, so
#   the loop stays a Python loop).
# - "chained": chained comparisons (`a < b <= c`) in conditions.
# - "while_true_staged": `while True` whose break depends on a parameter, so the exit becomes
#   staged: the Python loop goes on as a staged loop.
# - "vectors": a float32 vector parameter `w` of shape (3,), with `reduce_sum`, `reduce_max`
#   and `reduce_mean` of it in conditions, and `for x in w` / `for i, x in enumerate(w)`.
# - "lists": a list appended to (or extended by two elements) in a loop, then stacked and
#   summed.
# - "int_vectors": an int32 vector parameter `v` of shape (4,) whose elements int expressions
#   read at a computed index (`v[k % 4]`, `v[-1]`): staged loops read them one by one.
# - "int_matrices": an int32 matrix parameter `m` of shape (2, 3) whose elements int
#   expressions read at two computed indices (`m[k % 2, -(j % 3) - 1]`, `m[-1, 2]`): staged
#   loops read them from a flat view, a negative index through the kernel.
# - "module_helpers": module-level functions with their own control flow (an if, a while, a
#   for over a Python range whose break depends on the argument), called like the helpers.
# - "walrus": assignment expressions: `if (w := e) > c:` (w read in the branch), the same as
#   the later operand of an `and`/`or` (`if c and (w := e) > d:`: nested ifs), as the later
#   operand of a bool assignment's `and`/`or` (`c = d or (w := e) > k`), and while loops that
#   count in their test (`while (k := k + 1) <= n:`), sometimes with an `else`.
# - "match": match statements on an int (a parameter's, so staged, or an expression's), with
#   value, `|`, capture-with-guard and `_` cases.
# - "raise", "truthiness", "int_float", "math": what real numeric code writes (see
#   tests/fuzz/realcode_features.py).
FEATURES = frozenset(("branch_vars", "while_true", "chained", "while_true_staged", "vectors",
                      "lists", "module_helpers", "int_vectors", "int_matrices", "walrus",
                      "match")) | realcode_features.FEATURES
ALL_FEATURES = FEATURES
# What generated programs import for the "vectors" and "lists" features.
_IMPORT = "from tests.fuzz.vector_ops import reduce_max, reduce_mean, reduce_sum, stack"


@dataclasses.dataclass
class Program:
    """A generated function: its source, the name it defines, and the inputs to call it with.

    `param_types` gives the type of each parameter, so that a harness can turn the Python
    inputs into tensors of the matching dtype.
    """

    source: str
    name: str
    param_types: tuple
    inputs: list
    seed: object = None


class _Scope:
    """What generated code may read at one point: typed variables and callable helpers."""

    def __init__(self):
        self.readable = []  # (name, type) pairs that expressions may read
        self.assignable = []  # (name, type) locals that statements may assign
        self.unary_fns = []  # (name, type): one-argument pure helpers (closures, lambdas)
        self.bumpers = []  # (name, (target, type)): helpers that write a local via nonlocal


class Generator:
    """Writes one random function per call to `program()`, deterministically from its rng."""

    def __init__(self, rng, max_depth=3, max_stmts=24, max_locals=7, max_helpers=2,
                 features=FEATURES):
        unknown = set(features) - ALL_FEATURES
        if unknown:
            raise ValueError("unknown fuzz features {}; known: {}".format(
                sorted(unknown), sorted(ALL_FEATURES)))
        self.features = frozenset(features)
        self.rng = rng
        self.max_depth = max_depth
        self.max_stmts = max_stmts
        self.max_locals = max_locals
        self.max_helpers = max_helpers

    # -- program --------------------------------------------------------------------------

    def program(self, seed=None):
        """Returns a new Program.

        Args:
            seed: recorded on the Program, for reports.

        Returns:
            A Program.
        """
        rng = self.rng
        self.lines = []
        self.counter = 0
        self.loop_stack = []  # per enclosing loop: (its bound is a constant, its counter)
        self.staged_ctx = 0  # enclosing control flow certainly staged when traced
        self.scope = _Scope()
        self.budget = rng.randint(4, self.max_stmts)  # statements left to write
        n_params = rng.randint(1, 3)
        params = []
        for i in range(n_params):
            t = rng.choice((INT, INT, FLOAT, BOOL))
            params.append(("abxpq"[i] if t != BOOL else "p{}".format(i), t))
        if "vectors" in self.features and rng.random() < 0.3:
            params.append(("w", VEC))
        if "int_vectors" in self.features and rng.random() < 0.3:
            params.append(("v", IVEC))
        if "int_matrices" in self.features and rng.random() < 0.25:
            params.append(("m", IMAT))
        self.params = params
        self.scalar_params = [p for p in params if p[1] not in (VEC, IVEC, IMAT)] or params
        self.int_vectors = [n for n, t in params if t == IVEC]
        self.int_matrices = [n for n, t in params if t == IMAT]
        self.vectors = [n for n, t in params if t == VEC]
        self.scope.readable.extend(params)
        self._module_helpers()
        header = "def fuzz_fn({}):".format(", ".join(n for n, _ in params))
        self.lines.append(header)
        self.tables = []
        self._locals(1)
        if "tables" in self.features and rng.random() < 0.3:
            realcode_features.declare_table(self, 1)
        self._helpers(1)
        self._block(1, 100, depth=0)
        realcode_features.fold_tables(self, 1)
        self.lines.append("    return {}".format(self._return_value()))
        inputs = [tuple(self._input(t) for _, t in params) for _ in range(3)]
        source = "\n".join(self.lines) + "\n"
        if self.int_matrices:
            inputs = [tuple(vector_ops.Matrix(a) if t == IMAT else a
                            for a, (_, t) in zip(args, params)) for args in inputs]
        if "reduce_" in source or "stack(" in source:
            source = _IMPORT + "\n\n\n" + source
        if "math." in source:
            source = "import math\n\n\n" + source
        return Program(source, "fuzz_fn", tuple(t for _, t in params), inputs, seed)

    def _input(self, t):
        if t == VEC:
            return [self.rng.choice(_FLOAT_INPUTS) for _ in range(3)]
        if t == IVEC:
            return [self.rng.choice(_INT_INPUTS) for _ in range(4)]
        if t == IMAT:
            return [[self.rng.choice(_INT_INPUTS) for _ in range(3)] for _ in range(2)]
        if t == INT:
            return self.rng.choice(_INT_INPUTS)
        if t == FLOAT:
            return self.rng.choice(_FLOAT_INPUTS)
        return self.rng.random() < 0.5

    def _emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def _fresh(self, prefix):
        self.counter += 1
        return "{}{}".format(prefix, self.counter)

    def _locals(self, indent):
        self.return_vars = []
        for t in (INT, INT, FLOAT, BOOL, INT, FLOAT, BOOL)[:self.max_locals]:
            if self.rng.random() < 0.25 and t != INT:
                continue
            name = self._fresh({INT: "v", FLOAT: "f", BOOL: "c"}[t])
            self._emit(indent, "{} = {}".format(name, self._simple(t)))
            self.scope.readable.append((name, t))
            self.scope.assignable.append((name, t))
            if len(self.return_vars) < 3 and (name, t) not in self.return_vars:
                self.return_vars.append((name, t))

    def _module_helpers(self):
        """Module-level functions with their own control flow, before `fuzz_fn`."""
        rng = self.rng
        if "module_helpers" not in self.features:
            return
        for _ in range(rng.randint(0, 2)):
            t = rng.choice((INT, INT, FLOAT))
            name = self._fresh("g")
            const = lambda: str(rng.choice(_INT_CONSTS)) if t == INT else repr(  # noqa: E731
                rng.choice(_FLOAT_CONSTS))
            one, mod = ("1", rng.choice(_INT_MODS)) if t == INT else ("0.25", "8.0")
            j = "j" if t == INT else "float(j)"
            kind = rng.choice(("if", "while", "for_break"))
            body = ["def {}(t):".format(name)]
            if kind == "if":
                body += ["    if t {} {}:".format(rng.choice(("<", ">", ">=", "!=")), const()),
                         "        return (t * {}) % {}".format(
                             rng.choice(("2", "3")) if t == INT else "2.0", mod),
                         "    return t - {}".format(const())]
            elif kind == "while":
                body += ["    r = {}".format(const()), "    k = 0",
                         "    while k < {}:".format(rng.randint(1, 3)), "        k += 1",
                         "        if t > {}:".format(const()),
                         "            r = r + {}".format(one),
                         "    return r"]
            else:
                body += ["    r = {}".format(const()),
                         "    for j in range({}):".format(rng.randint(1, 4)),
                         "        if t < {} + {}:".format(const(), j),
                         "            break", "        r = r + {}".format(j),
                         "    return r % {}".format(mod)]
            self.lines.extend(body + ["", ""])
            self.scope.unary_fns.append((name, t))

    def _helpers(self, indent):
        rng = self.rng
        for _ in range(rng.randint(0, self.max_helpers)):
            kind = rng.choice(("def", "lambda", "def_if", "bump"))
            t = rng.choice((INT, INT, FLOAT))
            name = self._fresh("h")
            if kind == "lambda":
                self.scope.readable.append(("t", t))
                body = self._expr(t, 2, wrap_ok=False)
                self.scope.readable.pop()
                self._emit(indent, "{} = lambda t: {}".format(name, body))
            elif kind == "def":
                self._emit(indent, "def {}(t):".format(name))
                self.scope.readable.append(("t", t))
                self._emit(indent + 1, "return {}".format(self._expr(t, 2, wrap_ok=False)))
                self.scope.readable.pop()
            elif kind == "def_if":
                self._emit(indent, "def {}(t):".format(name))
                self.scope.readable.append(("t", t))
                self._emit(indent + 1, "if {}:".format(self._expr(BOOL, 2)))
                self._emit(indent + 2, "return {}".format(self._expr(t, 1, wrap_ok=False)))
                self._emit(indent + 1, "return {}".format(self._expr(t, 1, wrap_ok=False)))
                self.scope.readable.pop()
            else:
                target = rng.choice([v for v in self.scope.assignable if v[1] != BOOL])
                self._emit(indent, "def {}(d):".format(name))
                self._emit(indent + 1, "nonlocal {}".format(target[0]))
                op = "+=" if target[1] == INT else "-="
                self._emit(indent + 1, "{} {} d".format(target[0], op))
                self.scope.bumpers.append((name, target))
                continue
            self.scope.unary_fns.append((name, t))

    def _return_value(self):
        if len(self.return_vars) == 1:
            return self.return_vars[0][0]
        return "({},)".format(", ".join(n for n, _ in self.return_vars))

    def _early_return_value(self):
        parts = [self._expr(t, 1) for _, t in self.return_vars]
        if len(parts) == 1:
            return parts[0]
        return "({},)".format(", ".join(parts))

    # -- statements -----------------------------------------------------------------------

    def _block(self, indent, n, depth):
        for i in range(max(1, n)):
            if i and self.budget <= 0:
                break
            self._statement(indent, depth)

    def _statement(self, indent, depth):
        rng = self.rng
        self.budget -= 1
        kinds = ["assign"] * 5 + ["aug"] * 3 + ["print"] * 2
        if depth < self.max_depth and self.budget > 0:
            kinds += ["if"] * 3 + ["for"] * 2 + ["while"] * 2
            if "while_true" in self.features:
                kinds += ["while_true"]
            if self.vectors:
                kinds += ["for_vec"]
            if "lists" in self.features:
                kinds += ["list_loop"]
            if "match" in self.features:
                kinds += ["match"]
        if self.loop_stack:
            kinds += ["break", "continue"]
        kinds += ["return"]
        if depth == 0 and self.scope.bumpers:
            kinds += ["bump"]
        kinds += ["assert"] if rng.random() < 0.1 else []
        kinds += ["raise"] if "raise" in self.features and rng.random() < 0.1 else []
        kinds += ["table_set"] * 2 if self.tables else []
        kind = rng.choice(kinds)
        getattr(self, "_stmt_" + kind)(indent, depth)

    def _stmt_assign(self, indent, depth):
        name, t = self.rng.choice(self.scope.assignable)
        if t == BOOL and "walrus" in self.features and self.rng.random() < 0.3:
            # `c = d or (w := e) > k`: the whole value becomes statements (named_expressions)
            self._emit(indent, "{} = {} {} ({} := {}) {} {}".format(
                name, _paren(self._expr(BOOL, 1)), self.rng.choice(("and", "or")),
                self._fresh("w"), self._expr(INT, 1, wrap_ok=True),
                self.rng.choice(("<", ">", "!=")), self._simple(INT)))
            return
        self._emit(indent, "{} = {}".format(name, self._expr(t, 2, wrap_ok=True)))

    def _stmt_aug(self, indent, depth):
        choices = [v for v in self.scope.assignable if v[1] != BOOL]
        name, t = self.rng.choice(choices)
        if t == INT:
            op = self.rng.choice(("+=", "-=", "+=", "//=", "%=", "*="))
            if op in ("//=", "%="):
                value = str(self.rng.choice((2, 3, 5, 7)))
            elif op == "*=":
                value = "-1"
            else:
                value = str(self.rng.choice((1, 2, 3, 4)))
        else:
            op = self.rng.choice(("+=", "-=", "*="))
            value = "-1.0" if op == "*=" else self.rng.choice(("0.25", "1.0", "2.5"))
        self._emit(indent, "{} {} {}".format(name, op, value))

    def _stmt_print(self, indent, depth):
        rng = self.rng
        if not self.staged_ctx:
            # runtime prints at execution time only inside staged control flow.
            self._emit(indent, "if {}:".format(self._staged_condition()))
            indent += 1
        args = ["'L{}'".format(len(self.lines))]
        # A parameter is always staged when traced, so the print runs at execution time.
        args.append(rng.choice(self.scalar_params)[0])
        for _ in range(rng.randint(0, 2)):
            args.append(self._expr(rng.choice(TYPES), 1))
        if rng.random() < 0.15:
            args.append("sep='|'")
        self._emit(indent, "print({})".format(", ".join(args)))

    def _stmt_if(self, indent, depth):
        rng = self.rng
        staged = rng.random() < 0.5
        self.staged_ctx += staged
        condition = self._staged_condition() if staged else self._condition()
        named = None
        if "walrus" in self.features and rng.random() < 0.25:
            # `(w := e) > c` alone, or as the later operand of `and`/`or`; w is read in the
            # branch (where the test assigned it, whichever operand decided)
            named = (self._fresh("w"), INT)
            test = "({} := {}) {} {}".format(named[0], self._expr(INT, 1, wrap_ok=True),
                                             rng.choice(("<", ">", ">=", "!=")),
                                             self._simple(INT))
            if rng.random() < 0.5:
                condition = test
            else:
                op = rng.choice(("and", "or"))
                condition = "{} {} {}".format(_paren(condition), op, test)
                if op == "or":
                    named = None  # the branch also runs where the test was not reached
        self._emit(indent, "if {}:".format(condition))
        if named is not None:
            self.scope.readable.append(named)
        first = self._first_assign(indent + 1)
        self._block(indent + 1, rng.randint(1, 3), depth + 1)
        if named is not None:
            self.scope.readable.remove(named)
        for _ in range(rng.choice((0, 0, 1, 2))):
            self._emit(indent, "elif {}:".format(self._condition()))
            self._block(indent + 1, rng.randint(1, 2), depth + 1)
        if rng.random() < 0.5:
            self._emit(indent, "else:")
            if first and rng.random() < 0.5:
                self._emit(indent + 1, "{} = {}".format(first[0], self._expr(first[1], 1)))
            self._block(indent + 1, rng.randint(1, 2), depth + 1)
        self.staged_ctx -= staged
        self._read_after(indent, first)

    def _stmt_match(self, indent, depth):
        """A match statement on an int: value, `|`, capture-with-guard and `_` cases."""
        rng = self.rng
        int_params = [n for n, t in self.scalar_params if t == INT]
        staged = bool(int_params) and rng.random() < 0.5
        if staged:
            subject = "{} % {}".format(rng.choice(int_params), rng.choice((3, 4, 5)))
        else:
            subject = self._expr(INT, 1)
        self.staged_ctx += staged
        self._emit(indent, "match {}:".format(subject))
        values = rng.sample(range(-1, 5), 5)
        for _ in range(rng.randint(1, 3)):
            form = rng.random()
            capture = None
            if form < 0.4 or len(values) < 2:
                pattern = str(values.pop())
            elif form < 0.7:
                pattern = "{} | {}".format(values.pop(), values.pop())
            else:
                capture = (self._fresh("c"), INT)
                pattern = "{} if {} {} {}".format(capture[0], capture[0],
                                                  rng.choice(("<", ">", ">=", "!=")),
                                                  self._simple(INT))
            self._emit(indent + 1, "case {}:".format(pattern))
            if capture is not None:
                self.scope.readable.append(capture)
            self._block(indent + 2, rng.randint(1, 2), depth + 1)
            if capture is not None:
                self.scope.readable.remove(capture)
        if rng.random() < 0.5:
            self._emit(indent + 1, "case _:")
            self._block(indent + 2, rng.randint(1, 2), depth + 1)
        self.staged_ctx -= staged

    def _first_assign(self, indent):
        """Maybe assigns a fresh variable first here; returns (name, type) or None."""
        if "branch_vars" not in self.features or self.rng.random() < 0.6:
            return None
        t = self.rng.choice((INT, INT, FLOAT))
        name = self._fresh("u")
        self._emit(indent, "{} = {}".format(name, self._expr(t, 1)))
        return name, t

    def _read_after(self, indent, first):
        """Reads a variable that `_first_assign` may have left undefined, into a local."""
        if first is None:
            return
        targets = [v for v in self.scope.assignable if v[1] == first[1]]
        if targets:
            target = self.rng.choice(targets)[0]
            self._emit(indent, "{} = ({} + {}) % {}".format(
                target, first[0], self._simple(first[1]),
                self.rng.choice(_INT_MODS) if first[1] == INT else "8.0"))

    def _staged_condition(self):
        """A condition that is certainly staged when traced: it starts with a parameter."""
        name, t = self.rng.choice(self.scalar_params)
        if t == VEC:
            head = "{}({}) > {}".format(self.rng.choice(_REDUCTIONS), name,
                                        self._simple(FLOAT))
        elif t == BOOL:
            head = name if self.rng.random() < 0.5 else "not {}".format(name)
        else:
            head = "{} {} {}".format(name, self.rng.choice(("<", ">", ">=", "!=", "==")),
                                     self._simple(t))
        if self.rng.random() < 0.3:
            return "{} {} {}".format(head, self.rng.choice(("and", "or")), _paren(
                self._expr(BOOL, 1)))
        return head

    def _condition(self):
        # Inside a loop over a constant range, a condition on the loop counter stays Python,
        # which keeps break/return inside that loop stageable.
        if self.loop_stack and self.loop_stack[-1][0] and self.rng.random() < 0.5:
            counter = self.loop_stack[-1][1]
            return "{} {} {}".format(counter, self.rng.choice(("==", ">", "<", ">=")),
                                     self.rng.randint(0, 3))
        if "truthiness" in self.features and self.rng.random() < 0.15:
            truthy = realcode_features.truthy_condition(self)
            if truthy is not None:
                return truthy
        return self._expr(BOOL, 2)

    def _bound(self):
        """Returns (source, is_constant) for a small non-negative loop bound."""
        rng = self.rng
        int_params = [n for n, t in self.params if t == INT]
        if int_params and rng.random() < 0.5:
            p = rng.choice(int_params)
            return "{} % {}".format(p, rng.choice((3, 4, 5))), False
        return str(rng.randint(0, 4)), True

    def _stmt_for(self, indent, depth):
        rng = self.rng
        target = self._fresh("i")
        bound, constant = self._bound()
        form = rng.random()
        if form < 0.5:
            it = "range({})".format(bound)
        elif form < 0.6:  # one-based: the runtime iterates the value itself (`1 + i`)
            it = "range(1, {} + 1)".format(bound)
        elif form < 0.8:
            it = "range({}, {})".format(rng.randint(-2, 1), bound)
        else:
            it = "range({}, {}, -1)".format(bound, rng.randint(-2, 0))
        self._emit(indent, "for {} in {}:".format(target, it))
        self.scope.readable.append((target, INT))
        self.loop_stack.append((constant, target))
        self.staged_ctx += not constant
        first = self._first_assign(indent + 1)
        self._block(indent + 1, rng.randint(1, 3), depth + 1)
        self.staged_ctx -= not constant
        self.loop_stack.pop()
        self.scope.readable.remove((target, INT))
        self._read_after(indent, first)

    def _stmt_while(self, indent, depth):
        rng = self.rng
        counter = self._fresh("k")
        bound, constant = self._bound()
        named = "walrus" in self.features and rng.random() < 0.3
        self._emit(indent, "{} = 0".format(counter))
        if named:  # the same counts, the increment in the test
            self._emit(indent, "while ({0} := {0} + 1) <= {1}:".format(counter, bound))
        else:
            self._emit(indent, "while {} < {}:".format(counter, bound))
            self._emit(indent + 1, "{} += 1".format(counter))
        self.scope.readable.append((counter, INT))
        self.loop_stack.append((constant, counter))
        self.staged_ctx += not constant
        self._block(indent + 1, rng.randint(1, 3), depth + 1)
        self.staged_ctx -= not constant
        self.loop_stack.pop()
        self.scope.readable.remove((counter, INT))
        if named and rng.random() < 0.3:  # runs when the test fails, not after a break
            self._emit(indent, "else:")
            self._stmt_assign(indent + 1, depth + 1)

    def _stmt_while_true(self, indent, depth):
        """`while True:` left by a break on its counter, tested first thing in the body."""
        rng = self.rng
        counter = self._fresh("k")
        if "while_true_staged" in self.features:
            bound, constant = self._bound()
        else:
            bound, constant = str(rng.randint(0, 4)), True
        self._emit(indent, "{} = 0".format(counter))
        self._emit(indent, "while True:")
        self._emit(indent + 1, "{} += 1".format(counter))
        self._emit(indent + 1, "if {} > {}:".format(counter, bound))
        self._emit(indent + 2, "break")
        self.scope.readable.append((counter, INT))
        self.loop_stack.append((constant, counter))
        self.staged_ctx += not constant
        self._block(indent + 1, rng.randint(1, 3), depth + 1)
        self.staged_ctx -= not constant
        self.loop_stack.pop()
        self.scope.readable.remove((counter, INT))

    def _stmt_for_vec(self, indent, depth):
        """`for x in w:` or `for i, x in enumerate(w):` over the vector parameter."""
        rng = self.rng
        x = self._fresh("x")
        targets = [(x, FLOAT)]
        if rng.random() < 0.5:
            i = self._fresh("i")
            targets.append((i, INT))
            self._emit(indent, "for {}, {} in enumerate({}):".format(i, x,
                                                                  rng.choice(self.vectors)))
        else:
            self._emit(indent, "for {} in {}:".format(x, rng.choice(self.vectors)))
        self.scope.readable.extend(targets)
        self.loop_stack.append((False, x))
        self.staged_ctx += 1
        self._block(indent + 1, rng.randint(1, 3), depth + 1)
        self.staged_ctx -= 1
        self.loop_stack.pop()
        for target in targets:
            self.scope.readable.remove(target)

    def _stmt_list_loop(self, indent, depth):
        """A list appended to (or extended) in a loop, then stacked and summed into a local."""
        rng = self.rng
        t = rng.choice((INT, INT, FLOAT))
        targets = [v for v in self.scope.assignable if v[1] == t]
        if not targets:
            return self._stmt_assign(indent, depth)
        name = self._fresh("l")
        counter = self._fresh("i")
        bound, constant = self._bound()
        self._emit(indent, "{} = []".format(name))
        self._emit(indent, "for {} in range({}):".format(counter, bound))
        self.scope.readable.append((counter, INT))
        self.loop_stack.append((constant, counter))
        self.staged_ctx += not constant
        self._block(indent + 1, rng.randint(0, 2), depth + 1)
        if rng.random() < 0.3:  # extend: its appends one by one
            self._emit(indent + 1, "{}.extend([{}, {}])".format(
                name, self._expr(t, 1), self._expr(t, 1)))
        else:
            self._emit(indent + 1, "{}.append({})".format(name, self._expr(t, 1)))
        self.staged_ctx -= not constant
        self.loop_stack.pop()
        self.scope.readable.remove((counter, INT))
        target = rng.choice(targets)[0]
        self._emit(indent, "{} = ({} + reduce_sum(stack({}))) % {}".format(
            target, target, name, rng.choice(_INT_MODS) if t == INT else "64.0"))

    def _guarded(self, indent, depth, stmt):
        if self.rng.random() < 0.85:
            self._emit(indent, "if {}:".format(self._condition()))
            self._emit(indent + 1, stmt)
        else:
            self._emit(indent, stmt)

    def _stmt_break(self, indent, depth):
        self._guarded(indent, depth, "break")

    def _stmt_continue(self, indent, depth):
        self._guarded(indent, depth, "continue")

    def _stmt_return(self, indent, depth):
        if depth == 0 and self.rng.random() < 0.7:
            return self._stmt_assign(indent, depth)
        self._guarded(indent, depth, "return {}".format(self._early_return_value()))

    def _stmt_bump(self, indent, depth):
        name, target = self.rng.choice(self.scope.bumpers)
        amount = "2" if target[1] == INT else "0.75"
        self._emit(indent, "{}({})".format(name, amount))

    def _stmt_raise(self, indent, depth):
        realcode_features.stmt_raise(self, indent)

    def _stmt_table_set(self, indent, depth):
        realcode_features.stmt_table_set(self, indent)

    def _stmt_assert(self, indent, depth):
        p = self.rng.choice(self.scalar_params)
        cond = self._expr(BOOL, 1)
        if p[1] == VEC:
            test = "reduce_max({}) > -9.0 or {}".format(p[0], cond)
        elif p[1] == BOOL:
            test = "{} or {}".format(p[0], cond)
        else:
            test = "{} != {} or {}".format(p[0], self._simple(p[1]), cond)
        self._emit(indent, "assert {}, 'assertion at line {}'".format(test, len(self.lines)))

    # -- expressions ----------------------------------------------------------------------

    def _simple(self, t):
        rng = self.rng
        names = [n for n, vt in self.scope.readable if vt == t]
        if t == INT and self.int_vectors and rng.random() < 0.3:  # an element, at an index
            index = ("{} % 4".format(rng.choice(names)) if names and rng.random() < 0.7
                     else str(rng.choice((0, 1, 2, 3, -1, -4))))
            return "{}[{}]".format(rng.choice(self.int_vectors), index)
        if t == INT and self.int_matrices and rng.random() < 0.3:  # at two indices
            return "{}[{}, {}]".format(rng.choice(self.int_matrices),
                                       self._matrix_index(names, 2), self._matrix_index(names, 3))
        if t == INT and self.tables and rng.random() < 0.2:
            return realcode_features.table_cell(self)
        if names and rng.random() < 0.6:
            return rng.choice(names)
        if t == INT:
            return str(rng.choice(_INT_CONSTS))
        if t == FLOAT:
            return repr(rng.choice(_FLOAT_CONSTS))
        return rng.choice(("True", "False"))

    def _matrix_index(self, names, dim):
        """An index into a dimension of size `dim`: in range, counted from the start or (through
        the kernel, staged) from the end."""
        rng = self.rng
        if names and rng.random() < 0.7:
            name = rng.choice(names)
            return rng.choice(("{} % {}", "-({} % {}) - 1")).format(name, dim)
        return str(rng.randint(-dim, dim - 1))

    def _expr(self, t, depth, wrap_ok=False):
        """Returns an expression of type `t`; with wrap_ok, a growing one is wrapped in `%`."""
        text, grows = self._expr_g(t, depth)
        if grows and wrap_ok and t != BOOL:
            mod = self.rng.choice(_INT_MODS) if t == INT else self.rng.choice(_FLOAT_MODS)
            return "({}) % {}".format(text, mod)
        return text

    def _expr_g(self, t, depth):
        """Returns (source, grows): grows when the value may be much larger than its inputs."""
        rng = self.rng
        if depth <= 0 or rng.random() < 0.3:
            return self._simple(t), False
        if t == BOOL:
            return self._bool_expr(depth)
        r = rng.random()
        if r < 0.35:
            a, ga = self._expr_g(t, depth - 1)
            b, gb = self._expr_g(t, depth - 1)
            op = rng.choice(("+", "-"))
            return "{} {} {}".format(a, op, _paren(b)), True
        if r < 0.5:
            a, _ = self._expr_g(t, depth - 1)
            k = rng.choice((2, 3, -1)) if t == INT else rng.choice(("2.0", "-1.0"))
            return "{} * {}".format(_paren(a), k), True
        if r < 0.6 and t == INT:
            a, ga = self._expr_g(t, depth - 1)
            op = rng.choice(("//", "%"))
            return "{} {} {}".format(_paren(a), op, rng.choice((2, 3, 4, 7))), ga
        if r < 0.7:
            a, ga = self._expr_g(t, depth - 1)
            b, gb = self._expr_g(t, depth - 1)
            fn = rng.choice(("min", "max")) if rng.random() < 0.6 else "abs"
            if fn == "abs":
                return "abs({})".format(a), ga
            return "{}({}, {})".format(fn, a, b), ga or gb
        if r < 0.8:
            c, _ = self._bool_expr(depth - 1)
            a, ga = self._expr_g(t, depth - 1)
            b, gb = self._expr_g(t, depth - 1)
            return "({} if {} else {})".format(a, c, b), ga or gb
        if r < 0.9:
            fns = [n for n, ft in self.scope.unary_fns if ft == t]
            if fns:
                a, _ = self._expr_g(t, depth - 1)
                return "{}({})".format(rng.choice(fns), a), True
        if t in (INT, FLOAT) and "math" in self.features and rng.random() < 0.1:
            return realcode_features.math_call(self, t, depth), True
        if t == FLOAT and "int_float" in self.features and rng.random() < 0.1:
            return realcode_features.float_of_ints(self, depth), True
        if t == FLOAT and r < 0.95:
            a, _ = self._expr_g(INT, depth - 1)
            return "float({})".format(a), True
        if r < 0.95:
            a, ga = self._expr_g(t, depth - 1)
            return "-{}".format(_paren(a)), ga
        return self._simple(t), False

    def _bool_expr(self, depth):
        rng = self.rng
        r = rng.random()
        if depth <= 0 or r < 0.15:
            return self._simple(BOOL), False
        if r < 0.2 and self.vectors:
            return "{}({}) {} {}".format(rng.choice(_REDUCTIONS), rng.choice(self.vectors),
                                         rng.choice(("<", "<=", ">", ">=", "==", "!=")),
                                         _paren(self._expr_g(FLOAT, depth - 1)[0])), False
        if r < 0.55:
            t = rng.choice((INT, INT, FLOAT))
            a, _ = self._expr_g(t, depth - 1)
            b, _ = self._expr_g(t, depth - 1)
            op = rng.choice(("<", "<=", ">", ">=", "==", "!="))
            if "chained" in self.features and rng.random() < 0.3:
                c, _ = self._expr_g(t, depth - 1)
                op2 = rng.choice(("<", "<=", ">", ">=", "==", "!="))
                return "{} {} {} {} {}".format(_paren(a), op, _paren(b), op2, _paren(c)), False
            return "{} {} {}".format(_paren(a), op, _paren(b)), False
        if r < 0.8:
            a, _ = self._bool_expr(depth - 1)
            b, _ = self._bool_expr(depth - 1)
            return "({} {} {})".format(a, rng.choice(("and", "or")), b), False
        if r < 0.9:
            a, _ = self._bool_expr(depth - 1)
            return "not {}".format(_paren(a)), False
        c, _ = self._bool_expr(depth - 1)
        a, _ = self._bool_expr(depth - 1)
        b, _ = self._bool_expr(depth - 1)
        return "({} if {} else {})".format(a, c, b), False


_REDUCTIONS = ("reduce_sum", "reduce_max", "reduce_mean")


def generate(seed, **kwargs):
    """Returns the Program for one seed.

    Args:
        seed: any hashable seed; the same seed always gives the same program.
        **kwargs: passed to Generator (max_depth, max_stmts, max_locals, max_helpers,
            features).

    Returns:
        A Program.
    """
    return Generator(random.Random(seed), **kwargs).program(seed=seed)
