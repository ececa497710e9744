"""Fixtures for the operator tests: a fake backend registered for one test."""

import pytest

from tests.autograph.fake_backend import registered


@pytest.fixture
def fake():
    """A fresh FakeBackend, registered for the duration of the test."""
    with registered() as backend:
        yield backend
