"""The tf.function guide's runtime examples (seeds/003_*.txt), run with `import runtime as tf`.

Expected outputs are the guide's, except for these documented differences:
- graph and error texts name nodes after our ops ('add', 'Identity', placeholders named after
  the arguments, as in the guide) and function graphs after the Python function, not
  '__inference_double_162';
- calling `.numpy()` on a leaked symbolic tensor raises NotImplementedError (the runtime's
  choice, with a message saying why) where TensorFlow raises AttributeError;
- a nested tf.function call made while tracing is traced inline into the caller's graph.
"""
import numpy as np
import pytest

import runtime as tf
from runtime.function.leaks import LeakedTensorWarning
from runtime.function import FunctionRecursionError

# Warnings these tests trigger on purpose: the guide's examples retrace on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")


@pytest.fixture(params=["compiled", "interpreter"])
def executor(request):
    return request.param


def test_add_and_nested_functions(executor):
    add = tf.function(lambda a, b: a + b, executor=executor)
    np.testing.assert_array_equal(add(tf.ones([2, 2]), tf.ones([2, 2])).numpy(),
                                  [[2.0, 2.0], [2.0, 2.0]])

    def dense_layer(x, w, b):
        return add(tf.matmul(x, w), b)

    dense = tf.function(dense_layer, executor=executor)
    out = dense(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2]))
    np.testing.assert_array_equal(out.numpy(), np.full((3, 2), 3.0, np.float32))


def _double(a):
    print("Tracing with", a)
    return a + a


def test_double_traces_once_per_dtype(capsys, executor):
    double = tf.function(_double, executor=executor)
    print(double(tf.constant(1)))
    print(double(tf.constant(1.1)))
    assert capsys.readouterr().out == (
        'Tracing with Tensor("a:0", shape=(), dtype=int32)\n'
        "tf.Tensor(2, shape=(), dtype=int32)\n"
        'Tracing with Tensor("a:0", shape=(), dtype=float32)\n'
        "tf.Tensor(2.2, shape=(), dtype=float32)\n")
    print(double(tf.constant(5)))  # no retrace for the same dtype and shape
    assert capsys.readouterr().out == "tf.Tensor(10, shape=(), dtype=int32)\n"
    assert double.experimental_get_tracing_count() == 2
    assert double.pretty_printed_concrete_signatures() == (
        "Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
        "Output Type:\n  TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
        "Captures:\n  None\n\n"
        "Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
        "Output Type:\n  TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
        "Captures:\n  None")


def test_double_strings(capsys, executor):
    double = tf.function(_double, executor=executor)
    print(double(tf.constant("a")))
    print(double(tf.constant("b")))
    assert capsys.readouterr().out == (
        'Tracing with Tensor("a:0", shape=(), dtype=string)\n'
        "tf.Tensor(b'aa', shape=(), dtype=string)\n"
        "tf.Tensor(b'bb', shape=(), dtype=string)\n")


def test_concrete_function_signatures_and_graph(capsys, executor):
    double = tf.function(_double, executor=executor)
    double_ints = double.get_concrete_function(tf.constant(1))
    assert double_ints(tf.constant(4)).numpy() == 8
    assert double_ints(a=tf.constant(5)).numpy() == 10
    from_spec = double.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.int32))
    assert from_spec is double_ints
    assert str(double_ints) == (
        "ConcreteFunction Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
        "Output Type:\n  TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
        "Captures:\n  None")
    assert repr(double_ints.structured_input_signature) == (
        "((TensorSpec(shape=(), dtype=tf.int32, name='a'),), {})")
    assert str(double_ints.structured_outputs) == (
        'Tensor("Identity:0", shape=(), dtype=int32)')
    listing = [f"{node.input} -> {node.name}"
               for node in double_ints.graph.as_graph_def().node]
    assert listing == ["[] -> a", "['a', 'a'] -> add", "['add'] -> Identity"]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"input #0\(zero-based\) was expected to be a int32 tensor but "
                             r"is a float32 tensor"):
        double_ints(tf.constant(1.0))
    assert capsys.readouterr().out == 'Tracing with Tensor("a:0", shape=(), dtype=int32)\n'


