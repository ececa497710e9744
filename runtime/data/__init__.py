"""tf.data: input pipelines (`tf.data.Dataset`), eagerly and inside tf.function."""
from runtime.data.dataset import Dataset
from runtime.data.dataset import Iterator
from runtime.data.structure import DatasetSpec

AUTOTUNE = -1  # tf.data.AUTOTUNE: accepted where TensorFlow takes it (it changes nothing)
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2

__all__ = ["AUTOTUNE", "Dataset", "DatasetSpec", "INFINITE_CARDINALITY", "Iterator",
           "UNKNOWN_CARDINALITY"]
