"""Flax NNX Variables written inside staged if/for/while (autograph/backends/jax_nnx.py)."""
import ast
import os
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import errors as flax_errors
from flax import nnx

import autograph as ag
import autograph.backends.jax as ag_jax
from autograph.errors import BranchVariableError
from tests.checkout import ROOT
from tests.checkout import run_python


class Stats(nnx.Module):
    """A counter and an accumulator, written with `.value` (flax < 0.12's spelling)."""

    def __init__(self):
        self.count = nnx.Variable(jnp.array(0))
        self.total = nnx.Variable(jnp.array(0.0))

    def step(self, x, n):
        if x.sum() > 0:
            self.count.value += 1
            self.total.value = self.total.value + x.sum()
        for i in range(n):
            self.count.value += 1
            self.total.value = self.total.value + i * x[0]
        while self.total.value < 20.0:
            self.total.value = jnp.abs(self.total.value) * 2 + 1
            self.count.value += 1
        return x * self.count.value


class IndexedStats(Stats):
    """The same, written with `[...]` (flax 0.12's spelling), the update in a helper method."""

    def bump(self, by):
        self.count[...] += 1
        self.total[...] = self.total[...] + by

    def step(self, x, n):
        if x.sum() > 0:
            self.bump(x.sum())
        for i in range(n):
            self.bump(i * x[0])
        self.count[...] -= n
        for i in range(n):
            self.count[...] += 1
        while self.total[...] < 20.0:
            self.total[...] = jnp.abs(self.total[...]) * 2 + 1
            self.count[...] += 1
        return x * self.count[...]


_CASES = [(np.array([1.0, 2.0]), 3), (np.array([-1.0, -2.0]), 2), (np.array([0.5, 0.0]), 0),
          (np.array([3.0, 40.0]), 5)]


def _plain(cls, x, n):
    """Plain Python with eager NNX: no conversion, no jit."""
    model = cls()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)  # `.value` in flax 0.12
        out = model.step(jnp.asarray(x), n)
    return np.asarray(out), int(model.count[...]), float(model.total[...])


@pytest.fixture(autouse=True)
def _no_value_deprecation():
    with warnings.catch_warnings():
        warnings.filterwarnings('ignore', "'.value'", DeprecationWarning)
        yield


@pytest.mark.parametrize('cls', [Stats, IndexedStats])
@pytest.mark.parametrize('x,n', _CASES)
def test_nnx_jit_equals_plain_python(cls, x, n):
    @nnx.jit
    def run(model, x, n):
        return ag.convert(model.step)(x, n)

    model = cls()
    out = run(model, jnp.asarray(x), jnp.asarray(n))
    staged = np.asarray(out), int(model.count[...]), float(model.total[...])
    expected = _plain(cls, x, n)
    np.testing.assert_allclose(staged[0], expected[0], rtol=1e-6)
    assert staged[1:] == pytest.approx(expected[1:], rel=1e-6)


@pytest.mark.parametrize('cls', [Stats, IndexedStats])
@pytest.mark.parametrize('x,n', _CASES)
def test_autograph_jit_equals_plain_python(cls, x, n):
    # under jax.jit semantics a module is a pytree argument: the values come back as outputs
    def run(model, x, n):
        out = ag.convert(model.step)(x, n)
        return out, model.count[...], model.total[...]

    out, count, total = ag_jax.jit(run)(cls(), jnp.asarray(x), jnp.asarray(n))
    expected = _plain(cls, x, n)
    np.testing.assert_allclose(np.asarray(out), expected[0], rtol=1e-6)
    assert (int(count), float(total)) == pytest.approx(expected[1:], rel=1e-6)


def test_the_staged_program_has_the_control_flow():
    model = Stats()

    def run(model, x, n):
        return ag.convert(model.step)(x, n), model.count[...]

    text = str(jax.make_jaxpr(run)(model, jnp.ones(2), jnp.asarray(3)))
    assert 'cond[' in text and 'while[' in text


