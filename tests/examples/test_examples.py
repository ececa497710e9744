"""Runs every script in examples/ as a subprocess and checks its exit status and key output."""
import functools
import os
import re

import numpy as np
import pytest

from tests.checkout import ROOT
from tests.checkout import run_python

EXAMPLES = os.path.join(ROOT, 'examples')


@functools.lru_cache(maxsize=None)
def run_example(name):
    """Runs examples/<name> with this interpreter; returns (exit status, stdout, stderr)."""
    proc = run_python([os.path.join(EXAMPLES, name)], timeout=300, check=False, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def output_of(name):
    status, out, err = run_example(name)
    assert status == 0, 'examples/%s exited with %d:\n%s' % (name, status, err)
    assert 'Traceback' not in err, err
    return out


def test_every_example_is_tested():
    scripts = sorted(f for f in os.listdir(EXAMPLES) if f.endswith('.py'))
    assert scripts == ['collatz.py', 'custom_backend.py', 'dynamic_rnn.py', 'early_exit.py',
                       'fizzbuzz.py', 'jax_control_flow.py', 'jax_multi_device.py',
                       'jax_nnx_training.py', 'onnx_export.py', 'quickstart.py', 'torch_dynamic_rnn.py',
                       'torch_early_exit.py', 'torch_export.py', 'tracing.py', 'train_dataset.py',
                       'train_rnn.py']
    # the torch_*.py examples are run by tests/torch/test_torch_examples.py (they need torch),
    # onnx_export.py by tests/runtime/onnx/test_export.py (it needs onnx and onnxruntime),
    # jax_nnx_training.py by tests/jax_nnx/test_jax_nnx.py (it needs flax and optax)


def test_quickstart():
    out = output_of('quickstart.py')
    # 2 + 4 before the -1: the break stops the loop.
    assert 'sum_even([2, 3, 4, -1, 6]) = 6' in out
    assert 'converted([2, 3, 4, -1, 6]) = 6' in out
    assert 'ag__.for_stmt(items,' in out
    assert out.count('tf.Tensor(6, shape=(), dtype=int32)') == 2
    assert 'tf.Tensor(60, shape=(), dtype=int32)' in out  # 10 + 20 + 30
    assert 'traces: 1' in out
    ops = re.search(r'ops in the graph: (.*)', out).group(1).split(', ')
    assert any('While' in op for op in ops), ops


def _fizzbuzz(n):
    words = []
    for i in range(1, n + 1):
        words.append('FizzBuzz' if i % 15 == 0 else 'Fizz' if i % 3 == 0
                     else 'Buzz' if i % 5 == 0 else str(i))
    return words


def test_fizzbuzz():
    lines = output_of('fizzbuzz.py').splitlines()
    assert lines[0] == 'fizzbuzz(15):'
    assert lines[1:16] == _fizzbuzz(15)
    assert lines[16] == 'Fizz count: 4'
    assert lines[18:24] == _fizzbuzz(6)
    assert lines[24] == 'Fizz count: 2 | traces: 1'


def test_collatz():
    out = output_of('collatz.py')
    for n, steps in ((1, 0), (6, 8), (7, 16), (27, 111), (97, 118)):
        assert 'collatz_steps(%d) = %d' % (n, steps) in out
    assert 'traces: 1' in out
    assert 'n (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.int32, name=None)' in out
    assert 'a vector does not match the signature, ValueError:' in out


def test_dynamic_rnn():
    out = output_of('dynamic_rnn.py')
    assert 'batch=1 time=4 -> output shape (1, 4, 3)' in out
    assert 'batch=2 time=7 -> output shape (2, 7, 3)' in out
    assert out.count('matches the numpy reference: True') == 2
    assert 'traces: 1' in out
    # The first printed output, recomputed here by hand with the example's weights.
    w_x = np.array([[0.5, -0.25, 1.0], [0.75, 0.5, -0.5]])
    w_h = np.eye(3) * 0.25
    inputs = np.linspace(-1.0, 1.0, 8).reshape(4, 2)
    state = np.zeros(3)
    for x in inputs:
        state = np.tanh(x @ w_x + state @ w_h)
    printed = re.search(r'last output of sequence 0: \[([^\]]*)\]', out).group(1)
    np.testing.assert_allclose([float(v) for v in printed.split()], state, atol=1e-4)


def test_early_exit():
    out = output_of('early_exit.py')
    assert out.count('first_index_above([1, 5, 9, 2], 4) = 1') == 1
    assert 'first_index_above([1, 2], 4) = -1' in out
    # 1 -> 128 takes 7 doublings; 5000 is not reached in 10 (1024).
    assert out.count('steps_to_exceed(100, 10) = (7, 128)') == 2
    assert out.count('steps_to_exceed(5000, 10) = (10, 1024)') == 2
    assert 'first_index_above(values, 4.0) = 1' in out
    assert 'first_index_above(values, 8.0) = 2' in out
    assert 'first_index_above(values, 10.0) = -1' in out
    assert 'traces: 1 1' in out


def test_tracing():
    out = output_of('tracing.py')
    # Traces: shape (2,), shape (3,), factor=3.0, factor as a tensor.
    assert out.count('(tracing scale') == 4
    assert out.count('(running scale)') == 6
    assert 'scale traced 4 times' in out
    assert out.count('(tracing total)') == 1
    assert 'total(5 ones) = 5.0' in out
    assert out.count('(tracing double') == 2
    assert '(tracing double with x=(None,))' in out
    assert 'double traced 2 times' in out


def test_custom_backend():
    out = output_of('custom_backend.py')
    assert 'accumulate(2, 4) = 12' in out  # 0*2 + 1*2 + 2*2 + 3*2
    assert 'while_loop: vars (v0, v1) start at (0, 0)' in out
    assert 'test (v1 < n)' in out
    assert 'cond on (x > 0)' in out


def test_jax_control_flow():
    out = output_of('jax_control_flow.py')
    assert 'plain jax.jit: TracerBoolConversionError' in out
    assert 'collatz_steps(27) = 111' in out
    assert 'vmap over 1..8: [0, 1, 7, 2, 5, 8, 16, 3]' in out
    assert 'first_above([1, 5, 7], 4) = 1' in out
    # d/dx of 0.5 x^2 * 1.5^2 at 0.5, and of (x - 0.5) * 1.5^2 at 3.0
    assert 'grad of smooth_abs at 0.5 and 3.0: 1.125 2.25' in out
    assert "primitives: ['ne', 'while']" in out  # the if is inside the while body


def test_jax_multi_device():
    out = output_of('jax_multi_device.py')
    assert 'devices: 8 cpu' in out
    assert 'input sharded over 8 devices' in out and 'output sharded over 8 devices' in out
    assert 'relative error below 1e-4: True' in out
    assert 'steps equal plain Python: True' in out
    steps = re.search(r'steps differ per row: min (\d+) max (\d+)', out)
    assert int(steps.group(1)) < int(steps.group(2))


@pytest.mark.parametrize('name', ['quickstart.py', 'custom_backend.py', 'jax_control_flow.py'])
def test_examples_convert_cleanly(name):
    _, _, err = run_example(name)
    assert 'could not convert' not in err


def test_every_example_function_converts():
    from autograph.cli import dump as cli  # pylint: disable=import-outside-toplevel
    failures = []
    converted = 0
    for module in cli.resolve_target(EXAMPLES):
        for entity in cli.read_module(module.filename):
            fn = cli.stub_function(entity, module.filename, module.module_name)
            source, reason, _ = cli.convert_entity(fn)
            if reason is None:
                compile(source, module.filename, 'exec')
                converted += 1
            else:
                failures.append((entity.qualname, reason))
    assert not failures
    assert converted >= 20


def test_train_rnn():
    out = output_of('train_rnn.py')
    losses = [float(v) for v in re.findall(r'held-out loss (\d+\.\d+)', out)]
    assert len(losses) == 6
    assert losses[-1] < 0.2 * losses[0], losses  # it learns, not just drifts
    assert 'train_step traces: 2' in out  # Adam's slots are created on the first call
    error = float(re.search(r'max relative error (\S+) ', out).group(1))
    assert error < 1e-6, out


def test_train_dataset():
    out = output_of('train_dataset.py')
    losses = [float(v) for v in re.findall(r'epoch \d+: mean loss ([0-9.]+)', out)]
    assert len(losses) == 4 and losses[-1] < 1e-3 and losses[-1] <= losses[0]
    assert 'w = [ 2. -3.] b = [0.5]' in out  # the true weights, learnt
    # the first call traces twice (SGD creates its variables); a second dataset, none
    assert 'traces after the first dataset: 2' in out
    assert 'traces after a second dataset: 2' in out
    assert 'while nodes in the graph: 1' in out
    assert 'staged epoch == eager epoch: True' in out
