"""A Flax NNX model whose state changes inside data-dependent control flow, trained with optax.

`Gated.__call__` counts the batches whose mean is positive (`self.count`, a staged `if`),
adds up the mean activation after each of a traced number of refinement steps (`self.total`,
a staged `for` over a traced range, bounded so that jax.grad differentiates it) and halves a damping factor until it is small enough (a
staged `while`). `autograph.convert` stages those statements inside `nnx.jit`; the NNX
Variables they write are carried through lax.cond and the loops, as `nnx.cond` does by hand.
"""
import jax
import jax.numpy as jnp
import optax
from flax import nnx

import autograph as ag


class Count(nnx.Variable):
    """Statistics the model keeps (not trained)."""


class Gated(nnx.Module):
    def __init__(self, din, dout, rngs):
        self.linear = nnx.Linear(din, dout, rngs=rngs)
        self.count = Count(jnp.array(0))
        self.total = Count(jnp.array(0.0))
        self.damping = Count(jnp.array(1.0))

    @ag.convert
    def __call__(self, x, steps):
        y = self.linear(x)
        if jnp.mean(x) > 0:
            self.count[...] += 1
        for _ in range(steps):
            ag.experimental.set_loop_options(maximum_iterations=4)  # reverse-differentiable
            y = y - 0.1 * jnp.tanh(y)
            self.total[...] = self.total[...] + jnp.mean(jnp.abs(y))
        while self.damping[...] > 0.3:
            self.damping[...] = self.damping[...] / 2
        return y * self.damping[...]


def loss_fn(model, x, y, steps):
    return jnp.mean((model(x, steps) - y) ** 2)


@nnx.jit
def train_step(model, optimizer, x, y, steps):
    loss, grads = nnx.value_and_grad(loss_fn)(model, x, y, steps)
    optimizer.update(model, grads)
    return loss


def main():
    model = Gated(3, 2, nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adam(0.05), wrt=nnx.Param)
    key = jax.random.key(1)
    x = jax.random.normal(key, (16, 3))
    y = x[:, :2] * 2.0
    losses = []
    for step in range(5):
        losses.append(float(train_step(model, optimizer, x + step * 0.1, y, jnp.array(step))))
    print('losses:', ' '.join('%.4f' % loss for loss in losses))
    print('count:', int(model.count[...]))
    print('total: %.4f' % float(model.total[...]))
    print('damping:', float(model.damping[...]))


if __name__ == '__main__':
    main()
