"""`autograph.experimental` (TensorFlow's `tf.autograph.experimental`): do_not_convert and
set_loop_options, and autograph's own set_list_options."""

from autograph.directives import set_list_options
from autograph.directives import set_loop_options
from autograph.impl.api import do_not_convert

__all__ = ['do_not_convert', 'set_list_options', 'set_loop_options']
