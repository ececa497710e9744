"""What converted code calls at run time: control flow, logic, builtins, lists, placeholders."""

from autograph.operators.backends import backend_for
from autograph.operators.backends import is_staged
from autograph.operators.backends import register_backend
from autograph.operators.backends import unregister_backend
from autograph.operators.comparisons import compare
from autograph.operators.comparisons import in_
from autograph.operators.comparisons import is_
from autograph.operators.comparisons import is_not
from autograph.operators.comparisons import not_in
from autograph.operators.comparisons import set_display
from autograph.operators.conditional_expressions import if_exp
from autograph.operators.constant_tables import get_item
from autograph.errors import BranchVariableError
from autograph.operators.control_flow import for_stmt
from autograph.operators.control_flow import if_stmt
from autograph.operators.control_flow import while_stmt
from autograph.operators.data_structures import list_append
from autograph.operators.data_structures import list_concat
from autograph.operators.data_structures import list_plus
from autograph.operators.data_structures import get_slice
from autograph.operators.data_structures import list_method
from autograph.operators.data_structures import list_pop
from autograph.operators.data_structures import repeat
from autograph.operators.data_structures import set_item
from autograph.operators.data_structures import set_nested_item
from autograph.operators.data_structures import write_through
from autograph.operators.exceptions import assert_stmt
from autograph.operators.exceptions import fstring
from autograph.operators.exceptions import raising
from autograph.operators.generators import list_comprehension
from autograph.operators.generators import reduce_generator
from autograph.operators.list_directives import list_options
from autograph.operators.logical import and_
from autograph.operators.logical import evaluated
from autograph.operators.logical import not_
from autograph.operators.logical import or_
from autograph.operators.number_methods import method
from autograph.operators.py_builtins import BUILTIN_FUNCTIONS_MAP
from autograph.operators.py_builtins import abs_
from autograph.operators.py_builtins import all_
from autograph.operators.py_builtins import any_
from autograph.operators.py_builtins import enumerate_
from autograph.operators.py_builtins import float_
from autograph.operators.py_builtins import int_
from autograph.operators.py_builtins import len_
from autograph.operators.py_builtins import max_
from autograph.operators.py_builtins import min_
from autograph.operators.py_builtins import overload_of
from autograph.operators.py_builtins import print_
from autograph.operators.py_builtins import range_
from autograph.operators.py_builtins import sum_
from autograph.operators.py_builtins import zip_
from autograph.operators.variables import MaybeUndefined
from autograph.operators.variables import Symbol
from autograph.operators.variables import Undefined
from autograph.operators.variables import UndefinedReturnValue
from autograph.operators.variables import ld
from autograph.operators.variables import ldu

__all__ = [
    'BUILTIN_FUNCTIONS_MAP', 'BranchVariableError', 'MaybeUndefined', 'Symbol', 'Undefined', 'UndefinedReturnValue', 'abs_',
    'all_', 'and_', 'any_', 'assert_stmt', 'fstring', 'backend_for', 'compare', 'enumerate_',
    'evaluated', 'float_', 'for_stmt', 'if_exp', 'if_stmt', 'in_', 'int_', 'is_', 'is_not', 'is_staged', 'ld', 'ldu', 'len_',
    'list_append', 'list_comprehension', 'list_concat', 'list_method', 'list_plus', 'list_options', 'list_pop', 'max_', 'method', 'min_', 'not_', 'not_in', 'or_', 'overload_of', 'print_', 'raising', 'range_', 'reduce_generator', 'repeat', 'set_display', 'set_item', 'set_nested_item', 'write_through', 'get_item', 'get_slice',
    'register_backend',
    'sum_', 'unregister_backend', 'while_stmt', 'zip_',
]
