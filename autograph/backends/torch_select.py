"""A staged `if` whose branches are a few operations on scalars that cannot fail on any data
becomes `torch.where` of both branches' outputs instead of a `torch.cond`.

Both branches then run every time, so only branches for which that is safe and cheap qualify:
every operation is one of `SAFE_OPS` (elementwise arithmetic, comparisons, logic, copies,
casts and views, none of which raises on any value: no integer division, no indexing, no
power of integers), on 0-d tensors only, at most `MAX_OPERATIONS` in all, with no staged
check or print, no loop, and no tensor of the enclosing function changed in place. The
operations are noted on autograph's discarded pass over the branches (`Operations`). A
`torch.cond` in an exported program runs its branches as Python subgraphs, which costs far
more than a few scalar operations; `torch.where` is what one writes by hand for such an `if`.
"""

import torch
from torch.utils import _pytree as pytree
from torch.utils._python_dispatch import TorchDispatchMode

_aten = torch.ops.aten

# Operations that give a value for every input value (no error depends on the data).
SAFE_OPS = frozenset({
    _aten.add, _aten.sub, _aten.mul, _aten.neg, _aten.abs, _aten.sign, _aten.rsub,
    _aten.add_, _aten.sub_, _aten.mul_, _aten.neg_, _aten.abs_,
    _aten.eq, _aten.ne, _aten.lt, _aten.le, _aten.gt, _aten.ge,
    _aten.logical_and, _aten.logical_or, _aten.logical_not, _aten.logical_xor,
    _aten.bitwise_and, _aten.bitwise_or, _aten.bitwise_xor, _aten.bitwise_not,
    _aten.maximum, _aten.minimum, _aten.where,
    _aten.clone, _aten.copy_, _aten.alias, _aten.detach, _aten._to_copy, _aten.view,
    _aten.reshape, _aten._unsafe_view, _aten.lift_fresh, _aten.lift_fresh_copy,
    _aten.full, _aten.scalar_tensor, _aten.zeros, _aten.ones, _aten.zeros_like,
    _aten.ones_like, _aten.full_like, _aten.empty_like, torch.ops.prim.device,
})
# True division: floats give inf or nan, integers are divided as floats.
SAFE_OVERLOADS = frozenset({_aten.div.Tensor, _aten.div.Scalar})
MAX_OPERATIONS = 16


class Operations(TorchDispatchMode):
    """Notes whether every operation run is a safe one (`SAFE_OPS`) on 0-d tensors."""

    def __init__(self):
        super().__init__()
        self.count = 0  # operations run
        self.safe = True  # every one of them in SAFE_OPS, on 0-d tensors

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.count += 1
        if self.safe and not ((func.overloadpacket in SAFE_OPS or func in SAFE_OVERLOADS)
                              and _scalars((args, kwargs, out))):
            self.safe = False
        return out


def _scalars(tree):
    return all(leaf.dim() == 0 for leaf in pytree.tree_leaves(tree)
               if isinstance(leaf, torch.Tensor))


def selectable(operations, outputs):
    """Whether branches that ran `operations` and gave `outputs` (two tuples) can be selected
    with torch.where: safe, few, and outputs of the same shapes."""
    if not operations.safe or operations.count > MAX_OPERATIONS:
        return False
    return all(_shape(a) == _shape(b) for a, b in zip(*outputs))


def _shape(value):
    return tuple(value.shape) if isinstance(value, torch.Tensor) else ()


def select_branches(fns, operands, mutated, select, true_only=0):
    """Runs both branches on the operands (each branch on a copy of each operand that it
    changes in place: `mutated`, one set of positions per branch) and selects each output
    with `select(true_value, false_value)`; the first `true_only` outputs are the true
    branch's (see `Backend.cond`)."""
    outs = []
    for fn, changed in zip(fns, mutated):
        own = [t.clone() if k in changed else t for k, t in enumerate(operands)]
        outs.append(tuple(fn(*own)))
    return tuple(a if k < true_only else select(a, b)
                 for k, (a, b) in enumerate(zip(*outs)))
