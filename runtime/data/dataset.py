"""tf.data.Dataset: sources, transformations and iteration, eagerly and inside tf.function.

A Dataset is a recipe: an `element_spec` (a structure of TensorSpecs), a `_make_iter`
giving a fresh iterator of flat elements (`runtime.data.pipeline`), and a cardinality.
Eagerly it runs in Python over numpy. Inside a graph, a dataset that is a tf.function
argument, or one made from symbolic tensors, has a `_variant` tensor: its transformations
add `dataset_build` nodes (`runtime.data.ops`) that make the eager dataset when the graph
runs, while the element_spec is worked out at trace time on a proxy that never runs.

As in TensorFlow, the functions given to `map`, `filter` and `reduce` are traced as
tf.functions (converted by autograph; their Python side effects happen once, at tracing).
"""
import numpy as np

from runtime import context
from runtime import dtypes
from runtime.data import ops
from runtime.data import pipeline
from runtime.data import structure
from runtime.data.structure import flat_leaves
from runtime.data.structure import pack
from runtime.errors import InvalidArgumentError
from runtime.errors import OutOfRangeError
from runtime.tensor import EagerTensor
from runtime.tensor import SymbolicTensor
from runtime.tensor import Tensor
from runtime.tensor import TensorSpec
from runtime.tensor_conversion import convert_to_tensor
from runtime.graph import leaked_eager_error

INFINITE = structure.INFINITE
UNKNOWN = structure.UNKNOWN


def _no_iter():
    raise TypeError("internal: a dataset's element_spec proxy was iterated.")


def _count(value, what):
    """A Python int from an int or an eager scalar tensor."""
    if isinstance(value, SymbolicTensor):
        raise TypeError(f"Dataset.{what}() needs a count known when the dataset is built; "
                        f"found the symbolic tensor {value.name!r}. Pass a Python int.")
    return int(value.numpy()) if isinstance(value, Tensor) else int(value)


