"""Weak typing in staged control flow: Python numbers that adopt the dtype they meet.

A loop variable that enters a staged loop as a Python number, and a branch output that is one,
is weakly typed (runtime/ops/promotion.py has the rules): the loop is traced again with the
dtype the body gives it (`widened`), and branch outputs join (`join_branch_outputs`). Inside
the loop body, the placeholder standing for such a number is weak too (`SymbolicTensor._weak`,
`weak_type`), and so is the output of a staged `if` whose branches all give Python numbers.
"""
from runtime import config
from runtime import context
from runtime import dtypes
from runtime.nest import flatten
from runtime.ops import promotion
from runtime.tensor import SymbolicTensor
from runtime.tensor import Tensor
from runtime.tensor_conversion import convert_to_tensor


def widened(before, entry, after, python=False):
    """The dtype a loop variable that enters as the Python number `before` (as a tensor of
    dtype `entry`) widens to when the body gives it dtype `after`, or None.

    A Python number is weakly typed (runtime/ops/promotion.py): `s = 0` then `s = s + 0.5`
    makes `s` a float, as in Python, so the loop carries it as the dtype they meet in; in the
    body its placeholder is weak too (`SymbolicTensor._weak`), so that meeting a float32
    tensor gives float32. A tensor widens within its kind (int32 to int64: Python has one int
    type), and in a loop that autograph converted (`python`: tf.while_loop keeps TensorFlow's
    fixed dtypes) from an int to a float (`n /= 4` makes Python's `n` a float; a loop that
    runs no iteration then gives the float of the int, an equal value).
    """
    if after is entry:
        return None
    if weak_type(before) is not None:
        # the dtype of the tensor it met (`total = 0.0` then `total += x` of a float32 x is
        # float32), or a float where Python makes one (`s = 0` then `s = s + 0.5`); never
        # back from a float to an int
        return after if (after.is_numeric or after.is_bool) and (
            after.is_floating or not entry.is_floating) else None
    if not ((entry.is_numeric or entry.is_bool) and after.is_numeric):
        return None
    if python and not entry.is_floating and after.is_floating:
        return after  # an int the body makes a float (`n /= 4`): Python's variable is a float
    if entry.is_floating != after.is_floating:
        return None  # never back from a float to an int
    joint = promotion.promoted_dtype(entry, after)
    return joint if joint is after else None


def holds(entry, after):
    """Whether a loop variable that enters as a tensor of dtype `entry` keeps it when the body
    gives it the narrower dtype `after` of the same kind (an int64 counter that the body sets
    to an int32 value): Python has one int type and one float type, so the body's value is
    cast to the entering dtype, as `widened` widens the other way."""
    return (after is not entry and entry.is_numeric and after.is_numeric
            and entry.is_floating == after.is_floating
            and promotion.promoted_dtype(entry, after) is entry)


def adopts(tensor, dtype):
    """Whether `tensor` stands for a Python number (`SymbolicTensor._weak`) that takes `dtype`
    where it meets it: a float meets floats, an int ints (or floats)."""
    kind = weak_type(tensor)
    if kind is None or not (dtype.is_numeric or dtype.is_bool):
        return False
    return dtype.is_floating or (kind is not float and not tensor.dtype.is_floating)


def list_prototype(items, element):
    """The value whose dtype a staged list of `items` takes when a staged loop appends
    `element`: its first item; but Python numbers meet the appended tensor's dtype (the list
    `[2, 3]` that a loop appends int64 values to holds int64s, as Python's holds ints; a
    float among either makes it floats)."""
    if not all(type(i) in (int, float, bool) for i in items):
        return items[0]
    if not isinstance(element, Tensor):
        # Python numbers alone: carried as staged control flow carries them (a float is a
        # float64, an int an int32, or int64 with runtime.config.enable_x64)
        first = items[0] if items else element
        if type(first) not in (int, float, bool):
            return first
        return convert_to_tensor(first, carried_dtype(first))
    dtype = element.dtype
    for number in items:
        dtype = promotion.weak_dtype(number, dtype) or dtype
    return promotion.cast(element, dtype)


def weak_type(value):
    """The Python type (int, float, bool) a weakly typed value stands for, or None.

    Args:
        value: Any object: a Python number, or a tensor.

    Returns:
        int, float or bool for a Python number or a loop placeholder that stands for one.
    """
    kind = type(value)
    if kind in (int, float, bool):
        return kind
    return value._weak if kind is SymbolicTensor else None


def all_weak(traced):
    """Per flat branch output: the Python type it stands for when every branch gives a Python
    number there (float when one is a float, then int, then bool), else None.

    Args:
        traced: (attr name, subgraph, returned structure, function, label) per branch.
    """
    leaves = [flatten(out) for _, _, out, _, _ in traced]
    kinds = []
    for i in range(len(leaves[0])):
        weak = {weak_type(branch[i]) for branch in leaves}
        kinds.append(None if None in weak else next(
            k for k in (float, int, bool) if k in weak))
    return kinds


