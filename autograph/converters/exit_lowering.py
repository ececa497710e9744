"""Shared lowering of break/continue/return: replace the jump, guard what follows it."""

import gast

from autograph.pyct import gast_util
from autograph.pyct import templates
from autograph.pyct import transformer

_LOOPS = (gast.While, gast.For)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)


def lower_loop_body(loop, jump_type, namer, flag_name):
    """Lowers the `break` or `continue` statements of one loop's body into a flag.

    Args:
      loop: a gast While or For node; its body is replaced.
      jump_type: gast.Break or gast.Continue.
      namer: the namer that makes the flag's name.
      flag_name: the base name of the flag ('break_', 'continue_').

    Returns:
      The flag's name, or None when the body has no such jump (and is left unchanged).
    """
    if not contains(loop.body, jump_type):
        return None
    flag = namer.new_symbol(flag_name)
    lowering = ExitLowering(
        lambda s: isinstance(s, jump_type),
        lambda s: templates.replace('flag = True', flag=flag), flag)
    loop.body, _ = lowering.block(loop.body)
    return flag


class ExitLowering(object):
    """Replaces jump statements by flag assignments and guards the code after them.

    Args:
      is_jump: predicate on a statement: is it a jump this lowering handles?
      replace: function from a jump statement to the list of statements replacing it.
      flag: the name of the flag the replacement sets to True.
      into_loops: whether jumps inside nested loops belong to this lowering (return) or
        not (break, continue).
      on_loop: called with each nested loop whose body contains a lowered jump, when
        `into_loops` is True, to make the loop stop on the flag.
    """

    def __init__(self, is_jump, replace, flag, into_loops=False, on_loop=None):
        self.is_jump = is_jump
        self.replace = replace
        self.flag = flag
        self.into_loops = into_loops
        self.on_loop = on_loop

    def block(self, stmts):
        """Lowers a list of statements.

        Args:
          stmts: a list of gast statements.

        Returns:
          A tuple (new statements, whether a jump may have happened in them).
        """
        out = []
        for i, stmt in enumerate(stmts):
            if self.is_jump(stmt):
                new = self.replace(stmt)
                transformer.set_missing_locations(new, stmt)
                out.extend(new)
                return out, True  # the rest of the block is dead code
            jumped = self.statement(stmt)
            out.append(stmt)
            if jumped:
                rest, _ = self.block(stmts[i + 1:])
                if rest:
                    guard = gast_util.if_not(self.flag, rest)
                    transformer.set_missing_locations(guard, rest[0])
                    out.append(guard)
                return out, True
        return out, False

    def statement(self, stmt):
        """Lowers the blocks nested in a compound statement, in place.

        Args:
          stmt: a gast statement.

        Returns:
          Whether a jump may have happened inside it.
        """
        if isinstance(stmt, gast.If):
            stmt.body, in_body = self.block(stmt.body)
            stmt.orelse, in_orelse = self.block(stmt.orelse)
            return in_body or in_orelse
        if isinstance(stmt, (gast.With, gast.AsyncWith)):
            stmt.body, jumped = self.block(stmt.body)
            return jumped
        if isinstance(stmt, gast.Try):
            return self._try(stmt)
        if isinstance(stmt, _LOOPS) and self.into_loops:
            stmt.body, jumped = self.block(stmt.body)
            stmt.orelse, in_orelse = self.block(stmt.orelse)
            if jumped and self.on_loop is not None:
                self.on_loop(stmt)
            return jumped or in_orelse
        return False

    def _try(self, stmt):
        stmt.body, in_body = self.block(stmt.body)
        jumped = in_body
        for handler in stmt.handlers:
            handler.body, in_handler = self.block(handler.body)
            jumped = jumped or in_handler
        stmt.orelse, in_orelse = self.block(stmt.orelse)
        if in_body and stmt.orelse:
            # A jump out of the try body skips its else clause.
            stmt.orelse = [gast_util.if_not(self.flag, stmt.orelse)]
        stmt.finalbody, in_final = self.block(stmt.finalbody)
        return jumped or in_orelse or in_final


def contains(stmts, node_type, into_loops=False):
    """Tells whether a block contains a statement of `node_type` that belongs to it.

    Args:
      stmts: a list of gast statements.
      node_type: a gast statement class (gast.Break, gast.Continue, gast.Return).
      into_loops: whether to look inside nested loops (and their else clauses).

    Returns:
      bool.
    """
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, node_type):
            return True
        if isinstance(node, gast.ExceptHandler):
            stack.extend(node.body)
            continue
        if isinstance(node, _SCOPES) or not isinstance(node, gast.stmt):
            continue
        if isinstance(node, _LOOPS) and not into_loops:
            continue
        for field in ('body', 'orelse', 'finalbody', 'handlers'):
            value = getattr(node, field, None)
            if value:
                stack.extend(value)
    return False