class Dataset(structure.DatasetBase):
    """A sequence of elements, each a structure of tensors (TensorFlow's tf.data.Dataset).

    Make one with a source (`from_tensor_slices`, `from_tensors`, `range`,
    `from_generator`) and transform it (`map`, `filter`, `batch`, `shuffle`, ...).
    """

    def __init__(self, spec, make_iter, cardinality, kind):
        self._spec = spec  # structure of TensorSpecs
        self._make_iter = make_iter  # () -> iterator of flat tuples of numpy values
        self._cardinality = cardinality  # a count, INFINITE or UNKNOWN
        self._kind = kind  # TensorFlow's class name, for repr
        self._variant = None  # inside a graph: the variant tensor whose value this is
        self._epochs = 0  # how many iterations have started (shuffle's reshuffling)

    # -- what it is -------------------------------------------------------------------------

    @property
    def element_spec(self):
        """The structure of TensorSpecs of one element."""
        return self._spec

    def cardinality(self):
        """The number of elements as an int64 tensor (-1 infinite, -2 unknown).

        Inside a graph it is computed when the graph runs (datasets there are made then).
        """
        if self._variant is None and context.executing_eagerly():
            return convert_to_tensor(np.int64(self._cardinality))
        return ops.cardinality(self._as_variant())

    def __len__(self):
        if self._cardinality == INFINITE:
            raise TypeError("The dataset is infinite.")
        if self._cardinality < 0:
            raise TypeError("The dataset's length is unknown.")
        return self._cardinality

    def __repr__(self):
        return f"<{self._kind} element_spec={structure.describe(self._spec)}>"

    def __bool__(self):
        return True

    # -- sources ----------------------------------------------------------------------------

    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """A dataset whose elements are the slices of `tensors` along their first dimension.

        Args:
            tensors: A tensor, or a structure (tuple, dict) of tensors with one first
                dimension. A Python list is one tensor.
            name: Unused (TensorFlow's name of the op).

        Returns:
            A Dataset.

        Raises:
            ValueError: for scalars or first dimensions that differ.
        """
        value = structure.to_tensors(tensors)
        leaves = flat_leaves(value)
        for t in leaves:
            if t.shape is None or len(t.shape) == 0:
                raise ValueError(f"Dataset.from_tensor_slices needs tensors of rank at least "
                                 f"1 to slice; found {t!r}.")
        spec = pack(value, [TensorSpec(t.shape[1:], t.dtype) for t in leaves])
        dims = {t.shape[0] for t in leaves if t.shape[0] is not None}
        if len(dims) > 1:
            raise ValueError(f"Dataset.from_tensor_slices needs one first dimension; found "
                             f"{sorted(dims)}.")
        known = dims and all(t.shape[0] is not None for t in leaves)
        count = dims.pop() if known else UNKNOWN  # (else counted from the arrays when run)
        return _from_tensors(spec, leaves, count, "TensorSliceDataset", pipeline.slices)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of one element: `tensors` (a tensor or a structure of tensors)."""
        value = structure.to_tensors(tensors)
        leaves = flat_leaves(value)
        spec = pack(value, [structure.spec_of(t) for t in leaves])
        return _from_tensors(spec, leaves, 1, "TensorDataset", pipeline.single)

    @staticmethod
    def range(*args, output_type=dtypes.int64, name=None):
        """range(stop), range(start, stop) or range(start, stop, step), as Python's range.

        Returns:
            A Dataset of scalar `output_type` (int64 by default) elements.
        """
        bounds = [_count(a, "range") for a in args]
        dtype = dtypes.as_dtype(output_type)
        values = np.arange(*bounds).astype(dtype.np_dtype)
        return Dataset(TensorSpec((), dtype), pipeline.slices([values]), len(values),
                       "RangeDataset")

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        """A dataset of the values a fresh call of `generator(*args)` yields.

        Args:
            generator: A callable returning an iterator.
            output_types: A structure of DTypes (or use output_signature).
            output_shapes: A matching structure of shapes (unknown rank when omitted).
            args: A tuple of arguments for `generator`.
            output_signature: A structure of TensorSpecs.

        Returns:
            A Dataset of unknown cardinality.
        """
        if output_signature is None:
            if output_types is None:
                raise TypeError("Dataset.from_generator needs output_signature, or "
                                "output_types (and optionally output_shapes).")
            types = flat_leaves(output_types)
            shapes = ([None] * len(types) if output_shapes is None
                      else _shape_leaves(output_shapes, len(types)))
            output_signature = pack(output_types, [
                TensorSpec(s, t) for s, t in zip(shapes, types)])
        specs = flat_leaves(output_signature)
        args = tuple(args or ())

        def convert(value):
            return structure.to_flat_arrays(specs, value, "the generator of from_generator")

        return Dataset(output_signature, pipeline.generated(generator, args, convert),
                       UNKNOWN, "FlatMapDataset")

    @staticmethod
    def zip(*datasets, name=None):
        """A dataset of tuples (or the given structure) of the datasets' elements."""
        structure_ = datasets[0] if len(datasets) == 1 and not isinstance(
            datasets[0], Dataset) else datasets
        parts = flat_leaves(structure_)
        spec = pack(structure_, [d._spec for d in parts])
        counts = [d._cardinality for d in parts]
        finite = [c for c in counts if c >= 0]
        count = min(finite) if finite else (INFINITE if all(c == INFINITE for c in counts)
                                            else UNKNOWN)
        if UNKNOWN in counts and finite:
            count = UNKNOWN

        def make(*eager):
            return Dataset(spec, pipeline.zipped([d._make_iter for d in eager]), count,
                           "ZipDataset")

        return parts[0]._derive(make, parts[1:])

    # -- transformations ---------------------------------------------------------------------

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Applies `map_func` (traced once, as a tf.function) to every element."""
        from runtime.data import functions  # late: functions imports runtime.function
        step, out_spec = functions.element_function(map_func, self._spec, "map")
        out_specs = flat_leaves(out_spec)

        def run(flat):
            return structure.to_flat_arrays(out_specs, step(flat), "the map function")

        return self._derive(lambda d: Dataset(out_spec, pipeline.mapped(d._make_iter, run),
                                              d._cardinality, "MapDataset"))

    def filter(self, predicate, name=None):
        """Keeps the elements for which `predicate` (traced once) gives True."""
        from runtime.data import functions  # late: functions imports runtime.function
        test = functions.predicate(predicate, self._spec)
        return self._derive(lambda d: Dataset(
            d._spec, pipeline.filtered(d._make_iter, test), UNKNOWN, "FilterDataset"))

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """Stacks `batch_size` consecutive elements (a smaller last batch unless dropped)."""
        size = _count(batch_size, "batch")
        if size <= 0:
            raise ValueError(f"Dataset.batch needs a positive batch_size, found {size}.")
        drop = bool(drop_remainder)
        spec = structure.map_specs(lambda s: TensorSpec(
            None if s.shape is None else (size if drop else None,) + tuple(s.shape),
            s.dtype), self._spec)

        def make(d):
            n = d._cardinality
            count = n if n < 0 else (n // size if drop else -(-n // size))
            return Dataset(spec, pipeline.batched(d._make_iter, size, drop), count,
                           "BatchDataset")

        return self._derive(make)

    def take(self, count, name=None):
        """The first `count` elements (all when count is -1)."""
        k = _count(count, "take")
        return self._derive(lambda d: Dataset(
            d._spec, pipeline.taken(d._make_iter, k), _take_count(d._cardinality, k),
            "TakeDataset"))

    def skip(self, count, name=None):
        """All but the first `count` elements (none when count is -1)."""
        k = _count(count, "skip")
        return self._derive(lambda d: Dataset(
            d._spec, pipeline.skipped(d._make_iter, k), _skip_count(d._cardinality, k),
            "SkipDataset"))

    def repeat(self, count=None, name=None):
        """The elements `count` times over (for ever when count is None or -1)."""
        k = -1 if count is None else _count(count, "repeat")
        return self._derive(lambda d: Dataset(
            d._spec, pipeline.repeated(d._make_iter, k), _repeat_count(d._cardinality, k),
            "RepeatDataset"))

    def enumerate(self, start=0, name=None):
        """(index, element) pairs, the index an int64 scalar counting from `start`."""
        first = _count(start, "enumerate")
        spec = (TensorSpec((), dtypes.int64), self._spec)
        return self._derive(lambda d: Dataset(
            spec, pipeline.enumerated(d._make_iter, first), d._cardinality,
            "EnumerateDataset"))

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Draws elements at random from a buffer of `buffer_size` (TensorFlow's shuffle).

        With a seed the order is deterministic: the same for every run of the program, and
        with reshuffle_each_iteration=False the same for every pass over the dataset.
        """
        size = _count(buffer_size, "shuffle")
        if size <= 0:
            raise ValueError(f"Dataset.shuffle needs a positive buffer_size, found {size}.")
        base = None if seed is None else _count(seed, "shuffle")

        def make(d):
            def seeds():
                epoch = d._epochs if reshuffle_each_iteration else 0
                d._epochs += 1
                return np.random.default_rng(None if base is None else [base, epoch])
            return Dataset(d._spec, pipeline.shuffled(d._make_iter, size, seeds),
                           d._cardinality, "ShuffleDataset")

        return self._derive(make)

    def prefetch(self, buffer_size, name=None):
        """The same dataset (elements are computed when read; there is nothing to overlap)."""
        return self

    def cache(self, filename="", name=None):
        """The same dataset (its elements are recomputed on every pass)."""
        return self

    def reduce(self, initial_state, reduce_func, name=None):
        """Folds the elements: state = reduce_func(state, element), from `initial_state`.

        Returns:
            The final state (eagerly, or as staged tensors inside a graph).
        """
        from runtime.data import functions  # late: functions imports runtime.function
        return functions.reduce(self, initial_state, reduce_func)

    # -- iteration -------------------------------------------------------------------------

    def __iter__(self):
        if self._variant is not None or not context.executing_eagerly():
            raise TypeError(
                f"{self!r} is iterated by plain Python while a graph is being built. Inside "
                f"tf.function, iterate it in code autograph converts (`for x in dataset:` "
                f"is staged as a loop), or use dataset.reduce.")
        return Iterator(self)

    def as_numpy_iterator(self):
        """An iterator of the elements as numpy values (in their structure)."""
        for element in self:
            yield structure.map_specs(lambda t: t.numpy(), element)

    def _iteration(self):
        """(length, getitem) of a staged for loop over this dataset (the backend's iterate)."""
        length, getitem = ops.iteration(self._as_variant(), flat_leaves(self._spec))
        return length, lambda index: pack(self._spec, getitem(index))

    # -- graphs ------------------------------------------------------------------------------

    def _as_variant(self):
        """The variant tensor standing for this dataset in the graph being built."""
        return self._variant if self._variant is not None else ops.source(self)

    def _proxy(self):
        """A dataset with this one's spec that is never run (to work out a child's spec)."""
        return Dataset(self._spec, _no_iter, UNKNOWN, self._kind)

    def _with_variant(self, variant):
        self._variant = variant
        self._make_iter = _no_iter
        self._cardinality = UNKNOWN
        return self

    def _derive(self, make, others=()):
        """make(*eager parents) -> child: now when all are eager, else a dataset_build node."""
        parents = (self,) + tuple(others)
        if all(p._variant is None for p in parents):
            return make(*parents)
        child = make(*[p._proxy() for p in parents])
        return child._with_variant(ops.build([p._as_variant() for p in parents], make))

    def _feed_value(self):
        """What a tf.function call feeds its placeholder: this eager dataset."""
        if self._variant is not None:
            raise leaked_eager_error(self._variant)
        return self

    def _from_placeholder(self, placeholder):
        """The dataset a tf.function's trace sees for this argument (its placeholder)."""
        return Dataset(self._spec, _no_iter, UNKNOWN, self._kind)._with_variant(placeholder)


