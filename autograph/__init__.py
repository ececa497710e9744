"""Standalone AutoGraph: converts Python control flow into functional, stageable calls."""

__version__ = '0.1.0'

from autograph import operators
from autograph.errors import ConversionError
from autograph.errors import StagingError
from autograph.impl.api import convert
from autograph.impl.api import converted_call
from autograph.impl.api import do_not_convert
from autograph.impl.api import set_verbosity
from autograph.impl.api import to_code
from autograph.operators.backends import register_backend

__all__ = ['__version__', 'convert', 'to_code', 'do_not_convert', 'converted_call', 'set_verbosity',
           'register_backend', 'operators', 'ConversionError', 'StagingError']
