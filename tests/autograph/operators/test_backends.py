"""Tests for the backend registry."""

import pytest

from autograph.errors import StagingError
from autograph.operators import backends
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
    class Half:
        def is_staged(self, value):
            return False

    with pytest.raises(TypeError) as e:
        backends.register_backend(Half())
    assert 'lacks cond, while_loop' in str(e.value)


def test_first_backend(fake):
    assert backends.first_backend([1, 'a', Sym(2)]) is fake
    assert backends.first_backend([1, [Sym(2)]]) is None


def test_get_hook_missing(fake):
    class NoPrint(FakeBackend):
        print_ = None

    assert backends.get_hook(fake, 'print_', 'x') == fake.print_
    with pytest.raises(StagingError) as e:
        backends.get_hook(NoPrint(), 'print_', 'print() of staged values')
    assert str(e.value).startswith(
        "backend 'fake' does not support print() of staged values: it has no `print_` hook")