def test_a_failing_assert_after_the_state_changed_raises_at_the_call():
    class Checked(Stats):
        def step(self, x, n):
            if x.sum() > 0:
                self.count.value += 1
            assert self.count.value < 1, 'counted a positive batch'
            return x

    with pytest.raises(AssertionError, match='counted a positive batch'):
        ag_jax.jit(lambda m, x: ag.convert(m.step)(x, 0))(Checked(), jnp.ones(2))
    out = ag_jax.jit(lambda m, x: ag.convert(m.step)(x, 0))(Checked(), -jnp.ones(2))
    np.testing.assert_allclose(np.asarray(out), [-1.0, -1.0])


def test_the_example_trains_and_matches_plain_python():
    proc = run_python([os.path.join(ROOT, 'examples', 'jax_nnx_training.py')], timeout=300,
                      cwd=ROOT)
    lines = dict(line.split(': ', 1) for line in proc.stdout.strip().splitlines())
    losses = [float(v) for v in lines['losses'].split()]
    assert len(losses) == 5 and losses[-1] < losses[0] * 0.97
    # the same training with every jit off: plain Python on concrete values
    example = {}
    with open(os.path.join(ROOT, 'examples', 'jax_nnx_training.py'), encoding='utf-8') as f:
        exec(compile(f.read(), os.path.join(ROOT, 'examples', 'jax_nnx_training.py'), 'exec'),
             example)
    import optax  # pylint: disable=import-outside-toplevel
    with jax.disable_jit():
        model = example['Gated'](3, 2, nnx.Rngs(0))
        optimizer = nnx.Optimizer(model, optax.adam(0.05), wrt=nnx.Param)
        x = jax.random.normal(jax.random.key(1), (16, 3))
        plain = [float(example['train_step'](model, optimizer, x + s * 0.1, x[:, :2] * 2.0,
                                             jnp.array(s))) for s in range(5)]
    np.testing.assert_allclose(losses, plain, atol=2e-4)
    assert int(lines['count']) == int(model.count[...])
    assert float(lines['total']) == pytest.approx(float(model.total[...]), abs=2e-4)
    assert float(lines['damping']) == float(model.damping[...]) == 0.25


class Pair(nnx.Module):
    """Two names for one submodule: `first` and `second` are the same Stats."""

    def __init__(self, shared):
        self.first = shared
        self.second = shared


def two_names(model, x):
    alias = model
    if x.sum() > 0:
        model.count[...] += 1
        alias.count[...] += 10
    return x * model.count[...]


def shared_submodule(model, x):
    other = Pair(model.first)  # a second module holding the same submodule
    for i in range(3):
        if x[0] > i:
            model.first.count[...] += 1
            other.second.total[...] = other.second.total[...] + x[1]
    return x * model.second.count[...] + other.first.total[...]


def variable_and_module(model, x):
    count = model.count  # `.value` on the name: the Variable itself is no loop variable
    while count.value < 5:
        count.value += 2
        model.count[...] -= 1
        if x.sum() > 0:
            model.total[...] = 0.0  # a Python float into an array Variable
        else:
            model.total[...] = model.total[...] - count.value
    return x * count.value


def nested_with_method(model, x):
    seen = []
    for i in range(x.shape[0]):
        seen.append(model)
        while model.total[...] < x[i]:
            if x[i] > 1.5:
                model.bump(x[i])
            else:
                model.bump(1.0)
    assert all(m is model for m in seen)  # the code saw one object throughout
    return model.count[...] * 1.0


def bound_method(model, x):
    bump = model.bump  # a method bound to the module, held by a name of its own
    if x.sum() > 0:
        bump(x[0])
        model.count[...] += 1
    return x * model.count[...]


def alias_written_by_item_in_while(model, x):
    count = model.count  # the name is assigned by `count[...] += 2` (a set_item)
    i = 0
    while i < x.shape[0] + x[0]:
        count[...] += 2
        i += 1
    return x * model.count[...]


def alias_written_by_item_in_if(model, x):
    count, total = model.count, model.total
    if x.sum() > 0:
        count[...] += 2
        total[...] = total[...] + x[0]
    else:
        total[...] -= 1.0
    return x * model.count[...] + model.total[...]


def alias_written_in_for_and_nested_if(model, x):
    total = model.total
    for i in range(4):
        if x[0] > i:
            total[...] += x[1]
        model.count[...] += 1
    return total[...] + model.count[...]


