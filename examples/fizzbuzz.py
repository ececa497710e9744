"""FizzBuzz staged into one graph: a loop over tf.range with if/elif/else and tf.print."""
import runtime as tf


@tf.function
def fizzbuzz(n):
    """Prints FizzBuzz up to n at every call, and returns how many numbers were 'Fizz'."""
    fizzes = 0
    for i in tf.range(1, n + 1):
        if i % 15 == 0:
            tf.print('FizzBuzz')
        elif i % 3 == 0:
            tf.print('Fizz')
            fizzes += 1
        elif i % 5 == 0:
            tf.print('Buzz')
        else:
            tf.print(i)
    return fizzes


def main():
    print('fizzbuzz(15):')
    count = fizzbuzz(tf.constant(15))
    print('Fizz count:', count.numpy())
    print('fizzbuzz(6) reuses the same graph:')
    count = fizzbuzz(tf.constant(6))
    print('Fizz count:', count.numpy(), '| traces:', fizzbuzz.experimental_get_tracing_count())


if __name__ == '__main__':
    main()
