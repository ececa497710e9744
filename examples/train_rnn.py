"""Trains an RNN whose forward pass is a data-dependent loop, inside tf.function.

Each sequence in a batch has its own length. The forward pass is plain Python: a `while` loop
that runs until the longest sequence ends and an `if` that stops updating a sequence's state
once it is finished. AutoGraph stages both, so the loop's trip count comes from the data.
GradientTape differentiates through the staged loop, and Adam applies the gradients.

The script prints the loss going down, then checks one step's gradients against central
finite differences of a plain-numpy copy of the forward pass (in float64).

    python examples/train_rnn.py
"""
import numpy as np

import runtime as tf

FEATURES = 2
UNITS = 8
MAX_LEN = 12


class LengthRNN(tf.Module):
    """A tanh RNN that reads each sequence up to its length, then a linear read-out."""

    def __init__(self, dtype=tf.float32, seed=0):
        super().__init__()
        rng = np.random.RandomState(seed)
        np_dtype = dtype.as_numpy_dtype

        def weight(*shape):
            return tf.Variable((rng.normal(size=shape) / np.sqrt(shape[0])).astype(np_dtype))

        self.w_x = weight(FEATURES, UNITS)
        self.w_h = weight(UNITS, UNITS)
        self.b = tf.Variable(np.zeros(UNITS, np_dtype))
        self.w_out = weight(UNITS, 1)

    def __call__(self, inputs, lengths):
        """inputs [batch, time, features], lengths [batch] -> predictions [batch]."""
        state = tf.zeros([tf.shape(inputs)[0], UNITS], dtype=inputs.dtype)
        t = 0
        while t < tf.reduce_max(lengths):  # data-dependent trip count
            new_state = tf.tanh(tf.matmul(inputs[:, t, :], self.w_x)
                                + tf.matmul(state, self.w_h) + self.b)
            running = tf.expand_dims(t < lengths, 1)  # finished sequences keep their state
            state = tf.where(running, new_state, state)
            t += 1
        return tf.reshape(tf.matmul(state, self.w_out), [-1])


def loss_fn(model, inputs, lengths, targets):
    return tf.reduce_mean(tf.square(model(inputs, lengths) - targets))


def make_batch(rng, batch, dtype=np.float32):
    """Random sequences; the target is the mean of each sequence's first feature."""
    lengths = rng.randint(1, MAX_LEN + 1, size=batch).astype(np.int32)
    inputs = rng.uniform(-1.0, 1.0, size=(batch, MAX_LEN, FEATURES)).astype(dtype)
    targets = np.array([inputs[i, :n, 0].mean() for i, n in enumerate(lengths)], dtype)
    return inputs, lengths, targets


def train(steps=150, batch=16, seed=0):
    """Trains a fresh model; returns the list of (step, loss) it printed."""
    model = LengthRNN(seed=seed)
    optimizer = tf.optimizers.Adam(learning_rate=0.02)

    @tf.function
    def train_step(inputs, lengths, targets):
        with tf.GradientTape() as tape:
            loss = loss_fn(model, inputs, lengths, targets)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    rng = np.random.RandomState(seed + 1)
    held_out = [tf.constant(a) for a in make_batch(rng, 64)]
    evaluate = tf.function(lambda x, n, y: loss_fn(model, x, n, y))
    printed = []
    for step in range(steps + 1):
        if step % 30 == 0:
            loss = float(evaluate(*held_out))
            printed.append((step, loss))
            print('step %3d  held-out loss %.4f' % (step, loss))
        if step < steps:
            train_step(*[tf.constant(a) for a in make_batch(rng, batch)])
    # Two traces, as in TensorFlow: Adam creates its slot variables on the first call, so the
    # function is traced once to create them and once more to use them.
    print('train_step traces:', train_step.experimental_get_tracing_count())
    return printed


# -- the gradient check ----------------------------------------------------------------------

def numpy_loss(params, inputs, lengths, targets):
    """The same forward pass in plain numpy (Python loop, per-sequence masking)."""
    w_x, w_h, b, w_out = params
    state = np.zeros((inputs.shape[0], UNITS))
    for t in range(lengths.max()):
        new_state = np.tanh(inputs[:, t, :] @ w_x + state @ w_h + b)
        state = np.where((t < lengths)[:, None], new_state, state)
    return np.mean(np.square((state @ w_out).reshape(-1) - targets))


def check_gradients(seed=0, eps=1e-6):
    """Largest relative error between the staged gradients and finite differences."""
    model = LengthRNN(dtype=tf.float64, seed=seed)
    inputs, lengths, targets = make_batch(np.random.RandomState(seed + 2), 4, np.float64)

    @tf.function
    def gradients(x, n, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(model, x, n, y)
        return tape.gradient(loss, model.trainable_variables)

    staged = [g.numpy() for g in gradients(tf.constant(inputs), tf.constant(lengths),
                                           tf.constant(targets))]
    by_name = {id(v): i for i, v in enumerate(model.trainable_variables)}
    params = [v.numpy() for v in (model.w_x, model.w_h, model.b, model.w_out)]
    order = [by_name[id(v)] for v in (model.w_x, model.w_h, model.b, model.w_out)]
    worst = 0.0
    for k, param in enumerate(params):
        numeric = np.zeros_like(param)
        for index in np.ndindex(param.shape):
            saved = param[index]
            param[index] = saved + eps
            plus = numpy_loss(params, inputs, lengths, targets)
            param[index] = saved - eps
            minus = numpy_loss(params, inputs, lengths, targets)
            param[index] = saved
            numeric[index] = (plus - minus) / (2 * eps)
        error = np.max(np.abs(staged[order[k]] - numeric)) / max(np.max(np.abs(numeric)), 1e-12)
        worst = max(worst, error)
    return worst


def main():
    printed = train()
    first, last = printed[0][1], printed[-1][1]
    print('loss went from %.4f to %.4f (%s)' % (first, last,
                                                'down' if last < first else 'NOT down'))
    error = check_gradients()
    print('gradient check against numpy finite differences: max relative error %.1e (%s)'
          % (error, 'ok' if error < 1e-6 else 'FAILED'))


if __name__ == '__main__':
    main()
