"""Early exit: `break` and `return` inside loops, with Python values and staged in a graph."""
import autograph as ag
import runtime as tf


def first_index_above(values, threshold):
    """Returns the index of the first value above threshold, or -1: a return inside a loop."""
    for i in range(len(values)):
        if values[i] > threshold:
            return i
    return -1


def steps_to_exceed(limit, max_steps):
    """Doubles from 1 until the value exceeds limit, but at most max_steps times: a break."""
    value = 1
    steps = 0
    while value <= limit:
        if steps >= max_steps:
            break
        value *= 2
        steps += 1
    return steps, value


def main():
    converted_index = ag.convert(first_index_above)
    converted_steps = ag.convert(steps_to_exceed)
    print('Python values (the converted functions run as plain Python):')
    print('  first_index_above([1, 5, 9, 2], 4) =', converted_index([1, 5, 9, 2], 4))
    print('  first_index_above([1, 2], 4) =', converted_index([1, 2], 4))
    print('  steps_to_exceed(100, 10) =', converted_steps(100, 10))
    print('  steps_to_exceed(5000, 10) =', converted_steps(5000, 10))

    # The signature leaves the length unknown (None), so len(values) is a staged scalar and
    # range(len(values)) a staged loop that the return can stop. With a known length, range()
    # would be a Python loop, which cannot stop on a staged condition (see the README).
    staged_index = tf.function(first_index_above, input_signature=[
        tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.float32)])
    staged_steps = tf.function(steps_to_exceed)
    print('Staged (one graph; the loops stop early inside the graph):')
    values = tf.constant([1.0, 5.0, 9.0, 2.0])
    for threshold in (4.0, 8.0, 10.0):
        result = staged_index(values, tf.constant(threshold))
        print('  first_index_above(values, %.1f) = %d' % (threshold, result.numpy()))
    for limit in (100, 5000):
        steps, value = staged_steps(tf.constant(limit), tf.constant(10))
        print('  steps_to_exceed(%d, 10) = (%d, %d)' % (limit, steps.numpy(), value.numpy()))
    print('traces:', staged_index.experimental_get_tracing_count(),
          staged_steps.experimental_get_tracing_count())


if __name__ == '__main__':
    main()
