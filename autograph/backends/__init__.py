"""Backends: the protocol (`Backend`), the registry, and entry-point discovery.

The JAX backend is `autograph.backends.jax` (imported on its own; it needs the `jax` extra).
"""

from autograph.backends.base import Backend
from autograph.backends.base import LoopOptions
from autograph.backends.registry import ENTRY_POINT_GROUP
from autograph.backends.registry import PYTHON_TYPES
from autograph.backends.registry import backend_for
from autograph.backends.registry import discover
from autograph.backends.registry import discovered
from autograph.backends.registry import first_backend
from autograph.backends.registry import is_staged
from autograph.backends.registry import on_change
from autograph.backends.registry import owned_by_loaded
from autograph.backends.registry import owned_modules
from autograph.backends.registry import register_backend
from autograph.backends.registry import registered_backends
from autograph.backends.registry import unregister_backend

__all__ = ['Backend', 'ENTRY_POINT_GROUP', 'LoopOptions', 'PYTHON_TYPES', 'backend_for', 'discover',
           'discovered', 'first_backend', 'is_staged', 'on_change', 'owned_by_loaded',
           'owned_modules', 'register_backend', 'registered_backends', 'unregister_backend']
