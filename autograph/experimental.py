"""`autograph.experimental` (TensorFlow's `tf.autograph.experimental`): do_not_convert."""

from autograph.impl.api import do_not_convert

__all__ = ['do_not_convert']