def _from_tensors(spec, leaves, count, kind, layout):
    """A source over tensors: eager now, or a dataset_build over symbolic ones."""
    def make(*arrays):
        return Dataset(spec, layout([np.asarray(a) for a in arrays]), _rows(arrays, count),
                       kind)

    if not any(isinstance(t, SymbolicTensor) or (
            type(t) is EagerTensor and not context.executing_eagerly()) for t in leaves):
        return make(*[t.numpy() for t in leaves])
    return Dataset(spec, _no_iter, UNKNOWN, kind)._with_variant(ops.build(leaves, make))


def _rows(arrays, count):
    """The count of a source over tensors, known now or only from the arrays at run time."""
    if count != UNKNOWN:
        return count
    lengths = {len(a) for a in arrays}
    if len(lengths) > 1:
        raise InvalidArgumentError(f"Dataset.from_tensor_slices needs one first dimension; "
                                   f"found {sorted(lengths)}.", "dataset_build")
    return lengths.pop() if lengths else 0


def _shape_leaves(shapes, n):
    """The leaves of an output_shapes structure (a shape is a list or tuple of dims)."""
    if n == 1 and (shapes is None or not isinstance(shapes, (tuple, list)) or not shapes or
                   not isinstance(shapes[0], (tuple, list, type(None)))):
        return [shapes]
    return list(shapes)


