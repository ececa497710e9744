"""Converted data-dependent loops on a batch sharded over 8 devices.

On CPU, 8 host devices come from XLA_FLAGS=--xla_force_host_platform_device_count=8 (set below,
before jax is imported); the same code runs unchanged on GPUs or TPUs. Each row of the batch
runs its own number of Newton iterations (a while loop on traced values), and XLA spreads the
rows over the devices.
"""
import os

os.environ.setdefault('XLA_FLAGS', '--xla_force_host_platform_device_count=8')

import jax  # noqa: E402  (after XLA_FLAGS)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402

import autograph as ag  # noqa: E402


def newton_sqrt(a):
    """Square root of a by Newton's method: iterate until the step is tiny; count the steps."""
    x = a
    steps = 0
    while abs(x * x - a) > 1e-4 * a and steps < 50:
        x = 0.5 * (x + a / x)
        steps += 1
    return x, steps


def main():
    devices = jax.devices()
    print('devices:', len(devices), devices[0].platform)
    mesh = Mesh(np.array(devices), ('batch',))
    sharding = NamedSharding(mesh, PartitionSpec('batch'))
    batch = jnp.linspace(1.0, 1000.0, 8 * len(devices))
    batch = jax.device_put(batch, sharding)
    solve = jax.jit(jax.vmap(ag.convert(newton_sqrt)), in_shardings=sharding,
                    out_shardings=(sharding, sharding))
    roots, steps = solve(batch)
    print('input sharded over', len(batch.sharding.device_set), 'devices')
    print('output sharded over', len(roots.sharding.device_set), 'devices')
    error = jnp.max(jnp.abs(roots - jnp.sqrt(batch)) / jnp.sqrt(batch))
    print('relative error below 1e-4:', float(error) < 1e-4)
    print('steps differ per row: min', int(steps.min()), 'max', int(steps.max()))
    expected = [newton_sqrt(float(a))[1] for a in np.asarray(batch)]
    print('steps equal plain Python:', np.asarray(steps).tolist() == expected)


if __name__ == '__main__':
    main()
