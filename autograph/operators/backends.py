"""The backend registry, as the operators use it (it lives in `autograph.backends`)."""

from autograph.backends.registry import PYTHON_TYPES
from autograph.backends.registry import backend_for
from autograph.backends.registry import discovered
from autograph.backends.registry import first_backend
from autograph.backends.registry import is_staged
from autograph.backends.registry import probe
from autograph.backends.registry import register_backend
from autograph.backends.registry import registered_backends
from autograph.backends.registry import unregister_backend

__all__ = ['PYTHON_TYPES', 'backend_for', 'discovered', 'first_backend', 'is_staged', 'probe',
           'register_backend', 'registered_backends', 'unregister_backend']
