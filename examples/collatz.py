"""Collatz with an input_signature: one trace serves every int32 scalar; other inputs fail."""
import runtime as tf


@tf.function(input_signature=[tf.TensorSpec(shape=[], dtype=tf.int32)])
def collatz_steps(n):
    """Counts the steps that take n to 1 (n -> n/2 if even, else 3n+1)."""
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def main():
    for n in (1, 6, 7, 27, 97):
        print('collatz_steps(%d) = %d' % (n, collatz_steps(tf.constant(n)).numpy()))
    print('traces:', collatz_steps.experimental_get_tracing_count())
    print(collatz_steps.pretty_printed_concrete_signatures())
    try:
        collatz_steps(tf.constant([6, 7]))
    except ValueError as e:
        print('a vector does not match the signature, ValueError:')
        print(e)


if __name__ == '__main__':
    main()
