"""The nested structures of a saved function's arguments and results, as JSON, and back.

A tensor leaf is `{"tensor": i}` (the graph's i-th input) in an argument structure and
`{"output": i}` (its i-th output) in a result structure; Python values are JSON natives or
`{"tuple": [...]}` / `{"dict": [[key, value], ...]}`; lists are lists. A namedtuple is saved as
a tuple (its class is Python code, which the file does not hold).
"""
from runtime.saved_model.encoding import SavedModelError
from runtime.saved_model.encoding import _short

_LEAF_TAGS = ("tensor", "output")


def encode_structure(value, leaf_index, where):
    """The JSON form of a nested structure.

    Args:
        value: The structure: tuples, lists, dicts, Python literals and tensors.
        leaf_index: Callable giving a tensor leaf's JSON (`{"tensor": i}`), or None when the
            value is not a tensor of the graph.
        where: Text naming the structure for errors.

    Returns:
        A JSON value.

    Raises:
        SavedModelError: for a leaf that is neither a graph tensor nor a Python literal.
    """
    leaf = leaf_index(value)
    if leaf is not None:
        return leaf
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [encode_structure(v, leaf_index, where) for v in value]
    if isinstance(value, tuple):
        return {"tuple": [encode_structure(v, leaf_index, where) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[encode_structure(k, leaf_index, where),
                          encode_structure(v, leaf_index, where)] for k, v in value.items()]}
    raise SavedModelError(
        f"{where} holds {type(value).__name__} {_short(value)}: a saved function's arguments "
        f"and results may be tensors, Python numbers, strings, None, and tuples, lists and "
        f"dicts of them.")


def decode_structure(value, leaf, where):
    """The structure a JSON form stands for, `leaf(tag, index)` giving each tensor leaf.

    Raises:
        SavedModelError: for anything `encode_structure` does not write.
    """
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [decode_structure(v, leaf, where) for v in value]
    if isinstance(value, dict) and len(value) == 1:
        (tag, payload), = value.items()
        if tag in _LEAF_TAGS and type(payload) is int and payload >= 0:
            return leaf(tag, payload)
        if tag == "tuple" and isinstance(payload, list):
            return tuple(decode_structure(v, leaf, where) for v in payload)
        if tag == "dict" and isinstance(payload, list) and all(
                isinstance(p, list) and len(p) == 2 and isinstance(p[0], (str, int, float, bool))
                for p in payload):
            return {k: decode_structure(v, leaf, where) for k, v in payload}
    raise SavedModelError(f"{where}: {_short(value)} is not a structure this format writes.")
