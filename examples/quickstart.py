"""Quickstart: convert a function, read the generated code, run it on Python values and tensors."""
import autograph as ag
import runtime as tf


def sum_even(items):
    """Adds up the even numbers among `items`, stopping at the first negative one."""
    total = 0
    for x in items:
        if x < 0:
            break
        if x % 2 == 0:
            total += x
    return total


def main():
    converted = ag.convert(sum_even)

    print('1. With Python values the converted function behaves like the original:')
    print('   sum_even([2, 3, 4, -1, 6]) =', sum_even([2, 3, 4, -1, 6]))
    print('   converted([2, 3, 4, -1, 6]) =', converted([2, 3, 4, -1, 6]))

    print('2. The code AutoGraph generates (ag.to_code) calls the operators through ag__:')
    for line in ag.to_code(sum_even).splitlines():
        if 'ag__.' in line:
            print('   ' + line.strip())

    print('3. With an eager tensor, the same function:')
    print('  ', converted(tf.constant([2, 3, 4, -1, 6])))

    print('4. Staged: tf.function traces it once into a graph with a while loop and conds:')
    staged = tf.function(sum_even)
    print('  ', staged(tf.constant([2, 3, 4, -1, 6])))
    print('  ', staged(tf.constant([10, 20, 30, 1, 3])))
    graph = staged.get_concrete_function(tf.constant([1, 2, 3, 4, 5])).graph
    ops = sorted({node.op for node in graph.as_graph_def().node})
    print('   ops in the graph:', ', '.join(ops))
    print('   traces:', staged.experimental_get_tracing_count())


if __name__ == '__main__':
    main()
