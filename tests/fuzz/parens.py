"""Operands in generated source text: parenthesized where precedence needs it."""


def paren(text):
    """`text` as one operand: parenthesized unless it is a name, a number or already wrapped
    whole (`(a) + (b)` starts with a parenthesis but is not wrapped)."""
    if text.replace("_", "").replace(".", "").isalnum() or wrapped(text):
        return text
    return "({})".format(text)


def wrapped(text):
    """Whether `text` is one parenthesized expression: its first parenthesis closes last."""
    if not text.startswith("("):
        return False
    depth = 0
    for i, c in enumerate(text):
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return i == len(text) - 1
    return False
