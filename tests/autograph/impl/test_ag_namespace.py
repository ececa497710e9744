"""Tests for impl/ag_namespace.py and impl/function_wrappers.py."""

import autograph as ag
from autograph.impl import ag_namespace
from autograph.impl import function_wrappers
from autograph.operators import variables


def test_namespace_exposes_the_generated_code_contract():
    for name in ('if_stmt', 'while_stmt', 'for_stmt', 'and_', 'or_', 'not_', 'if_exp',
                 'assert_stmt', 'list_append', 'list_pop', 'ld', 'ldu', 'Undefined',
                 'UndefinedReturnValue', 'converted_call', 'FunctionScope'):
        assert hasattr(ag_namespace, name), name
        assert hasattr(ag_namespace.for_options(function_wrappers.STANDARD_OPTIONS), name)


def test_namespaces_per_options_carry_the_options():
    opts = function_wrappers.ConversionOptions(recursive=False, user_requested=True)
    ns = ag_namespace.for_options(opts)
    assert ns is ag_namespace.for_options(opts)
    with ns.FunctionScope('f', 'fscope') as scope:
        assert scope.callopts == function_wrappers.ConversionOptions(False, False)


def test_function_scope_ret():
    scope = function_wrappers.FunctionScope('f', 'fscope')
    assert scope.ret(variables.UndefinedReturnValue(), False) is None
    assert scope.ret(3, True) == 3


def not_recursive_inner(x):
    if x:
        return 'converted'
    return 'converted'


def not_recursive_outer(x):
    return not_recursive_inner(x)


def test_recursive_false_leaves_callees_alone():
    converted = ag.convert(not_recursive_outer, recursive=False)
    assert converted(1) == 'converted'
    # The callee ran unconverted: its code was never converted.
    from autograph.impl import conversion  # pylint: disable=g-import-not-at-top
    assert not_recursive_inner.__code__ not in conversion._CACHE  # pylint: disable=protected-access
    ag.convert(not_recursive_outer)(1)
    assert not_recursive_inner.__code__ in conversion._CACHE  # pylint: disable=protected-access


def test_the_namespaces_hold_this_modules_objects():
    # api makes the namespaces without importing this module: the same names, same objects
    assert sorted(ag_namespace.__all__) == sorted(
        n for n in vars(ag_namespace) if not n.startswith('_')
        and n not in ('AG_NAMES', 'for_options'))
    ns = ag_namespace.for_options(function_wrappers.STANDARD_OPTIONS)
    assert sorted(vars(ns)) == sorted(ag_namespace.__all__)
    for name in ag_namespace.__all__:
        assert getattr(ns, name) is getattr(ag_namespace, name), name
