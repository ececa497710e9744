"""Generator features of what real numeric code writes (issue 29), for tests/fuzz/generator.py.

- "raise": `if <a parameter's test> and <condition>: raise ValueError(f'... {p}')` (also a
  user-visible class chosen from a few builtins, and `raise X from Y`): staged, the exception
  (class and message, formatted from run-time values) must be raised when the branch runs.
- "truthiness": numbers as conditions (`if a % 3:`, `if not x:`, `while k % 4:` is avoided: the
  loops keep their counters), `a or b` of ints in a test.
- "int_float": float expressions that mix ints and floats as Python does (`i / 2`, `x + i`,
  `i * 0.5`): exact multiples of 0.25 while the ints stay small.
- "math": `math.floor`, `math.ceil`, `math.trunc`, `round`, `int` of floats, `math.gcd` and
  `divmod(...)[0]` of ints, `math.fabs`, `math.sqrt(x * x)` of floats.
- "tables": a dynamic-programming table of ints, `t = [[0] * 3 for _ in range(2)]` (or a
  nested comprehension), written (`t[i % 2][-(j % 3) - 1] = e`, `+=`) and read at computed
  indices anywhere, and folded into a returned local at the end; written through a row
  alias too (`r = t[i % 2]`, then `r[j] = e` under an `if` or not), or through the target
  of a loop over its rows (`for r in t:`, `for k, r in enumerate(t):`); folded also with
  `max`, `sorted` and `index` of its rows (Python lists holding staged numbers).
"""

from tests.fuzz.parens import paren as _paren

FEATURES = frozenset(("raise", "truthiness", "int_float", "math", "tables"))
# the exception classes a generated `raise` raises
RAISED = (ValueError, ArithmeticError, KeyError, OverflowError)
_EXCEPTIONS = tuple(e.__name__ for e in RAISED)


def stmt_raise(gen, indent):
    """Writes a raise in a branch on a parameter (staged when traced), rarely taken."""
    rng = gen.rng
    name, t = rng.choice([p for p in gen.scalar_params if p[1] in ("int", "float", "bool")]
                         or gen.scalar_params)
    if t == "bool":
        test = "{}".format(name) if rng.random() < 0.5 else "not {}".format(name)
    elif t == "vec":
        test = "reduce_max({}) > 4.0".format(name)
    else:
        test = "{} {} {}".format(name, rng.choice(("==", ">", "<")), gen._simple(t))
    if rng.random() < 0.5:
        test = "{} and {}".format(test, _paren(gen._expr("bool", 1)))
    message = "f'raised at line {}: {}={{{}}}'".format(len(gen.lines), name, name)
    if t == "vec":
        message = "'raised at line {}'".format(len(gen.lines))
    exc = "{}({})".format(rng.choice(_EXCEPTIONS), message)
    cause = " from KeyError('cause')" if rng.random() < 0.25 else ""
    gen._emit(indent, "if {}:".format(test))
    gen._emit(indent + 1, "raise {}{}".format(exc, cause))


def truthy_condition(gen):
    """A number used as a condition (its truth value), or None."""
    rng = gen.rng
    ints = [n for n, t in gen.scope.readable if t == "int"]
    floats = [n for n, t in gen.scope.readable if t == "float"]
    r = rng.random()
    if ints and r < 0.4:
        return "{} % {}".format(rng.choice(ints), rng.choice((2, 3, 4)))
    if floats and r < 0.6:
        return "{}{}".format(rng.choice(("", "not ")), rng.choice(floats))
    if len(ints) > 1 and r < 0.8:
        a, b = rng.sample(ints, 2)
        return "({} or {})".format(a, b)
    if ints:
        return "not {}".format(rng.choice(ints))
    return None


def float_of_ints(gen, depth):
    """A float expression that mixes ints and floats as Python does, or None."""
    rng = gen.rng
    a, _ = gen._expr_g("int", depth - 1)
    r = rng.random()
    if r < 0.4:
        return "{} / {}".format(_paren(a), rng.choice((2, 4)))
    if r < 0.7:
        return "{} * 0.5".format(_paren(a))
    b, _ = gen._expr_g("float", depth - 1)
    return "{} + {}".format(_paren(b), _paren(a))