def mark_outputs(outputs, kinds):
    """Marks the outputs of a branching node whose every branch gives a Python number there
    (`all_weak`): they stay weakly typed, as JAX's weak types (`r = 0.5 if p else 1.5`
    then `r * x` for a float32 `x` is float32)."""
    for tensor, kind in zip(outputs, kinds):
        tensor._weak = kind


def mark_loop_outputs(outputs, before, after):
    """Marks the outputs of a while node whose loop variable stands for a Python number on
    entry and at the end of the body (`u = 2.0` in a staged loop): weakly typed, as a branch
    output of Python numbers is (`mark_outputs`)."""
    for tensor, entry, exit_ in zip(outputs, before, after):
        if weak_type(entry) is not None and weak_type(exit_) is not None:
            tensor._weak = float if tensor.dtype.is_floating else int if (
                tensor.dtype.is_integer) else bool


def join_branch_outputs(traced, flats):
    """Gives a branch output that is a Python number the dtype of the other branches' output.

    A Python number is weakly typed (runtime/ops/promotion.py): `r = 0` in one branch and
    `r = n * 1.5` in the other meet as float64, as `0 == 0.0` in Python. Tensors of two
    different dtypes stay an error.

    Returns:
        `flats` (one list of tensors per branch), updated.
    """
    leaves = [flatten(out) for _, _, out, _, _ in traced]
    for i, kind in enumerate(all_weak(traced)):
        if kind is not None:
            # Python numbers in every branch: the dtype of `kind` (runtime.config.enable_x64),
            # each number converted afresh (a float32 cast to float64 loses digits)
            numbers = [branch[i] for branch in leaves]
            _cast_all(traced, flats, i, _joint_carried(kind, numbers), numbers)
            continue
        if len({flat[i].dtype for flat in flats}) == 1:
            continue
        weak = {k: weak_type(branch[i]) for k, branch in enumerate(leaves)
                if weak_type(branch[i]) is not None}
        joint = joint_dtype([flats[k][i].dtype for k in range(len(flats)) if k not in weak],
                            weak.values(), [flat[i].dtype for flat in flats])
        if joint is not None:
            _cast_all(traced, flats, i, joint)
    return flats


def carried_dtype(number):
    """The dtype of a Python number that staged control flow carries by itself: int32 or
    float32 (int64 and float64 with runtime.config.enable_x64), int64 for an int too large."""
    dtype = dtypes.as_dtype(config.python_number_dtype(type(number)))
    return promotion.weak_dtype(number, dtype) or dtype


def _joint_carried(kind, numbers):
    """The carried dtype of branch outputs that stand for Python numbers of type `kind`."""
    joint = dtypes.as_dtype(config.python_number_dtype(kind))
    for number in numbers:
        if type(number) is int and kind is int:
            joint = promotion.promoted_dtype(joint, carried_dtype(number)) or joint
    return joint


def _cast_all(traced, flats, i, dtype, numbers=None):
    """Casts every branch's output `i` to `dtype`, in that branch's graph; a Python number
    among `numbers` (the branches' leaves) is converted afresh, not cast (0.1 stays exact)."""
    for k, (_, sub, _, _, _) in enumerate(traced):
        tensor = flats[k][i]
        if tensor.dtype is not dtype:
            with context.graph_scope(sub):
                if numbers is not None and type(numbers[k]) in (int, float, bool):
                    flats[k][i] = sub.capture(convert_to_tensor(numbers[k], dtype))
                else:
                    flats[k][i] = promotion.cast(tensor, dtype)


def joint_dtype(strong, weak, every):
    """The dtype branch outputs meet in: one strong dtype (a bool joins an int, as Python's
    bool is one) that the weak ones adopt, or the join of the weak ones; None if none."""
    strong = set(strong)
    if len(strong) > 1 and dtypes.bool in strong:
        strong.discard(dtypes.bool)
    if len(strong) > 1:
        # ints of two widths are one Python type (int), as are floats: the wider; an int
        # and a float are not (the type would depend on the branch): no join
        if len({d.is_floating for d in strong}) > 1:
            return None
        joint = strong.pop()
        for dtype in strong:
            joint = promotion.promoted_dtype(joint, dtype) or joint
        strong = {joint}
    if strong:
        joint = strong.pop()
        for kind in weak:
            joint = promotion.weak_dtype(kind(), joint) or joint
        return joint
    joint = every[0]  # Python numbers in every branch: their dtypes' join (0 and 0.5)
    for dtype in every[1:]:
        joint = promotion.promoted_dtype(joint, dtype) or joint
    return joint
