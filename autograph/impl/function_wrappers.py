"""Run-time support that converted functions use: FunctionScope and conversion options."""

import collections

from autograph import errors
from autograph.impl import error_mapping
from autograph.impl import traceback_filter
from autograph.operators import backends
from autograph.operators import py_builtins
from autograph.operators import variables


class ConversionOptions(collections.namedtuple(
        'ConversionOptions', ['recursive', 'user_requested'])):
    """How a function is converted.

    Attributes:
      recursive: whether functions called by the converted one are converted too.
      user_requested: whether the user asked for this conversion explicitly (`convert`);
        such a function is converted even if its module is on the do-not-convert list.
    """

    def call_options(self):
        """Returns the options for the functions that a converted function calls.

        Returns:
          ConversionOptions.
        """
        if not self.user_requested:
            return self
        return ConversionOptions(recursive=self.recursive, user_requested=False)


STANDARD_OPTIONS = ConversionOptions(recursive=True, user_requested=False)


class FunctionScope(object):
    """The context of one call of a converted function: `with ag__.FunctionScope(...)`.

    It carries the options for calls made from the function (so that generated code holds
    no option literals), turns the final return state into a value, and adds the user's
    file and line to staging errors that leave the function.

    Args:
      function_name: the user function's name.
      scope_name: the name of the variable that holds the scope in generated code.
    """

    __slots__ = ('name', 'scope_name', 'callopts')

    # Options of the conversion; namespaces made for other options subclass this class.
    options = STANDARD_OPTIONS

    def __init__(self, function_name, scope_name):
        self.name = function_name
        self.scope_name = scope_name
        self.callopts = self.options.call_options()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if py_builtins.GUARDS.last is not None:
            note = py_builtins.staged_guard_note()  # an isinstance guard was False
            if exc_type is not None and note is not None:
                errors.add_note(exc, note)
        if exc_type is not None:
            if issubclass(exc_type, errors.StagingError):
                error_mapping.annotate(exc, tb)
            traceback_filter.filter_exception(exc)
        return False

    def ret(self, value, did_return, may_fall_off=False):
        """Returns the function's result from the lowered return state.

        Args:
          value: the value of `retval_`.
          did_return: whether a return statement ran (a bool, or a staged boolean when
            that depends on staged control flow).
          may_fall_off: whether the function returns a value on some paths and can also
            end without a return (returning None) on others.

        Returns:
          `value`, or None when no return statement set it.

        Raises:
          StagingError: `may_fall_off` is set and `did_return` is staged: the function would
            return a value or None depending on a staged condition.
        """
        if may_fall_off and backends.backend_for(did_return) is not None:
            raise errors.StagingError(
                '{name} returns a value on some paths and ends without a return statement '
                '(returning None) on others, and which one happens depends on a staged '
                'condition (a return inside a staged if or loop). A staged function must '
                'return a value of the same type on every path: add a return statement with '
                'a value at the end of {name}, after the loops and branches that '
                'return.'.format(name=self.name))
        # Otherwise the value alone tells: it stays UndefinedReturnValue when no return ran.
        if type(value) is variables.UndefinedReturnValue:
            return None
        return value


def with_function_scope(thunk, scope_name, scope_cls=FunctionScope):
    """Runs `thunk(scope)` inside a FunctionScope; used by converted top-level lambdas.

    Args:
      thunk: a function of one argument, the scope.
      scope_name: the name of the scope variable.
      scope_cls: the FunctionScope class (it carries the conversion options).

    Returns:
      What `thunk` returns.
    """
    with scope_cls('<lambda>', scope_name) as scope:
        return thunk(scope)
