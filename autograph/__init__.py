"""Standalone AutoGraph: converts Python control flow into functional, stageable calls."""

__version__ = '0.1.0'

# Importing makes thousands of objects that live as long as the process (functions, classes,
# tables): the cyclic garbage collector would scan them again and again meanwhile, and a
# process's first conversion would pay for the generation it leaves due. See
# collector.paused.
from autograph.impl import collector as _collector

with _collector.paused():
    from autograph import experimental
    from autograph import operators
    from autograph.backends import Backend
    from autograph.backends import register_backend
    from autograph.errors import ConversionError
    from autograph.errors import StagingError
    from autograph.impl.api import convert
    from autograph.impl.api import converted_call
    from autograph.impl.api import do_not_convert
    from autograph.impl.api import set_verbosity
    from autograph.impl.api import to_code
    from autograph.impl.api import to_graph

__all__ = ['__version__', 'Backend', 'experimental', 'convert', 'to_code', 'to_graph', 'do_not_convert',
           'converted_call',
           'set_verbosity',
           'register_backend', 'operators', 'ConversionError', 'StagingError']