_IDENTITY_CASES = [(two_names, Stats), (shared_submodule, lambda: Pair(Stats())),
                   (variable_and_module, Stats), (nested_with_method, IndexedStats),
                   (bound_method, IndexedStats), (alias_written_by_item_in_while, Stats),
                   (alias_written_by_item_in_if, Stats),
                   (alias_written_in_for_and_nested_if, Stats)]


def _state(model):
    return [np.asarray(v.get_raw_value()) for v in jax.tree.leaves(
        nnx.state(model), is_leaf=lambda v: isinstance(v, nnx.Variable))]


@pytest.mark.parametrize('fn,make', _IDENTITY_CASES)
@pytest.mark.parametrize('x', [np.array([2.0, 3.0]), np.array([-1.0, 0.5])])
def test_objects_reached_by_several_names_equal_plain_python(fn, make, x):
    model = make()
    out = nnx.jit(lambda m, x: ag.convert(fn)(m, x))(model, jnp.asarray(x))
    expected_model = make()
    expected = fn(expected_model, jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(out), np.asarray(expected), rtol=1e-6)
    for staged, plain in zip(_state(model), _state(expected_model)):
        np.testing.assert_allclose(staged, plain, rtol=1e-6)
    # nothing of a trace is left behind: every Variable holds a concrete array again
    for variable in jax.tree.leaves(nnx.state(model),
                                    is_leaf=lambda v: isinstance(v, nnx.Variable)):
        assert isinstance(variable.get_raw_value(), jax.Array)
        assert not isinstance(variable.get_raw_value(), jax.core.Tracer)


def rebinds_in_loop(model, x):
    count = model.count
    while count[...] < x[0]:
        count[...] += 1
        count = model.total  # another Variable: a name of an NNX object is not a loop value
    return x * count[...]


def rebinds_in_one_branch(model, x):
    count = model.count
    if x.sum() > 0:
        count[...] += 1
    else:
        count = model.total  # which Variable the name holds would depend on a staged value
    return x * count[...]


@pytest.mark.parametrize('fn,where', [(rebinds_in_loop, 'loop'),
                                      (rebinds_in_one_branch, 'if')])
def test_rebinding_a_name_of_an_nnx_object_in_a_staged_statement_raises(fn, where):
    x = jnp.array([2.0, 3.0])
    fn(Stats(), x)  # plain Python runs it
    with pytest.raises(flax_errors.TraceContextError,
                       match=r"staged {} assigns 'count'.*keep the other value".format(where)):
        nnx.jit(lambda m, x: ag.convert(fn)(m, x))(Stats(), x)


def test_a_name_of_an_nnx_variable_given_an_array_in_one_branch_is_a_branch_error():
    def fn(model, x):
        count = model.count
        if x.sum() > 0:
            count[...] += 1
        else:
            count = x[0]
        return x * count

    with pytest.raises(ag.errors.BranchVariableError, match="'count' has type Variable in the if"):
        nnx.jit(lambda m, x: ag.convert(fn)(m, x))(Stats(), jnp.array([2.0, 3.0]))


def test_a_module_of_an_outer_trace_is_read_inside_and_not_written():
    outer = Stats()

    def read(x):
        if x.sum() > 0:
            x = x + outer.total[...] + 1.0
        return x

    def write(x):
        if x.sum() > 0:
            outer.count[...] += 1
        return x

    np.testing.assert_allclose(np.asarray(jax.jit(ag.convert(read))(jnp.ones(2))), [2.0, 2.0])
    with pytest.raises(flax_errors.TraceContextError, match='different trace level'):
        jax.jit(ag.convert(write))(jnp.ones(2))
    assert int(outer.count[...]) == 0 and not isinstance(outer.count.get_raw_value(),
                                                           jax.core.Tracer)


def test_changing_a_module_beyond_its_array_variables_in_a_staged_branch_raises():
    class Flagged(Stats):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def step(self, x):
            if x.sum() > 0:
                self.calls += 1  # a Python attribute: lost if staged, so it raises
            return x

    with pytest.raises(flax_errors.TraceContextError,
                       match=r"staged if changed 'self'.*set an attribute"):
        nnx.jit(lambda m, x: ag.convert(m.step)(x))(Flagged(), jnp.ones(2))