def math_call(gen, t, depth):
    """A `math` function or numeric builtin of type `t` ("int" or "float"), or None."""
    rng = gen.rng
    if t == "int":
        r = rng.random()
        if r < 0.5:
            x, _ = gen._expr_g("float", depth - 1)
            return "{}({})".format(rng.choice(("math.floor", "math.ceil", "math.trunc",
                                               "round", "int")), x)
        a, _ = gen._expr_g("int", depth - 1)
        if r < 0.75:
            b, _ = gen._expr_g("int", depth - 1)
            return "math.gcd({}, {})".format(a, b)
        return "divmod({}, {})[0]".format(a, rng.choice((2, 3, -4)))
    if t == "float":
        x, _ = gen._expr_g("float", depth - 1)
        if rng.random() < 0.5:
            return "math.fabs({})".format(x)
        return "math.sqrt({} * {})".format(_paren(x), _paren(x))
    return None


def declare_table(gen, indent):
    """Declares a table of ints of a Python size (rows, columns in 2..3); records it on
    `gen.tables` as (name, rows, columns)."""
    rng = gen.rng
    rows, columns = rng.randint(2, 3), rng.randint(2, 3)
    name = gen._fresh("t")
    if rng.random() < 0.5:
        gen._emit(indent, "{} = [[0] * {} for _ in range({})]".format(name, columns, rows))
    else:
        gen._emit(indent, "{} = [[0 for _ in range({})] for _ in range({})]".format(
            name, columns, rows))
    gen.tables.append((name, rows, columns))


def table_cell(gen):
    """`t[i][j]` of a declared table at computed indices (in range, counting from either
    end), or None."""
    if not gen.tables:
        return None
    name, rows, columns = gen.rng.choice(gen.tables)
    ints = [n for n, t in gen.scope.readable if t == "int"]
    return "{}[{}][{}]".format(name, gen._matrix_index(ints, rows),
                               gen._matrix_index(ints, columns))


def stmt_table_set(gen, indent):
    """`t[i][j] = e % k` or `t[i][j] += e % k` (the cells stay small); a third of the time
    through a row alias instead (`_table_set_through_a_row`)."""
    if gen.tables and gen.rng.random() < 0.35:
        _table_set_through_a_row(gen, indent)
        return
    cell = table_cell(gen)
    value = "{} % {}".format(_paren(gen._expr("int", 1)), gen.rng.choice((7, 13, 100)))
    gen._emit(indent, "{} {} {}".format(cell, gen.rng.choice(("=", "+=")), value))


def _table_set_through_a_row(gen, indent):
    """`r = t[i]`, then one or two writes `r[j] = e % k` (or `+=`, the value perhaps reading
    `r`), perhaps under an `if`: the dynamic-programming idiom, where `t` must see each
    write (`converters/aliases.py`)."""
    rng = gen.rng
    name, rows, columns = rng.choice(gen.tables)
    ints = [n for n, t in gen.scope.readable if t == "int"]
    row = gen._fresh("r")
    if rng.random() < 0.3:  # every row, through a loop's target: `t` changes in place
        iterated = rng.choice(("{}", "enumerate({})", "{}[1:]")).format(name)
        target = "_, {}".format(row) if iterated.startswith("enumerate") else row
        gen._emit(indent, "for {} in {}:".format(target, iterated))
        indent += 1
    else:
        gen._emit(indent, "{} = {}[{}]".format(row, name, gen._matrix_index(ints, rows)))
    if rng.random() < 0.5:
        gen._emit(indent, "if {}:".format(gen._expr("bool", 1)))
        indent += 1
    for _ in range(rng.randint(1, 2)):
        value = _paren(gen._expr("int", 1))
        if rng.random() < 0.5:
            value = "{}[{}] + {}".format(row, gen._matrix_index(ints, columns), value)
        gen._emit(indent, "{}[{}] {} ({}) % {}".format(
            row, gen._matrix_index(ints, columns), rng.choice(("=", "+=")), value,
            rng.choice((7, 13, 100))))


def fold_tables(gen, indent):
    """Folds each table's cells into an int local that the function returns."""
    targets = [n for n, t in gen.return_vars if t == "int"]
    for name, rows, columns in gen.tables if targets else ():
        target = gen.rng.choice(targets)
        gen._emit(indent, "for r in range({}):".format(rows))
        if gen.rng.random() < 0.3:  # Python's max, sorted and index of a row
            gen._emit(indent + 1, "{0} = ({0} + max({1}[r]) * 7 + {1}[r].index(max({1}[r]))"
                      " + sorted({1}[r])[0] * 3) % 1000".format(target, name))
        gen._emit(indent + 1, "for c in range({}):".format(columns))
        gen._emit(indent + 2, "{} = ({} * 3 + {}[r][c]) % 1000".format(target, target, name))
