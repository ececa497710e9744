"""Small optimizers for training loops (tf.optimizers.SGD, tf.optimizers.Adam).

`apply_gradients(zip(grads, vars))` updates the variables eagerly or, inside a tf.function,
with assign nodes. Slot variables (momentum, Adam's moments) and the `iterations` counter are
created on first use, as Keras does; inside a tf.function that is its first call, so a second
optimizer passed to an already traced function raises the guide's "singleton Variables"
ValueError.
"""
import numpy as np

from runtime import dtypes
from runtime.ops import math_ops
from runtime.tensor_conversion import convert_to_tensor
from runtime.variables import Variable
from runtime.gradients import GradientTape

__all__ = ["Optimizer", "SGD", "Adam"]


class Optimizer:
    """Base class: subclasses define `_create_slots(var)` and `_apply(grad, var, step)`.

    Args:
        learning_rate: A float, or a zero-argument callable returning one.
        name: A name for the optimizer and its slot variables.
    """

    def __init__(self, learning_rate, name):
        self.learning_rate = learning_rate
        self._name = name
        self._iterations = None  # int64 Variable, created on first use
        self._slots = {}  # id(var) -> {slot name: Variable}

    @property
    def iterations(self):
        """The number of update steps applied (an int64 Variable, created on first use)."""
        if self._iterations is None:
            self._iterations = Variable(0, trainable=False, dtype=dtypes.int64,
                                        name=f"{self._name}/iter")
        return self._iterations

    def _lr(self, dtype):
        lr = self.learning_rate() if callable(self.learning_rate) else self.learning_rate
        return _as(lr, dtype)

    def get_slot(self, var, name):
        """Returns the slot variable `name` ('m', 'v', 'momentum') of `var`."""
        return self._slots[id(var)][name]

    def _slot(self, var, name):
        slots = self._slots.setdefault(id(var), {})
        if name not in slots:
            shape = tuple(var.shape) if var.shape is not None else ()
            slots[name] = Variable(np.zeros(shape, var.dtype.np_dtype), trainable=False,
                                   name=f"{self._name}/{var._name}/{name}")
        return slots[name]

    def apply_gradients(self, grads_and_vars, name=None):
        """Applies one update step.

        Args:
            grads_and_vars: Pairs (gradient, Variable), e.g. `zip(grads, vars)`. Pairs whose
                gradient is None are skipped (TensorFlow warns); all None is an error.
            name: Unused.

        Returns:
            The new value of `iterations`.

        Raises:
            ValueError: if no variable has a gradient.
            TypeError: if a target is not a Variable.
        """
        pairs = list(grads_and_vars)
        for _, var in pairs:
            if not isinstance(var, Variable):
                raise TypeError(f"apply_gradients expects (gradient, tf.Variable) pairs, found "
                                f"{type(var).__name__} as a variable.")
        live = [(g, v) for g, v in pairs if g is not None]
        if not live:
            names = ", ".join(v._name for _, v in pairs)
            raise ValueError(f"No gradients provided for any variable: ({names}). The loss "
                             f"does not depend on them, or the tape did not watch them.")
        step = self.iterations
        for _, var in live:
            self._create_slots(var)
        count = step.assign_add(1)
        for grad, var in live:
            self._apply(math_ops.cast(convert_to_tensor(grad), var.dtype), var,
                        math_ops.cast(count, var.dtype))
        return count

    def minimize(self, loss, var_list, tape=None):
        """Computes the gradients of `loss` (a callable) for var_list and applies them."""
        with GradientTape() as t:
            value = loss()
        return self.apply_gradients(zip(t.gradient(value, var_list), var_list))


def _as(value, dtype):
    """A hyperparameter as a tensor of the variable's dtype (Python floats without rounding)."""
    if isinstance(value, (int, float)):
        return convert_to_tensor(value, dtype=dtype)
    return math_ops.cast(convert_to_tensor(value), dtype)


class SGD(Optimizer):
    """Gradient descent, optionally with momentum: `var -= lr * grad`.

    Args:
        learning_rate: A float or callable (default 0.01).
        momentum: A float >= 0 (default 0: plain SGD, no slot).
        name: Optional name.
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, name="SGD"):
        super().__init__(learning_rate, name)
        if momentum < 0:
            raise ValueError(f"momentum must be >= 0, found {momentum}.")
        self.momentum = momentum

    def _create_slots(self, var):
        if self.momentum:
            self._slot(var, "momentum")

    def _apply(self, grad, var, step):
        lr = self._lr(var.dtype)
        if not self.momentum:
            var.assign_sub(lr * grad)
            return
        velocity = self.get_slot(var, "momentum")
        new = velocity.assign(velocity * self.momentum - lr * grad)
        var.assign_add(new)


class Adam(Optimizer):
    """Adam (Kingma and Ba), with Keras's defaults and epsilon placement.

    Args:
        learning_rate: A float or callable (default 0.001).
        beta_1: The first moment's decay (default 0.9).
        beta_2: The second moment's decay (default 0.999).
        epsilon: Added to the denominator (default 1e-7).
        name: Optional name.
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name="Adam"):
        super().__init__(learning_rate, name)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def _create_slots(self, var):
        self._slot(var, "m")
        self._slot(var, "v")

    def _apply(self, grad, var, step):
        lr = self._lr(var.dtype)
        b1, b2 = self.beta_1, self.beta_2
        m = self.get_slot(var, "m")
        v = self.get_slot(var, "v")
        lr_t = lr * math_ops.sqrt(1.0 - math_ops.pow(_as(b2, var.dtype), step)) / (
            1.0 - math_ops.pow(_as(b1, var.dtype), step))
        m_t = m.assign(m * b1 + grad * (1.0 - b1))
        v_t = v.assign(v * b2 + math_ops.square(grad) * (1.0 - b2))
        var.assign_sub(lr_t * m_t / (math_ops.sqrt(v_t) + self.epsilon))
