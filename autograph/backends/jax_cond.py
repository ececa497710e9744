"""The JAX backend's `if`: branch outputs joined under JAX's weak-type promotion, and two
branches that compute (almost) nothing selected with `lax.select` instead of a `lax.cond`."""
from autograph.backends.jax_values import JaxType
from autograph.backends.jax_values import jax_modules
from autograph.backends.jax_values import promoted
from autograph.backends.jax_values import trace_to_jaxpr


def joint_types(if_types, else_types):
    """Dtypes that make two branches' outputs agree under weak-type promotion, or None."""
    if if_types is None or else_types is None or len(if_types) != len(else_types):
        return None
    joint = []
    changed = False
    for a, b in zip(if_types, else_types):
        if a == b:
            joint.append(None)
            continue
        if not (isinstance(a, JaxType) and isinstance(b, JaxType)) or a.shape != b.shape:
            return None
        dtype = promoted(a, b)
        if dtype is None:
            return None
        joint.append(dtype)
        changed = True
    return joint if changed else None


def traced(fn):
    """fn's closed jaxpr (its free tracers become constants) and its output tree."""
    return trace_to_jaxpr(lambda: tuple(fn()))


def replay(branch):
    """A function of no arguments that binds a traced branch's equations again."""
    closed, tree = branch
    m = jax_modules()
    return lambda: m.jax.tree_util.tree_unflatten(
        tree, m.jax.core.eval_jaxpr(closed.jaxpr, closed.consts))


_CHEAP = frozenset(('not', 'and', 'or', 'xor', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'add', 'sub',
                    'neg', 'convert_element_type', 'select_n'))
# a few more equations when they are this cheap and their values are scalars
_CHEAP_SCALAR = _CHEAP | frozenset(('mul', 'max', 'min', 'abs'))
_MAX_SCALAR_EQNS = 10


def select_if_trivial(pred, true_branch, false_branch):
    """`lax.select` of two branches that compute (almost) nothing, else None.

    A branch qualifies with at most one equation of `_CHEAP`, or at most `_MAX_SCALAR_EQNS`
    of `_CHEAP_SCALAR` whose values are all scalars (no division, no transcendental:
    evaluating the untaken branch can make neither a NaN gradient nor noticeable work, while
    each lax.cond is two more computations for XLA to compile and a branch at run time); no
    effects; outputs of the same shapes and dtypes (weak types join as in lax.cond).
    """
    (t, t_tree), (f, f_tree) = true_branch, false_branch
    if t_tree != f_tree or t.jaxpr.effects or f.jaxpr.effects:
        return None
    for closed in (t, f):
        eqns = closed.jaxpr.eqns
        if len(eqns) <= 1:
            if any(e.primitive.name not in _CHEAP for e in eqns):
                return None
        elif len(eqns) > _MAX_SCALAR_EQNS or any(
                e.primitive.name not in _CHEAP_SCALAR
                or any(getattr(v.aval, 'shape', None) != () for v in e.outvars)
                for e in eqns):
            return None
    if [(a.shape, a.dtype) for a in t.out_avals] != [(a.shape, a.dtype) for a in f.out_avals]:
        return None
    m = jax_modules()
    t_out = m.jax.core.eval_jaxpr(t.jaxpr, t.consts)
    f_out = m.jax.core.eval_jaxpr(f.jaxpr, f.consts)
    return tuple(m.jax.tree_util.tree_unflatten(t_tree, [
        _select(m, pred, a, b) for a, b in zip(t_out, f_out)]))


def _select(m, pred, a, b):
    """lax.select(pred, a, b); a flag set to True in one branch and False in the other is
    `pred` itself (or its negation)."""
    if a is b:
        return a
    constants = _bool_constant(a), _bool_constant(b)
    if constants == (True, False) and pred.shape == ():
        return pred
    if constants == (False, True) and pred.shape == ():
        return m.numpy.logical_not(pred)
    return m.lax.select(pred, a, b)


def _bool_constant(value):
    """True or False for a concrete scalar bool (a branch's literal output), else None."""
    if isinstance(value, bool):
        return value
    dtype = getattr(value, 'dtype', None)
    if dtype is None or dtype.kind != 'b' or getattr(value, 'shape', None) != ():
        return None
    if isinstance(value, jax_modules().tracer):
        return None
    try:
        return bool(value)
    except Exception:  # pylint: disable=broad-except  # not concrete: no constant
        return None


def staged_cond(pred, true_fn, false_fn):
    """lax.cond(pred, true_fn, false_fn) of two functions of no arguments returning tuples;
    outputs that differ only by weak types are promoted, and trivial branches are a select.

    Each branch is traced once, here; a pair of branches that compute nothing (flags and
    constants: `continue`, `a and b` in a loop test) becomes one select instead of a lax.cond,
    which XLA compiles as two extra computations.
    """
    branches = traced(true_fn), traced(false_fn)
    selected = select_if_trivial(pred, *branches)
    if selected is not None:
        return selected
    lax = jax_modules().lax
    try:
        return tuple(lax.cond(pred, *(replay(b) for b in branches)))
    except TypeError:
        joint = joint_types(*[_leaf_types(closed, tree) for closed, tree in branches])
        if joint is None:
            raise
    jnp = jax_modules().numpy

    def cast(branch):
        def run():
            return tuple(v if t is None else jnp.asarray(v, dtype=t)
                         for v, t in zip(replay(branch)(), joint))
        return run

    return tuple(lax.cond(pred, *(cast(b) for b in branches)))


def _leaf_types(closed, tree):
    """The JaxType (or type name) of each output of a traced branch."""
    outs = jax_modules().jax.tree_util.tree_unflatten(tree, closed.out_avals)
    return tuple(_aval_type(v) for v in outs)


def _aval_type(value):
    if hasattr(value, 'dtype') and hasattr(value, 'shape'):
        return JaxType(str(value.dtype), tuple(value.shape), bool(getattr(value, 'weak_type',
                                                                          False)))
    return type(value).__name__
