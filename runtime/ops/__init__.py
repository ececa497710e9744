"""The op library: the registry plus the op modules, grouped by kind."""
from runtime.ops import registry  # noqa: F401
from runtime.ops import math_ops  # noqa: F401
from runtime.ops import array_ops  # noqa: F401
from runtime.ops import creation_ops  # noqa: F401
from runtime.ops import slicing  # noqa: F401
from runtime.ops import reduction_ops  # noqa: F401
from runtime.ops import random_ops  # noqa: F401
from runtime.ops import io_ops  # noqa: F401
from runtime.ops import state_ops  # noqa: F401
from runtime.ops import linalg_ops  # noqa: F401
from runtime.ops import tensor_array_grad  # noqa: F401
from runtime.ops import tensor_methods  # noqa: F401 - installs Tensor's operators