def test_the_threading_reads_and_writes_no_private_attribute():
    # Flax's public API only (issue #31): no `obj._field` of a Variable, module or trace,
    # nor a private name given to getattr or setattr
    path = os.path.join(ROOT, 'autograph', 'backends', 'jax_nnx.py')
    with open(path, encoding='utf-8') as f:
        tree = ast.parse(f.read())
    names = [node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)]
    names += [node.value for node in ast.walk(tree)
              if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    assert [n for n in names if n.startswith('_') and not n.endswith('__')] == []


class Stack(nnx.Module):
    """Flax's own layers: Linear in an nnx.List, BatchNorm's running statistics written in a
    staged if, Dropout drawing from its Rngs (a typed PRNG key Variable) in a staged loop."""

    def __init__(self, rngs):
        self.layers = nnx.List([nnx.Linear(4, 4, rngs=rngs) for _ in range(3)])
        self.calls = nnx.Variable(jnp.array(0))
        self.norm = nnx.BatchNorm(4, rngs=rngs)
        self.drop = nnx.Dropout(0.5, rngs=rngs)

    def __call__(self, x, n):
        for _ in range(n):
            for layer in self.layers:
                x = jnp.tanh(layer(x))
            if x.sum() > 0:
                x = self.norm(x)
            x = self.drop(x)
            self.calls[...] += 1
        return x


@pytest.mark.parametrize('n', [0, 3])
def test_flax_layers_with_a_prng_key_in_a_staged_loop_equal_plain_python(n):
    plain = Stack(nnx.Rngs(0))
    expected = plain(jnp.ones((2, 4)), n)  # eager NNX: a Python loop
    staged = Stack(nnx.Rngs(0))
    out = nnx.jit(lambda m, x, k: ag.convert(m.__call__)(x, k))(staged, jnp.ones((2, 4)),
                                                                 jnp.array(n))
    np.testing.assert_allclose(np.asarray(out), np.asarray(expected), atol=1e-5)
    assert int(staged.calls[...]) == int(plain.calls[...]) == n
    for a, b in zip(_raw_state(staged), _raw_state(plain)):
        np.testing.assert_allclose(a, b, atol=1e-5)


def _raw_state(model):
    """The values of the model's Variables, a PRNG key as its key data."""
    values = [v.get_raw_value() for v in jax.tree.leaves(
        nnx.state(model), is_leaf=lambda v: isinstance(v, nnx.Variable))]
    return [np.asarray(jax.random.key_data(v) if jax.dtypes.issubdtype(
        v.dtype, jax.dtypes.extended) else v) for v in values]


class Bumps(nnx.Module):
    """A Variable changed by a call in a conditional expression and in `and`/`or` operands."""

    def __init__(self):
        self.count = nnx.Variable(jnp.array(0))

    def bump(self):
        self.count[...] += 1
        return self.count[...] > 0

    def step(self, x):
        y = self.bump() * 10 if x.sum() > 0 else -1
        z = x.sum() > 0 and self.bump()
        w = x.sum() > 0 or self.bump()
        return x * y + z + w


@pytest.mark.parametrize('x,count', [(np.array([1.0, 2.0]), 2), (np.array([-1.0, -2.0]), 1)])
def test_expressions_that_change_a_variable_in_one_branch(x, count):
    # Before, the call in the staged branch raised flax's TraceContextError ("Cannot mutate
    # Variable from a different trace level"): only statements threaded the module's state.
    model = Bumps()
    out = nnx.jit(lambda m, x: ag.convert(m.step)(x))(model, jnp.asarray(x))
    plain = Bumps()
    expected = plain.step(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(out), np.asarray(expected))
    assert int(model.count[...]) == int(plain.count[...]) == count


def test_a_variable_against_an_array_gets_no_cast_advice():
    class Picks(nnx.Module):
        def __init__(self):
            self.count = nnx.Variable(jnp.array(0))

        def step(self, x):
            if x.sum() > 0:
                y = self.count
            else:
                y = jnp.array(0)
            return x * y[...]

    with pytest.raises(BranchVariableError) as info:
        nnx.jit(lambda m, x: ag.convert(m.step)(x))(Picks(), jnp.ones(2))
    message = str(info.value)
    # it said "cast it (tf.cast, .astype)", which no cast can do for a Variable
    assert 'cast it' not in message
    assert 'a Variable and a tensor (~int32[])' in message and 'v[...]' in message
