"""tf.data in graphs: the ops that build datasets and read their elements at run time.

A dataset inside a graph is a `variant` tensor whose run-time value is an eager `Dataset`
(TensorFlow's DT_VARIANT dataset handles). `dataset_source` captures a dataset made outside
the graph; `dataset_build` makes one when the graph runs (a transformation of a dataset
input, or a source over tensors), by calling the Python `builder` it names. A staged
`for x in dataset` reads elements through an indexed iterator (`dataset_iterator`,
`iterator_length`, `iterator_get`), so that autograph stages it like a loop over a tensor;
`next(iterator)` in a graph is `iterator_next`. All are stateful: they are never folded,
pruned or reordered. The live objects (the dataset, the builder, the iterator's state) are
attributes by key (`runtime.resources`), resolved when the node runs.
"""
import numpy as np

from runtime import dtypes
from runtime import resources
from runtime.errors import OutOfRangeError
from runtime.ops.registry import OPS
from runtime.ops.registry import OpKind
from runtime.ops.registry import apply
from runtime.ops.registry import register
from runtime.tensor_conversion import convert_to_tensor

_VARIANT = dtypes.variant
# the length a staged loop sees for an infinite dataset (it runs until a break)
INT32_MAX = np.iinfo(np.int32).max


def _variant_out(*inputs, **attrs):
    return (), _VARIANT


def _element_out(*inputs, specs):
    return [(None if s.shape is None else tuple(s.shape), s.dtype) for s in specs]


@register("dataset_source", infer=_variant_out, kind=OpKind.STATE, tf_name="DatasetHandle")
def _dataset_source(dataset):
    return dataset.resolve()


@register("dataset_build", infer=_variant_out, kind=OpKind.STATE, tf_name="DatasetBuild")
def _dataset_build(*inputs, builder):
    return builder.resolve()(*inputs)


class IndexedIterator:
    """One run's pass over a dataset, read by index in order (what a staged loop reads).

    The length is the dataset's cardinality when it is known without running it, the int32
    maximum for an infinite dataset, and otherwise the count after reading it all.
    """

    __slots__ = ("_dataset", "_iter", "_next", "_buffer")

    def __init__(self, dataset):
        self._dataset = dataset
        self._iter = dataset._make_iter()
        self._next = 0  # the index the next element read from `_iter` has
        self._buffer = None  # every element, once the length needed reading them all

    def length(self):
        count = self._dataset._cardinality
        if count >= 0:
            return min(count, INT32_MAX)
        if count == -1:
            return INT32_MAX
        if self._buffer is None:
            self._buffer = list(self._iter)
        return len(self._buffer) + self._next

    def get(self, index):
        if self._buffer is not None:
            return self._buffer[index - self._next]
        if index != self._next:
            raise OutOfRangeError(f"dataset elements are read in order: asked for {index} "
                                  f"after {self._next - 1}.", "iterator_get")
        self._next += 1
        try:
            return next(self._iter)
        except StopIteration:
            raise OutOfRangeError("End of sequence", "iterator_get") from None


@register("dataset_cardinality", infer=lambda ds: ((), dtypes.int64), kind=OpKind.STATE,
          tf_name="DatasetCardinality")
def _dataset_cardinality(dataset):
    return np.int64(dataset._cardinality)


@register("dataset_iterator", infer=_variant_out, kind=OpKind.STATE, tf_name="MakeIterator")
def _dataset_iterator(dataset):
    return IndexedIterator(dataset)


@register("iterator_length", infer=lambda it: ((), dtypes.int32), kind=OpKind.STATE,
          tf_name="IteratorLength")
def _iterator_length(iterator):
    return np.int32(iterator.length())


@register("iterator_get", infer=lambda it, index, specs: _element_out(specs=specs),
          kind=OpKind.STATE, multi_output=True, tf_name="IteratorGetNext")
def _iterator_get(iterator, index, specs):
    return list(iterator.get(int(index)))


@register("iterator_source", infer=_variant_out, kind=OpKind.STATE, tf_name="IteratorHandle")
def _iterator_source(state):
    return state.resolve()


@register("iterator_next", infer=_element_out, kind=OpKind.IO, multi_output=True,
          tf_name="IteratorGetNextSync")
def _iterator_next(state, specs):
    return list(state.next_flat())


def source(dataset):
    """The variant tensor of an eager dataset used in a graph."""
    return apply(OPS["dataset_source"], [], {"dataset": resources.register(dataset)})


def build(inputs, builder):
    """A variant tensor whose value is builder(*input values) when the graph runs."""
    return apply(OPS["dataset_build"], list(inputs), {"builder": resources.register(builder)})


def cardinality(variant):
    """The int64 cardinality of a dataset's variant, read when the graph runs."""
    return apply(OPS["dataset_cardinality"], [variant], {})


def iteration(variant, specs):
    """(length, getitem) of a staged loop over a dataset's variant (flat elements)."""
    it = apply(OPS["dataset_iterator"], [variant], {})
    length = apply(OPS["iterator_length"], [it], {})

    def getitem(index):
        index = convert_to_tensor(index, dtypes.int32)
        return apply(OPS["iterator_get"], [it, index], {"specs": tuple(specs)})

    return length, getitem


def next_of(state, specs):
    """The flat next element of an eager iterator's state, read when the graph runs."""
    handle = apply(OPS["iterator_source"], [], {"state": resources.register(state)})
    return apply(OPS["iterator_next"], [handle], {"specs": tuple(specs)})