def _pow(a, b):
    return a ** b


def test_python_argument_is_fixed_in_the_concrete_function(executor):
    square = tf.function(_pow, executor=executor).get_concrete_function(
        a=tf.TensorSpec([None], tf.float32), b=2)
    assert str(square) == (
        "ConcreteFunction Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(None,), dtype=tf.float32, name=None)\n"
        "  b (POSITIONAL_OR_KEYWORD): Literal[2]\n"
        "Output Type:\n  TensorSpec(shape=(None,), dtype=tf.float32, name=None)\n"
        "Captures:\n  None")
    assert square(tf.constant([10.0])).numpy().tolist() == [100.0]
    with pytest.raises(TypeError) as info:
        square(tf.constant([10.0]), b=3)
    assert str(info.value) == ("ConcreteFunction _pow(a, b) was constructed with int value 2 "
                               "in b, but was called with int value 3.")


def test_unknown_rank_spec_prints_unknown_shape():
    square = tf.function(_pow).get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    assert str(square) == (
        "ConcreteFunction Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)\n"
        "  b (POSITIONAL_OR_KEYWORD): Literal[2]\n"
        "Output Type:\n  TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)\n"
        "Captures:\n  None")
    assert square(tf.constant(10.0)).numpy() == 100.0


def _next_collatz(x):
    print("Tracing with", x)
    return tf.where(x % 2 == 0, x // 2, 3 * x + 1)


def test_next_collatz_input_signature(capsys, executor):
    next_collatz = tf.function(
        _next_collatz, executor=executor,
        input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    print(next_collatz(tf.constant([1, 2])))
    assert capsys.readouterr().out == (
        'Tracing with Tensor("x:0", shape=(None,), dtype=int32)\n'
        "tf.Tensor([4 1], shape=(2,), dtype=int32)\n")
    with pytest.raises(ValueError) as info:
        next_collatz(tf.constant([[1, 2], [3, 4]]))
    # Exactly the guide's text: a multi-line tensor starts on a new line after 'tf.Tensor('.
    assert str(info.value) == (
        "Python inputs incompatible with input_signature:\n"
        "  inputs: (\n    tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32))\n"
        "  input_signature: (\n"
        "    TensorSpec(shape=(None,), dtype=tf.int32, name=None)).")
    with pytest.raises(ValueError) as info:
        next_collatz(tf.constant([1.0, 2.0]))
    assert str(info.value) == (
        "Python inputs incompatible with input_signature:\n"
        "  inputs: (\n    tf.Tensor([1. 2.], shape=(2,), dtype=float32))\n"
        "  input_signature: (\n"
        "    TensorSpec(shape=(None,), dtype=tf.int32, name=None)).")
    assert next_collatz.experimental_get_tracing_count() == 1


def _identity_g(x):
    print("Tracing with", x)
    return x


def test_none_dimension_reuses_the_trace(capsys, executor):
    g = tf.function(_identity_g, executor=executor,
                    input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    print(g(tf.constant([1, 2, 3])))
    print(g(tf.constant([1, 2, 3, 4, 5])))
    assert capsys.readouterr().out == (
        'Tracing with Tensor("x:0", shape=(None,), dtype=int32)\n'
        "tf.Tensor([1 2 3], shape=(3,), dtype=int32)\n"
        "tf.Tensor([1 2 3 4 5], shape=(5,), dtype=int32)\n")


def train_one_step():
    pass


def _train(num_steps):
    print("Tracing with num_steps = ", num_steps)
    tf.print("Executing with num_steps = ", num_steps)
    for _ in tf.range(num_steps):
        train_one_step()


def test_python_arguments_retrace_tensor_arguments_do_not(capsys, executor):
    train = tf.function(_train, executor=executor)
    train(num_steps=10)
    train(num_steps=20)
    train(num_steps=tf.constant(10))
    train(num_steps=tf.constant(20))
    assert capsys.readouterr().out == (
        "Tracing with num_steps =  10\n"
        "Executing with num_steps =  10\n"
        "Tracing with num_steps =  20\n"
        "Executing with num_steps =  20\n"
        'Tracing with num_steps =  Tensor("num_steps:0", shape=(), dtype=int32)\n'
        "Executing with num_steps =  10\n"
        "Executing with num_steps =  20\n")
    assert train.experimental_get_tracing_count() == 3


def _tracing_f():
    print("Tracing!")
    tf.print("Executing")


def test_separate_functions_do_not_share_traces(capsys, executor):
    tf.function(_tracing_f, executor=executor)()
    tf.function(_tracing_f, executor=executor)()
    assert capsys.readouterr().out == "Tracing!\nExecuting\nTracing!\nExecuting\n"


def _side_effects(x):
    print("Traced with", x)
    tf.print("Executed with", x)


def test_python_side_effects_only_while_tracing(capsys, executor):
    f = tf.function(_side_effects, executor=executor)
    f(1)
    f(1)
    f(2)
    assert capsys.readouterr().out == (
        "Traced with 1\nExecuted with 1\nExecuted with 1\nTraced with 2\nExecuted with 2\n")


external_list = []


def _append_side_effect(x):
    print("Python side effect")
    external_list.append(x)


def test_list_append_happens_once(capsys, executor):
    external_list.clear()
    side_effect = tf.function(_append_side_effect, executor=executor)
    side_effect(1)
    side_effect(1)
    side_effect(1)
    assert len(external_list) == 1
    assert capsys.readouterr().out == "Python side effect\n"


def _consume_next(iterator):
    tf.print("Value:", next(iterator))


def test_python_iterator_is_consumed_only_while_tracing(capsys, executor):
    buggy_consume_next = tf.function(_consume_next, executor=executor)
    iterator = iter([1, 2, 3])
    for _ in range(3):
        buggy_consume_next(iterator)
    assert capsys.readouterr().out == "Value: 1\nValue: 1\nValue: 1\n"


def _fizzbuzz(n):
    for i in tf.range(1, n + 1):
        print("Tracing for loop")
        if i % 15 == 0:
            print("Tracing fizzbuzz branch")
            tf.print("fizzbuzz")
        elif i % 3 == 0:
            print("Tracing fizz branch")
            tf.print("fizz")
        elif i % 5 == 0:
            print("Tracing buzz branch")
            tf.print("buzz")
        else:
            print("Tracing default branch")
            tf.print(i)


def test_fizzbuzz_traces_every_branch_once(capsys, executor):
    fizzbuzz = tf.function(_fizzbuzz, executor=executor)
    fizzbuzz(tf.constant(5))
    fizzbuzz(tf.constant(20))
    expected = ["Tracing for loop", "Tracing fizzbuzz branch", "Tracing fizz branch",
                "Tracing buzz branch", "Tracing default branch"]
    expected += ["1", "2", "fizz", "4", "buzz"]
    for i in range(1, 21):
        expected.append("fizzbuzz" if i % 15 == 0 else "fizz" if i % 3 == 0
                        else "buzz" if i % 5 == 0 else str(i))
    assert capsys.readouterr().out.splitlines() == expected


def _tanh_loop(x):
    while tf.reduce_sum(x) > 1:
        tf.print(x)
        x = tf.tanh(x)
    return x


def test_while_loop_on_a_tensor_condition(capsys, executor):
    f = tf.function(_tanh_loop, executor=executor)
    out = f(tf.constant([0.9, 0.5]))
    x = np.array([0.9, 0.5], np.float32)
    steps = 0
    while x.sum() > 1:
        x = np.tanh(x)
        steps += 1
    np.testing.assert_allclose(out.numpy(), x, rtol=1e-6)
    # sums: 1.4, 1.18, 1.05 (> 1, printed), then 0.95: three iterations.
    assert len(capsys.readouterr().out.splitlines()) == steps == 3


def _train_on_data(dataset):
    loss = tf.constant(0)
    for x, y in dataset:
        loss += tf.abs(y - x)
    return loss


def test_python_loops_unroll_into_the_graph(executor):
    train = tf.function(_train_on_data, executor=executor)
    small = train.get_concrete_function([(1, 1)] * 3).graph
    big = train.get_concrete_function([(1, 1)] * 10).graph
    # The guide's counts: 11 and 32 nodes (a constant, 3 nodes per step, an Identity).
    assert len(small.as_graph_def().node) == 11
    assert len(big.as_graph_def().node) == 32


def _rnn_step(inp, state):
    return inp + state


def _dynamic_rnn(rnn_step, input_data, initial_state):
    input_data = tf.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]
    states = tf.TensorArray(tf.float32, size=max_seq_len)
    state = initial_state
    for i in tf.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return tf.transpose(states.stack(), [1, 0, 2])


def test_dynamic_rnn_accumulates_in_a_tensor_array(executor):
    dynamic_rnn = tf.function(_dynamic_rnn, executor=executor)
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out = dynamic_rnn(_rnn_step, tf.constant(data), tf.zeros([2, 4]))
    np.testing.assert_allclose(out.numpy(), np.cumsum(data, axis=1))


def test_globals_are_captured_at_trace_time(executor):
    namespace = {"tf": tf, "foo": 1}
    exec("def buggy_add():\n    return 1 + foo\n", namespace)  # noqa: S102 - a fresh global
    buggy_add = tf.function(namespace["buggy_add"], autograph=False, executor=executor)
    recommended_add = tf.function(lambda foo: 1 + foo, executor=executor)
    assert buggy_add().numpy() == 2 and recommended_add(1).numpy() == 2
    namespace["foo"] = 100
    assert buggy_add().numpy() == 2  # did not change
    assert recommended_add(100).numpy() == 101


def test_variables_are_read_at_call_time(executor):
    foo = tf.Variable(1)
    variable_add = tf.function(lambda: 1 + foo, executor=executor)
    assert variable_add().numpy() == 2
    foo.assign(100)
    assert variable_add().numpy() == 101


class SimpleModel(tf.Module):
    def __init__(self):
        self.bias = 0.0
        self.weight = 2.0


class BetterModel:
    def __init__(self):
        self.bias = tf.Variable(0.0)
        self.weight = tf.Variable(2.0)


def _evaluate(model, x):
    return model.weight * x + model.bias


def test_python_object_attributes_are_frozen_at_trace_time(executor):
    evaluate = tf.function(_evaluate, executor=executor)
    simple_model = SimpleModel()
    x = tf.constant(10.0)
    assert evaluate(simple_model, x).numpy() == 20.0
    simple_model.bias += 5.0
    assert evaluate(simple_model, x).numpy() == 20.0  # didn't change
    new_model = SimpleModel()
    evaluate_no_bias = tf.function(_evaluate, executor=executor).get_concrete_function(
        new_model, x)
    assert evaluate_no_bias(x).numpy() == 20.0  # the model is not passed
    new_model.bias += 5.0
    evaluate_with_bias = tf.function(_evaluate, executor=executor).get_concrete_function(
        new_model, x)
    assert evaluate_with_bias(x).numpy() == 25.0


def test_variable_attributes_are_read_at_call_time(executor):
    evaluate = tf.function(_evaluate, executor=executor)
    better_model = BetterModel()
    x = tf.constant(10.0)
    assert evaluate(better_model, x).numpy() == 20.0
    better_model.bias.assign_add(5.0)
    assert evaluate(better_model, x).numpy() == 25.0
    assert evaluate.experimental_get_tracing_count() == 1


def _creates_variable(x):
    v = tf.Variable(1.0)
    return v


def test_variable_created_on_every_call_raises(executor):
    f = tf.function(_creates_variable, executor=executor)
    with pytest.raises(ValueError) as info:
        f(1.0)
    assert ("tf.function only supports singleton tf.Variables created on the first call. "
            "Make sure the tf.Variable is only created once or created outside tf.function. "
            "See https://www.tensorflow.org/guide/function#creating_tfvariables for more "
            "information.") in str(info.value)
    assert "test_guide.py" in str(info.value)


class Count(tf.Module):
    def __init__(self):
        self.count = None

    @tf.function
    def __call__(self):
        if self.count is None:
            self.count = tf.Variable(0)
        return self.count.assign_add(1)


def test_count_module_creates_its_variable_once(capsys):
    c = Count()
    print(c())
    print(c())
    assert capsys.readouterr().out == (
        "tf.Tensor(1, shape=(), dtype=int32)\ntf.Tensor(2, shape=(), dtype=int32)\n")
    assert c.trainable_variables == (c.count,)


class CounterModel(tf.Module):
    def __init__(self):
        self.v = tf.Variable(0)
        self.counter = 0

    @tf.function
    def __call__(self):
        if self.counter == 0:
            # A python side-effect
            self.counter += 1
            self.v.assign_add(1)
        return self.v


class InitScopeModel(tf.Module):
    def __init__(self):
        self.v = tf.Variable(0)
        self.counter = 0

    @tf.function
    def __call__(self):
        if self.counter == 0:
            # Lifts ops out of function-building graphs
            with tf.init_scope():
                self.counter += 1
                self.v.assign_add(1)
        return self.v


def test_counter_model_increments_on_every_call(capsys):
    m = CounterModel()
    for _ in range(3):
        print(m().numpy())  # prints 1, 2, 3
    assert capsys.readouterr().out == "1\n2\n3\n"


def test_init_scope_model_increments_once(capsys):
    m = InitScopeModel()
    for _ in range(3):
        print(m().numpy())  # prints 1, 1, 1
    assert capsys.readouterr().out == "1\n1\n1\n"


leaked = None


def _leaky_function(a):
    global leaked
    leaked = a + 1  # Bad - leaks local tensor
    return a + 2


def _leaky_returning(a):
    global leaked
    leaked = a + 1
    return leaked


def _captures_leaked_tensor(b):
    b += leaked  # Bad - `leaked` is leaked from `_leaky_returning`
    return b


def test_leaky_functions(executor):
    with pytest.warns(LeakedTensorWarning, match="the global 'leaked'"):
        correct_a = tf.function(_leaky_function, executor=executor)(tf.constant(1))
    assert correct_a.numpy() == 3
    # Documented difference: TensorFlow raises AttributeError here.
    with pytest.raises(NotImplementedError, match="add:0"):
        leaked.numpy()
    with pytest.warns(LeakedTensorWarning, match="the global 'leaked'"):
        correct_a = tf.function(_leaky_returning, executor=executor)(tf.constant(1))
    assert correct_a.numpy() == 2
    with pytest.raises(TypeError) as info:
        tf.function(_captures_leaked_tensor, executor=executor)(tf.constant(2))
    message = str(info.value)
    assert "'add:0'" in message and "_leaky_returning" in message
    assert "_captures_leaked_tensor" in message


@tf.function
def recursive_fn(n):
    if n > 0:
        return recursive_fn(n - 1)
    else:
        return 1


@tf.function
def recursive_tracing_fn(n):
    if n > 0:
        print("tracing")
        return recursive_tracing_fn(n - 1)
    else:
        return 1


def test_recursion_on_a_tensor_raises_a_clear_error():
    with pytest.raises(FunctionRecursionError, match="calls itself while being traced"):
        recursive_fn(tf.constant(5))


def test_recursion_on_python_values_traces_each_level(capsys):
    result = recursive_tracing_fn(5)
    assert capsys.readouterr().out == "tracing\n" * 5
    assert repr(result) == "<tf.Tensor: shape=(), dtype=int32, numpy=1>"


def test_run_functions_eagerly(capsys):
    f = tf.function(_side_effects)
    tf.config.run_functions_eagerly(True)
    try:
        f(1)
        f(1)
    finally:
        tf.config.run_functions_eagerly(False)
    assert capsys.readouterr().out == "Traced with 1\nExecuted with 1\n" * 2
    assert f.experimental_get_tracing_count() == 0
