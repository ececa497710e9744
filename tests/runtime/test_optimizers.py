"""tf.optimizers.SGD and Adam: updates equal to numpy's, eagerly and in tf.function."""
import numpy as np
import pytest

import runtime as tf


class _NumpyAdam:
    def __init__(self, lr=0.1, b1=0.9, b2=0.999, eps=1e-7):
        self.lr, self.b1, self.b2, self.eps = lr, b1, b2, eps
        self.m = self.v = 0.0
        self.t = 0

    def step(self, w, g):
        self.t += 1
        self.m = self.b1 * self.m + (1 - self.b1) * g
        self.v = self.b2 * self.v + (1 - self.b2) * g * g
        lr_t = self.lr * np.sqrt(1 - self.b2 ** self.t) / (1 - self.b1 ** self.t)
        return w - lr_t * self.m / (np.sqrt(self.v) + self.eps)


def _loss_grad(w, x, y):
    # L = sum((w * x - y) ** 2)
    return 2 * (w * x - y) * x


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "function"])
def test_sgd_and_adam_match_numpy(staged):
    x = np.array([-1.0, 2.0])
    y = np.array([2.0, 1.0])
    for make in ("sgd", "adam"):
        w = tf.Variable(np.array([2.0, 0.5]))
        opt = tf.optimizers.SGD(0.1) if make == "sgd" else tf.optimizers.Adam(0.1)

        def step():
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(w * x - y))
            grads = tape.gradient(loss, [w])
            opt.apply_gradients(zip(grads, [w]))
            return loss

        run = tf.function(step) if staged else step
        expected = np.array([2.0, 0.5])
        reference = _NumpyAdam()
        for _ in range(4):
            run()
            g = _loss_grad(expected, x, y)
            expected = expected - 0.1 * g if make == "sgd" else reference.step(expected, g)
        np.testing.assert_allclose(w.numpy(), expected, rtol=1e-10)
        assert int(opt.iterations.numpy()) == 4


def test_sgd_momentum_slot_created_on_first_use():
    w = tf.Variable(1.0)
    opt = tf.optimizers.SGD(0.5, momentum=0.9)
    assert opt._slots == {}
    opt.apply_gradients([(tf.constant(1.0), w)])
    opt.apply_gradients([(tf.constant(1.0), w)])
    # v1 = -0.5, w = 0.5; v2 = 0.9 * -0.5 - 0.5 = -0.95, w = -0.45
    assert float(w.numpy()) == pytest.approx(-0.45)
    assert float(opt.get_slot(w, "momentum").numpy()) == pytest.approx(-0.95)


def test_no_gradients_at_all_is_an_error():
    w = tf.Variable(1.0)
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        tf.optimizers.SGD(0.1).apply_gradients([(None, w)])


def test_the_guides_multiple_optimizers_error():
    opt1 = tf.optimizers.Adam(learning_rate=1e-2)
    opt2 = tf.optimizers.Adam(learning_rate=1e-3)

    @tf.function
    def train_step(w, x, y, optimizer):
        with tf.GradientTape() as tape:
            L = tf.reduce_sum(tf.square(w * x - y))
        gradients = tape.gradient(L, [w])
        optimizer.apply_gradients(zip(gradients, [w]))

    w = tf.Variable(2.)
    x = tf.constant([-1.])
    y = tf.constant([2.])
    train_step(w, x, y, opt1)
    with pytest.raises(ValueError, match="tf.function only supports singleton tf.Variables "
                                         "created on the first call"):
        train_step(w, x, y, opt2)