def _take_count(n, k):
    if k < 0:
        return n
    return k if n == INFINITE else (min(n, k) if n >= 0 else UNKNOWN)


def _skip_count(n, k):
    if k < 0:
        return 0
    return INFINITE if n == INFINITE else (max(n - k, 0) if n >= 0 else UNKNOWN)


def _repeat_count(n, k):
    if n == 0 or k == 0:
        return 0
    if k < 0:
        return INFINITE
    return n * k if n >= 0 else n


class Iterator:
    """An iterator over a dataset (TensorFlow's tf.data.Iterator, from `iter(dataset)`).

    Eagerly `next` reads the next element now; inside a graph (an iterator passed to a
    tf.function) it adds an `iterator_next` node that reads it each time the graph runs.
    """

    def __init__(self, dataset):
        self._spec = dataset._spec
        self._specs = flat_leaves(dataset._spec)
        self._state = _IteratorState(dataset._make_iter())

    @property
    def element_spec(self):
        """The structure of TensorSpecs of one element."""
        return self._spec

    def __iter__(self):
        return self

    def __next__(self):
        if context.executing_eagerly():
            flat = self._state.next_flat(StopIteration)
            return structure.to_eager(self._spec, flat)
        return pack(self._spec, ops.next_of(self._state, self._specs))

    def get_next(self):
        """The next element; raises tf.errors.OutOfRangeError at the end."""
        if context.executing_eagerly():
            return structure.to_eager(self._spec, self._state.next_flat())
        return next(self)


class _IteratorState:
    """The live Python iterator of an Iterator (the value of its graph handle)."""

    __slots__ = ("_iter",)

    def __init__(self, it):
        self._iter = it

    def next_flat(self, end=None):
        try:
            return next(self._iter)
        except StopIteration:
            if end is not None:
                raise end from None
            raise OutOfRangeError("End of sequence", "iterator_next") from None
