"""What `ag__` is in generated code: the operators plus converted_call and FunctionScope.

This module itself works as `ag__` (with the standard options), so the output of `to_code`
runs on its own: `exec(code, {'ag__': autograph.impl.ag_namespace})`.
"""

from autograph.impl.api import AG_NAMES
from autograph.impl.api import _namespace_for as for_options  # noqa: F401 - this module's API
from autograph.impl.api import converted_call
from autograph.impl.function_wrappers import ConversionOptions
from autograph.impl.function_wrappers import FunctionScope
from autograph.impl.function_wrappers import with_function_scope
from autograph.operators import and_
from autograph.operators import assert_stmt
from autograph.operators import compare
from autograph.operators import evaluated
from autograph.operators import for_stmt
from autograph.operators import fstring
from autograph.operators import get_item
from autograph.operators import get_slice
from autograph.operators import if_exp
from autograph.operators import if_stmt
from autograph.operators import in_
from autograph.operators import is_
from autograph.operators import is_not
from autograph.operators import ld
from autograph.operators import ldu
from autograph.operators import list_append
from autograph.operators import list_concat
from autograph.operators import list_plus
from autograph.operators import list_method
from autograph.operators import list_options
from autograph.operators import list_pop
from autograph.operators import method
from autograph.operators import not_
from autograph.operators import not_in
from autograph.operators import or_
from autograph.operators import raising
from autograph.operators import repeat
from autograph.operators import set_display
from autograph.operators import set_item
from autograph.operators import set_nested_item
from autograph.operators import write_through
from autograph.operators import list_comprehension
from autograph.operators import reduce_generator
from autograph.operators import Symbol
from autograph.operators import Undefined
from autograph.operators import UndefinedReturnValue
from autograph.operators import while_stmt

__all__ = list(AG_NAMES)
