"""Lowers `return` anywhere in a function into `retval_`/`do_return` state and guards."""

import gast

from autograph.converters import exit_lowering
from autograph.operators.variables import Symbol
from autograph.pyct import anno
from autograph.pyct import gast_util
from autograph.pyct import templates
from autograph.pyct import transformer

ConvAnno = transformer.ConvAnno

# statements whose returns belong to another function
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)


def _always_returns(stmts):
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, gast.Return):
        return True
    return isinstance(last, gast.If) and _always_returns(last.body) and _always_returns(
        last.orelse)


def _never_falls_through(stmts):
    """Tells whether control can never run past the end of a block (it returns or raises).

    The answer is conservative: False when unsure.
    """
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (gast.Return, gast.Raise)):
        return True
    if isinstance(last, gast.If):
        return _never_falls_through(last.body) and _never_falls_through(last.orelse)
    if isinstance(last, (gast.With, gast.AsyncWith)):
        return _never_falls_through(last.body)
    if isinstance(last, gast.Try):
        if _never_falls_through(last.finalbody):
            return True
        return ((_never_falls_through(last.body) or _never_falls_through(last.orelse))
                and all(_never_falls_through(h.body) for h in last.handlers))
    if isinstance(last, gast.While):
        # `while True:` without a break of its own only ends by return or raise.
        test = last.test
        return (isinstance(test, gast.Constant) and test.value is True
                and not exit_lowering.contains(last.body, gast.Break))
    return False


def _returns_a_value(stmts):
    """Tells whether a block has a `return <value>` of its own (not of a nested function)."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, gast.Return):
            value = node.value
            if value is not None and not (isinstance(value, gast.Constant)
                                          and value.value is None):
                return True
            continue
        if isinstance(node, _SCOPES) or not isinstance(
                node, (gast.stmt, gast.ExceptHandler)):
            continue
        for field in ('body', 'orelse', 'finalbody', 'handlers'):
            stack.extend(getattr(node, field, None) or ())
    return False


def rewrite_conditional_returns(stmts):
    """Moves the code after `if c: ... return` into the branch that does not return.

    `if c: a; return x` followed by `b` becomes `if c: a; return x else: b`, so that both
    branches of a staged conditional set the return value.

    Args:
      stmts: a list of gast statements; nested blocks are rewritten in place.

    Returns:
      The new list of statements.
    """
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, gast.If):
            stmt.body = rewrite_conditional_returns(stmt.body)
            stmt.orelse = rewrite_conditional_returns(stmt.orelse)
            rest = stmts[i + 1:]
            if rest and _always_returns(stmt.body) and not _always_returns(stmt.orelse):
                stmt.orelse = rewrite_conditional_returns(stmt.orelse + rest)
                return stmts[:i + 1]
            if rest and _always_returns(stmt.orelse) and not _always_returns(stmt.body):
                stmt.body = rewrite_conditional_returns(stmt.body + rest)
                return stmts[:i + 1]
        elif isinstance(stmt, (gast.While, gast.For, gast.With, gast.Try)):
            for field in ('body', 'orelse', 'finalbody'):
                if getattr(stmt, field, None):
                    setattr(stmt, field, rewrite_conditional_returns(getattr(stmt, field)))
            for handler in getattr(stmt, 'handlers', ()):
                handler.body = rewrite_conditional_returns(handler.body)
    return stmts


class ReturnTransformer(transformer.Base):
    """Turns the returns of each function into state updates and one final return.

    A function whose only return is its last statement keeps it as is. Otherwise::

        do_return = False
        retval_ = ag__.UndefinedReturnValue()
        ... return x -> retval_ = x; do_return = True (later code guarded, loops stopped)
        return fscope.ret(retval_, do_return)

    When the function returns a value on some paths and can fall off its end on others,
    the last line is `return fscope.ret(retval_, do_return, may_fall_off=True)`.
    """

    statements_only = True

    def visit_ClassDef(self, node):
        return node

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        scope = anno.getanno(node, ConvAnno.FUNCTION_SCOPE_NAME, None)
        if scope is None or not node.body or not isinstance(node.body[-1], gast.With):
            return node
        with_stmt = node.body[-1]
        body = with_stmt.body
        if not exit_lowering.contains(body, gast.Return, into_loops=True):
            return node
        if not exit_lowering.contains(body[:-1], gast.Return, into_loops=True) and (
                not exit_lowering.contains(body[-1:], gast.Return, into_loops=True)
                or isinstance(body[-1], gast.Return)):
            return node
        returns_a_value = _returns_a_value(body)
        may_fall_off = returns_a_value and not _never_falls_through(body)
        body = rewrite_conditional_returns(body)
        with_stmt.body = self._lower(body, scope, returns_a_value, may_fall_off)
        return node

    def _lower(self, body, scope, returns_a_value, may_fall_off):
        namer = self.ctx.namer
        do_return = namer.new_symbol('do_return')
        retval = namer.new_symbol('retval_')
        self.ctx.generated_symbols[do_return] = Symbol.DO_RETURN
        self.ctx.generated_symbols[retval] = Symbol.RETURN_VALUE

        def replace(stmt):
            if stmt.value is None:
                if returns_a_value:
                    # An explicit None, so that a staged choice between this return and
                    # one with a value is an error, not the other return's placeholder.
                    return templates.replace('retval_ = None\ndo_return = True',
                                             retval_=retval, do_return=do_return)
                return templates.replace('do_return = True', do_return=do_return)
            return templates.replace('retval_ = value\ndo_return = True', retval_=retval,
                                     value=stmt.value, do_return=do_return)

        def stop_loop(loop):
            test = templates.replace_as_expression('not do_return', do_return=do_return)
            if isinstance(loop, gast.While):
                loop.test = templates.replace_as_expression(
                    'not do_return and test', do_return=do_return, test=loop.test)
            else:
                gast_util.add_extra_loop_test(loop, test)

        lowering = exit_lowering.ExitLowering(
            lambda s: isinstance(s, gast.Return), replace, do_return, into_loops=True,
            on_loop=stop_loop)
        new_body, _ = lowering.block(body)
        prologue = templates.replace(
            'do_return = False\nretval_ = ag__.UndefinedReturnValue()',
            do_return=do_return, retval_=retval)
        # A function that returns a value on some paths and falls off its end on others
        # tells `ret`, which rejects a staged choice between the two.
        epilogue = templates.replace(
            'return scope.ret(retval_, do_return, may_fall_off=True)' if may_fall_off
            else 'return scope.ret(retval_, do_return)', scope=scope, retval_=retval,
            do_return=do_return)
        transformer.set_missing_locations(prologue, body[0])
        transformer.set_missing_locations(epilogue, body[-1])
        return prologue + new_body + epilogue


def transform(node, ctx):
    """Lowers the return statements of every function in a tree.

    Args:
      node: a gast tree, after the functions converter.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return ReturnTransformer(ctx).visit(node)
