"""Export a function with a data-dependent while loop to ONNX and run it with onnxruntime.

Needs the onnx extra: pip install -e ".[onnx]". The Python `while` and `if` below become one
ONNX Loop with an If inside it: the model runs anywhere onnxruntime does, with no Python.
"""
import os
import tempfile

import numpy as np
import onnx
import onnxruntime

import runtime as tf


@tf.function(input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32)])
def newton_sqrt(x, tolerance):
    """The square root of x by Newton's method, iterated until it converges."""
    guess = x / 2.0 if x > 1.0 else tf.constant(1.0)
    steps = 0
    while tf.abs(guess * guess - x) > tolerance:   # how many times depends on x
        guess = (guess + x / guess) / 2.0
        steps += 1
    return guess, steps


path = os.path.join(tempfile.mkdtemp(), "newton_sqrt.onnx")
model = tf.onnx.export(newton_sqrt, path)
print("ONNX ops:", sorted({node.op_type for node in model.graph.node}))
loop = next(node for node in model.graph.node if node.op_type == "Loop")
body_ops = sorted({node.op_type for node in onnx.helper.get_attribute_value(
    loop.attribute[0]).node})
print("Loop body ops:", body_ops)

session = onnxruntime.InferenceSession(path)
for x in (2.0, 10.0, 12345.0):
    feed = {"x": np.float32(x), "tolerance": np.float32(1e-3)}
    root, steps = session.run(None, {k: np.asarray(v) for k, v in feed.items()})
    expected_root, expected_steps = newton_sqrt(tf.constant(x), tf.constant(1e-3))
    assert root == expected_root.numpy() and steps == expected_steps.numpy()
    print(f"sqrt({x}) = {root:.4f} after {steps} steps (onnxruntime, equal to the runtime)")
