"""Trains a linear model with the whole epoch inside one tf.function, over a tf.data.Dataset.

The data is a `tf.data.Dataset` (sliced, shuffled with a seed, batched). `for x, y in
dataset:` inside the tf.function is staged as one loop, so the graph has one copy of the
training step whatever the number of batches, and a dataset of another size reuses the same
trace. The step itself takes a GradientTape inside the loop and applies SGD. The script then
checks the staged epoch against the same epoch run eagerly, batch by batch, in plain Python.

    python examples/train_dataset.py
"""
import numpy as np

import runtime as tf

TRUE_W = np.array([[2.0], [-3.0]], np.float32)
TRUE_B = 0.5


def make_data(count, seed):
    """`count` points of y = x @ TRUE_W + TRUE_B plus a little noise."""
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, size=(count, 2)).astype(np.float32)
    y = (x @ TRUE_W + TRUE_B + 0.01 * rng.normal(size=(count, 1))).astype(np.float32)
    return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(64, seed=seed).batch(16)


class Linear(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(tf.zeros([2, 1]))
        self.b = tf.Variable(tf.zeros([1]))

    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


def train_step(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, [model.w, model.b])
    optimizer.apply_gradients(zip(grads, [model.w, model.b]))
    return loss


def make_epoch(model, optimizer):
    @tf.function
    def epoch(dataset):
        total = tf.constant(0.0)
        batches = tf.constant(0.0)
        for x, y in dataset:
            total += train_step(model, optimizer, x, y)
            batches += 1.0
        return total / batches
    return epoch


def eager_epoch(model, optimizer, dataset):
    losses = [train_step(model, optimizer, x, y).numpy() for x, y in dataset]
    return np.float32(np.mean(losses))


def main():
    model = Linear()
    epoch = make_epoch(model, tf.optimizers.SGD(0.1))
    train_set = make_data(256, seed=0)
    for n in range(1, 21):
        loss = epoch(train_set)
        if n % 5 == 0:
            print(f"epoch {n}: mean loss {loss.numpy():.5f}")
    print("w =", np.round(model.w.numpy().ravel(), 2), "b =", np.round(model.b.numpy(), 2))
    # (the first call traces twice, as in TensorFlow: SGD creates its variables then)
    print("traces after the first dataset:", epoch.experimental_get_tracing_count())
    epoch(make_data(96, seed=1))  # another size, the same element_spec: no new trace
    print("traces after a second dataset:", epoch.experimental_get_tracing_count())
    graph = epoch.get_concrete_function(train_set).graph
    print("while nodes in the graph:", sum(n.op == "while" for n in graph.nodes))

    staged, plain = Linear(), Linear()
    staged_loss = make_epoch(staged, tf.optimizers.SGD(0.1))(make_data(64, seed=2))
    plain_loss = eager_epoch(plain, tf.optimizers.SGD(0.1), make_data(64, seed=2))
    same = np.allclose(staged.w.numpy(), plain.w.numpy(), rtol=1e-5, atol=1e-6)
    print(f"staged epoch == eager epoch: {same} (loss {staged_loss.numpy():.5f} vs "
          f"{plain_loss:.5f})")


if __name__ == "__main__":
    main()
