"""What `ag__` is in generated code: the operators plus converted_call and FunctionScope.

This module itself works as `ag__` (with the standard options), so the output of `to_code`
runs on its own: `exec(code, {'ag__': autograph.impl.ag_namespace})`.
"""

import functools
import threading
import types

from autograph.impl.api import converted_call
from autograph.impl.function_wrappers import ConversionOptions
from autograph.impl.function_wrappers import FunctionScope
from autograph.impl.function_wrappers import STANDARD_OPTIONS
from autograph.impl.function_wrappers import with_function_scope
from autograph.operators import and_
from autograph.operators import assert_stmt
from autograph.operators import compare
from autograph.operators import for_stmt
from autograph.operators import fstring
from autograph.operators import if_exp
from autograph.operators import if_stmt
from autograph.operators import in_
from autograph.operators import ld
from autograph.operators import ldu
from autograph.operators import list_append
from autograph.operators import list_pop
from autograph.operators import not_
from autograph.operators import not_in
from autograph.operators import or_
from autograph.operators import Symbol
from autograph.operators import Undefined
from autograph.operators import UndefinedReturnValue
from autograph.operators import while_stmt

__all__ = [
    'ConversionOptions', 'FunctionScope', 'Symbol', 'Undefined', 'UndefinedReturnValue', 'and_',
    'assert_stmt', 'compare', 'converted_call', 'for_stmt', 'fstring', 'if_exp', 'if_stmt', 'in_',
    'ld', 'ldu', 'list_append', 'list_pop', 'not_', 'not_in', 'or_', 'while_stmt',
    'with_function_scope',
]

# ConversionOptions -> namespace object whose FunctionScope carries those options
_NAMESPACES = {}
_LOCK = threading.Lock()


def for_options(options):
    """Returns the `ag__` namespace for converted code that runs with `options`.

    Args:
      options: a ConversionOptions.

    Returns:
      A namespace object with the names of this module; its FunctionScope is a subclass
      whose `options` are `options`.
    """
    ns = _NAMESPACES.get(options)
    if ns is not None:
        return ns
    with _LOCK:
        ns = _NAMESPACES.get(options)
        if ns is None:
            names = {name: globals()[name] for name in __all__}
            if options != STANDARD_OPTIONS:
                scope_cls = type('FunctionScope', (FunctionScope,),
                                 {'__slots__': (), 'options': options})
                names['FunctionScope'] = scope_cls
                names['with_function_scope'] = functools.partial(
                    with_function_scope, scope_cls=scope_cls)
            ns = types.SimpleNamespace(**names)
            _NAMESPACES[options] = ns
    return ns
