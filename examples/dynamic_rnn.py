"""A dynamic RNN: a staged loop over time steps that accumulates outputs in a TensorArray."""
import numpy as np

import runtime as tf

UNITS = 3
FEATURES = 2

# Fixed, readable weights so that the printed numbers are reproducible.
W_X = tf.constant(np.array([[0.5, -0.25, 1.0], [0.75, 0.5, -0.5]], dtype=np.float32))
W_H = tf.constant(np.eye(UNITS, dtype=np.float32) * 0.25)


@tf.function(input_signature=[tf.TensorSpec([None, None, FEATURES], tf.float32)])
def dynamic_rnn(inputs):
    """Runs a tanh RNN over inputs [batch, time, features]; returns outputs [batch, time, units]."""
    steps = tf.shape(inputs)[1]
    state = tf.zeros([tf.shape(inputs)[0], UNITS])
    outputs = tf.TensorArray(tf.float32, size=steps)
    for t in tf.range(steps):
        x_t = inputs[:, t, :]
        state = tf.tanh(tf.matmul(x_t, W_X) + tf.matmul(state, W_H))
        outputs = outputs.write(t, state)
    return tf.transpose(outputs.stack(), [1, 0, 2])


def reference(inputs):
    """The same RNN in plain numpy, to check the staged one."""
    state = np.zeros((inputs.shape[0], UNITS), np.float32)
    outputs = []
    for t in range(inputs.shape[1]):
        state = np.tanh(inputs[:, t, :] @ W_X.numpy() + state @ W_H.numpy())
        outputs.append(state)
    return np.stack(outputs, axis=1)


def main():
    np.set_printoptions(precision=4, suppress=True)
    for batch, time in ((1, 4), (2, 7)):
        inputs = np.linspace(-1.0, 1.0, batch * time * FEATURES, dtype=np.float32)
        inputs = inputs.reshape(batch, time, FEATURES)
        result = dynamic_rnn(tf.constant(inputs)).numpy()
        print('batch=%d time=%d -> output shape %s' % (batch, time, result.shape))
        print('  last output of sequence 0:', result[0, -1])
        print('  matches the numpy reference:', bool(np.allclose(result, reference(inputs),
                                                                  atol=1e-6)))
    print('traces:', dynamic_rnn.experimental_get_tracing_count())


if __name__ == '__main__':
    main()
