"""A custom backend in ~40 lines: symbolic values that record the control flow they meet."""
import autograph as ag


class Sym:
    """A symbolic value: arithmetic and comparisons build an expression string."""

    def __init__(self, expr):
        self.expr = expr

    def __repr__(self):
        return self.expr

    def _binary(op):  # pylint: disable=no-self-argument
        return (lambda a, b: Sym('(%r %s %r)' % (a, op, b)),
                lambda a, b: Sym('(%r %s %r)' % (b, op, a)))

    __add__, __radd__ = _binary('+')
    __sub__, __rsub__ = _binary('-')
    __mul__, __rmul__ = _binary('*')
    __lt__, __gt__ = _binary('<')[0], _binary('>')[0]


class RecordingBackend(ag.Backend):
    """Stages Sym values: cond and while_loop record what they see and return new Syms.

    The three required methods of ag.Backend; every other hook keeps its default.
    """

    name = 'recorder'

    def __init__(self):
        self.log = []

    def is_staged(self, value):
        return isinstance(value, Sym)

    def cond(self, pred, true_fn, false_fn, operands=()):
        self.log.append('cond on %r' % pred)
        outs = zip(true_fn(*operands), false_fn(*operands))
        return tuple(Sym('(%r if %r else %r)' % (t, pred, f)) for t, f in outs)

    def while_loop(self, cond_fn, body_fn, loop_vars):
        names = tuple(Sym('v%d' % i) for i in range(len(loop_vars)))
        self.log.append('while_loop: vars %r start at %r' % (names, tuple(loop_vars)))
        self.log.append('  test %r' % cond_fn(*names))
        self.log.append('  body %r' % (tuple(body_fn(*names)),))
        return tuple(Sym('while(...)[%d]' % i) for i in range(len(loop_vars)))


def accumulate(x, n):
    total = 0
    i = 0
    while i < n:
        if x > 0:
            total = total + i * x
        else:
            total = total - i
        i += 1
    return total


def main():
    backend = ag.register_backend(RecordingBackend())
    converted = ag.convert(accumulate)
    print('Python values run as plain Python: accumulate(2, 4) =', converted(2, 4))
    result = converted(Sym('x'), Sym('n'))
    print('Sym values are staged by the backend; the result is', result)
    print('The backend saw:')
    for line in backend.log:
        print('  ' + line)


if __name__ == '__main__':
    main()
