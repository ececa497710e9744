"""Mistakes a new user makes, each beside its fix (tests/reliability/test_user_messages.py).

Each `bad_*` function holds the mistake on the line marked `# MISTAKE: name`; the message
must point at that line. `fixed_*` is what the message tells the user to write.
"""
import jax.numpy as jnp
import numpy as np

import autograph as ag
import runtime as tf

calls = 0


def bad_branch_dtypes(x, cap):
    total = tf.reduce_sum(x)
    if total > 10.0:  # MISTAKE: branch_dtypes
        total = cap
    return total


def fixed_branch_dtypes(x, cap):
    total = tf.reduce_sum(x)
    if total > 10.0:
        total = tf.cast(cap, tf.float32)
    return total


def bad_mixed_list(n):
    values = []
    i = 0
    while i < n:
        # the if branch appends an int, the else branch a float
        if i % 2 == 0:  # MISTAKE: mixed_list
            values.append(i)
        else:
            values.append(0.5)
        i += 1
    return tf.stack(values)


def fixed_mixed_list(n):
    values = []
    i = 0
    while i < n:
        if i % 2 == 0:
            values.append(tf.cast(i, tf.float32))
        else:
            values.append(0.5)
        i += 1
    return tf.stack(values)


def bad_float_tensor_becomes_int(n):
    s = tf.constant(0.5)
    i = 0
    while i < n:  # MISTAKE: float_tensor_becomes_int
        s = tf.cast(s * 2, tf.int32)
        i += 1
    return s


def fixed_float_tensor_becomes_int(n):
    s = tf.constant(0.5)
    i = 0
    while i < n:
        s = tf.cast(tf.cast(s * 2, tf.int32), tf.float32)
        i += 1
    return s


def bad_branch_shapes(x):
    if x.sum() > 0:  # MISTAKE: branch_shapes
        y = x
    else:
        y = jnp.zeros(2)
    return y


def fixed_branch_shapes(x):
    if x.sum() > 0:
        y = x
    else:
        y = x * 0
    return y


def bad_global_in_loop(n):
    global calls
    i = 0
    while i < n:
        calls = calls + 1  # MISTAKE: global_in_loop
        i += 1
    return i


def fixed_global_in_loop(n):
    i = 0
    while i < n:
        i += 1
    return i


def bad_jax_list(n):
    values = []
    i = 0
    while i < n:  # MISTAKE: jax_list
        values.append(i)
        i += 1
    return values


def fixed_jax_list(n):
    values = []
    i = 0
    while i < n:
        ag.experimental.set_loop_options(maximum_iterations=8)
        values.append(i)
        i += 1
    return values


NO_SOURCE = '''
def bad_no_source(x):
    if x > 0:  # MISTAKE: no_source
        return x
    return -x
'''


def fixed_no_source(x):
    if x > 0:
        return x
    return -x


def bad_numpy_method(x):
    return x.numpy() + 1  # MISTAKE: numpy_method


def fixed_numpy_method(x):
    return x + 1


def bad_numpy_function(x):
    return np.sum(x)  # MISTAKE: numpy_function


def fixed_numpy_function(x):
    return tf.reduce_sum(x)


def bad_comprehension(x):
    return tf.stack([a * b for a in x for b in x if a > b])  # MISTAKE: comprehension


def fixed_comprehension(x):
    products = []
    for a in x:
        for b in x:
            if a > b:
                products.append(a * b)
    return tf.stack(products)


def bad_variable_per_call(x):
    v = tf.Variable(1.0)  # MISTAKE: variable_per_call
    return v + x


SCALE = tf.Variable(1.0)


def fixed_variable_per_call(x):
    return SCALE + x


def bad_none_on_some_paths(x):
    if x > 0:  # MISTAKE: none_on_some_paths
        return x


def fixed_none_on_some_paths(x):
    if x > 0:
        return x
    return tf.zeros_like(x)


def bad_recursion(n):
    if n > 0:
        return bad_recursion(n - 1) + 1  # MISTAKE: recursion
    return 0


def fixed_recursion(n):
    count = 0
    while n > 0:
        n -= 1
        count += 1
    return count


def bad_one_branch(x):
    if x > 0:
        y = x
    return y  # MISTAKE: one_branch


def fixed_one_branch(x):
    y = tf.zeros_like(x)
    if x > 0:
        y = x
    return y


def bad_list_index(x, n):
    # a list of numbers (or of tensors of one shape) read at a staged index stages; a list of
    # strings cannot become a tensor of numbers
    words = ["zero", "one", "two"]
    return x * len(words[n])  # MISTAKE: list_index


def fixed_list_index(x, n):
    lengths = tf.constant([len(w) for w in ["zero", "one", "two"]])
    return x * lengths[n]


def bad_generator(n):
    for i in range(n):
        yield i * 2  # MISTAKE: generator


def fixed_generator(n):
    return [i * 2 for i in range(n)]


def bad_convert_result():
    return ag.convert(fixed_generator(3))  # MISTAKE: convert_result


def fixed_convert_result():
    return ag.convert(fixed_generator)(3)


def bad_undefined_in_loop(n):
    i = 0
    while i < n:
        last = i
        i += 1
    return last  # MISTAKE: undefined_in_loop


def fixed_undefined_in_loop(n):
    i = 0
    last = -1
    while i < n:
        last = i
        i += 1
    return last


def bad_staged_text(x):  # MISTAKE: staged_text
    return 'double: ' + str(x * 2)


def fixed_staged_text(x):
    return x * 2  # the text is made from the result, outside


def bad_staged_text_jax(x):  # MISTAKE: staged_text_jax
    return str(x * 2) + ' doubled'
