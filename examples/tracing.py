"""Tracing and retracing: what makes runtime.function trace again, and how to avoid it."""
import runtime as tf


@tf.function
def scale(x, factor):
    print('  (tracing scale with x=%s, factor=%r)' % (x.shape, factor))  # Python: trace only
    tf.print('  (running scale)')  # staged: every call
    return x * factor


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def total(x):
    print('  (tracing total)')
    return tf.reduce_sum(x)


@tf.function(reduce_retracing=True)
def double(x):
    print('  (tracing double with x=%s)' % (x.shape,))
    return x * 2.0


def main():
    print('1. The first call traces; the same shape and dtype reuse the graph:')
    scale(tf.constant([1.0, 2.0]), 2.0)
    scale(tf.constant([3.0, 4.0]), 2.0)
    print('2. A new shape traces again:')
    scale(tf.constant([1.0, 2.0, 3.0]), 2.0)
    print('3. A Python number is part of the cache key: each new value traces:')
    scale(tf.constant([1.0, 2.0]), 3.0)
    print('   passed as a tensor it traces once more, then never for new values:')
    scale(tf.constant([1.0, 2.0]), tf.constant(3.0))
    scale(tf.constant([1.0, 2.0]), tf.constant(4.0))
    print('   scale traced %d times' % scale.experimental_get_tracing_count())

    print('4. input_signature with a None dimension: one trace for every length:')
    for n in (1, 2, 5):
        print('  total(%d ones) = %s' % (n, total(tf.ones([n])).numpy()))
    print('   total traced %d time(s)' % total.experimental_get_tracing_count())

    print('5. reduce_retracing=True generalises the shape after the first trace:')
    for n in (1, 2, 3, 4):
        double(tf.ones([n]))
    print('   double traced %d times' % double.experimental_get_tracing_count())
    print(double.pretty_printed_concrete_signatures())


if __name__ == '__main__':
    main()
