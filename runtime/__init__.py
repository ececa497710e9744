"""A small numpy-backed graph runtime shaped like TensorFlow."""
