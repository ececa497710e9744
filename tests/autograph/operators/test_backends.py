"""Tests for the backend registry."""

import pytest

from autograph import backends
from autograph.errors import UnsupportedByBackendError
from tests.autograph.fake_backend import FakeBackend
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import registered


def test_nothing_staged_without_backend():
    assert backends.backend_for(Sym(1)) is None
    assert not backends.is_staged(Sym(1))


def test_registered_backend_claims_its_values(fake):
    assert backends.backend_for(Sym(1)) is fake
    assert backends.is_staged(Sym(1))
    for value in (1, 2.0, True, 'a', None, [Sym(1)], (Sym(1),), {'a': Sym(1)}, object()):
        assert backends.backend_for(value) is None, value


def test_registration_is_idempotent_and_reversible():
    backend = FakeBackend()
    before = backends.registered_backends()
    backends.register_backend(backend)
    backends.register_backend(backend)
    assert backends.registered_backends() == before + (backend,)
    backends.unregister_backend(backend)
    assert backends.registered_backends() == before
    backends.unregister_backend(backend)  # unknown: ignored
    assert backends.registered_backends() == before


def test_first_registered_backend_wins():
    first, second = FakeBackend(), FakeBackend()
    with registered(first), registered(second):
        assert backends.backend_for(Sym(1)) is first


def test_python_subclasses_are_asked():
    class StagedList(list):
        pass

    class ListBackend(FakeBackend):
        def is_staged(self, value):
            return isinstance(value, StagedList)

    with registered(ListBackend()) as backend:
        assert backends.backend_for(StagedList()) is backend
        assert backends.backend_for([]) is None


def test_register_rejects_incomplete_backend():
    class Half(backends.Backend):
        def is_staged(self, value):
            return False

    with pytest.raises(TypeError) as e:
        backends.register_backend(Half())
    assert 'does not implement cond, while_loop' in str(e.value)


def test_register_rejects_objects_that_are_not_backends():
    class Duck:
        name = 'duck'

        def is_staged(self, value):
            return False

        def cond(self, pred, true_fn, false_fn, operands=()):
            return true_fn(*operands)

        def while_loop(self, cond_fn, body_fn, loop_vars):
            return loop_vars

    with pytest.raises(TypeError) as e:
        backends.register_backend(Duck())
    assert 'expected an instance of a subclass of autograph.Backend' in str(e.value)


def test_first_backend(fake):
    assert backends.first_backend([1, 'a', Sym(2)]) is fake
    assert backends.first_backend([1, [Sym(2)]]) is None


def test_missing_hook_default_says_which_construct(fake):
    class NoPrint(backends.Backend):
        name = 'noprint'

    with pytest.raises(UnsupportedByBackendError) as e:
        NoPrint().print_(Sym(1))
    assert str(e.value).startswith(
        "backend 'noprint' does not support print() of staged values: it does not override "
        "`print_` of autograph.Backend")


def test_default_hooks():
    backend = backends.Backend()
    assert backend.iterate(Sym(1)) is None
    assert backend.type_of(Sym(1)) is None
    assert backend.compatible_types('int32', 'int32')
    assert not backend.compatible_types('int32', 'float32')
    assert backend.probe() is None
    with pytest.raises(NotImplementedError):
        backend.call_builtin(len, (Sym(1),), {})
    for hook, args in [('assert_', (Sym(True), lambda: None)), ('new_list', ([], 1, 'l')),
                       ('list_append', (None, 1)), ('list_pop', (None, None)),
                       ('zeros_like', (Sym(1),)), ('scratch', ())]:
        with pytest.raises(UnsupportedByBackendError):
            getattr(backend, hook)(*args)


def test_default_logical_not_is_a_cond(fake):
    class CondOnly(FakeBackend):
        logical_not = backends.Backend.logical_not

    backend = CondOnly()
    assert backend.logical_not(Sym(True)).value is False
    assert backend.calls == ['cond']


def test_owned_modules_are_never_converted(fake):
    import types as pytypes
    from autograph.impl import api

    module = pytypes.ModuleType('ownedlib_for_test')
    exec('def double(x):\n    if x > 0:\n        return 2 * x\n    return x\n',
         module.__dict__)
    assert not api._module_is_allowlisted('ownedlib_for_test')

    class Owner(FakeBackend):
        owned_modules = ('ownedlib_for_test',)

    with registered(Owner()):
        assert api._module_is_allowlisted('ownedlib_for_test')
        assert api._module_is_allowlisted('ownedlib_for_test.sub')
    assert not api._module_is_allowlisted('ownedlib_for_test')


def _count_while(n, fake_names):
    """`while i < n: i += 1; total += i` through while_stmt, with the loop options given."""
    from autograph.operators import while_stmt  # pylint: disable=import-outside-toplevel
    state = {'i': 0, 'total': 0}

    def body():
        state['i'] += 1
        state['total'] += state['i']

    while_stmt(lambda: state['i'] < n, body, lambda: (state['i'], state['total']),
               lambda v: state.update(i=v[0], total=v[1]), ('i', 'total'), fake_names)
    return state['i'], state['total']


@pytest.mark.parametrize('n, bound', [(10, 4), (3, 8), (5, 0), (5, -2)])
def test_default_staged_loop_honours_maximum_iterations(fake, n, bound):
    # The plain loop stopped after `bound` iterations, as tf.while_loop's maximum_iterations.
    i = total = 0
    while i < n and i < bound:
        i += 1
        total += i
    got = _count_while(Sym(n), {'maximum_iterations': bound})
    assert (got[0].value, got[1].value) == (i, total)
    assert fake.calls.count('while_loop') == 1
    # Python values: the bound has no effect (TensorFlow: only staged loops take the options).
    assert _count_while(n, {'maximum_iterations': bound}) == (n, n * (n + 1) // 2)


def test_staged_loop_gets_the_names_of_the_loop_variables():
    seen = []

    class Recording(FakeBackend):
        def staged_loop(self, cond_fn, body_fn, loop_vars, options):
            seen.append(options)
            return super().staged_loop(cond_fn, body_fn, loop_vars, options)

    with registered(Recording()):
        _count_while(Sym(3), {'maximum_iterations': 2})
    assert seen[-1].names == ('i', 'total') and seen[-1].maximum_iterations == 2
    assert seen[-1].trip_count is None


def test_cond_gets_the_staged_state_as_operands(fake):
    import autograph as ag

    def f(x, y, n):
        if x > 0:
            y = y + x
            n = n + 1
        return y, n

    x, y = Sym(1), Sym(2)
    ag.convert(f)(x, y, 3)
    # the staged values of the statement's state, in the order of its outputs; the Python
    # int `n` is not an operand
    assert fake.operands == [(y,)]
    fake.operands.clear()
    p = Sym(True)
    ag.convert(lambda a, b: a and b)(p, y)
    assert fake.operands == [(p,)]
