"""Data types of the runtime (float32, int32, bool, string, ...) and their numpy mapping."""
import numpy as np


class DType:
    """A tensor element type, backed by a numpy dtype.

    Attributes:
        name: The TensorFlow-style name, e.g. 'float32'.
        as_numpy_dtype: The numpy scalar type used for values (np.object_ for strings).
    """

    __slots__ = ("name", "as_numpy_dtype", "np_dtype", "is_floating", "is_integer", "is_bool",
                 "is_unsigned")

    def __init__(self, name, np_type):
        self.name = name
        self.as_numpy_dtype = np_type
        self.np_dtype = np.dtype(np_type)
        kind = self.np_dtype.kind
        self.is_floating = kind == "f"
        self.is_integer = kind in "iu"
        self.is_unsigned = kind == "u"
        self.is_bool = kind == "b"

    @property
    def base_dtype(self):
        """This dtype (TensorFlow compatibility: there are no reference dtypes here)."""
        return self

    @property
    def is_numeric(self):
        """True for integer and floating dtypes."""
        return self.is_floating or self.is_integer

    @property
    def min(self):
        """The smallest representable value."""
        if self.is_floating:
            return np.finfo(self.np_dtype).min
        return np.iinfo(self.np_dtype).min

    @property
    def max(self):
        """The largest representable value."""
        if self.is_floating:
            return np.finfo(self.np_dtype).max
        return np.iinfo(self.np_dtype).max

    def __repr__(self):
        return "tf." + self.name

    def __str__(self):
        return self.name

    def __reduce__(self):
        return (as_dtype, (self.name,))


float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
bool = DType("bool", np.bool_)  # noqa: A001 - the TensorFlow name
string = DType("string", np.object_)
# Internal: opaque values such as TensorArray storage flowing through a graph.
variant = DType("variant", np.object_)
# Internal: handles naming a live resource (a Variable), as TensorFlow's `resource` dtype.
resource = DType("resource", np.object_)

half = float16 = DType("float16", np.float16)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
uint16 = DType("uint16", np.uint16)
uint32 = DType("uint32", np.uint32)
uint64 = DType("uint64", np.uint64)
double = float64

_ALL = (float32, float64, int32, int64, uint8, bool, string, float16, int8, int16, uint16,
        uint32, uint64)
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"variant": variant, "resource": resource, "half": float16, "double": float64,
                 "float": float32})
# numpy dtype -> DType; object arrays hold Python strings.
_BY_NP = {d.np_dtype: d for d in _ALL if d is not string}
_BY_NP[np.dtype(np.object_)] = string


def from_numpy(np_dtype):
    """Returns the DType of a numpy dtype.

    Args:
        np_dtype: A numpy dtype instance.

    Returns:
        The matching DType.

    Raises:
        TypeError: if the numpy dtype has no runtime equivalent (e.g. complex).
    """
    try:
        return _BY_NP[np_dtype]
    except KeyError:
        pass
    if np_dtype.kind in "USO":
        return string
    raise TypeError(
        f"Expected a numpy dtype with a runtime equivalent ({', '.join(_BY_NAME)}), "
        f"found {np_dtype}. Convert the array with .astype() first.")


def as_dtype(value):
    """Converts a DType, numpy dtype/type, Python type or name into a DType.

    Args:
        value: A DType, a numpy dtype or scalar type, `int`/`float`/`bool`/`str`, or a name
            such as 'float32'.

    Returns:
        The DType.

    Raises:
        TypeError: if `value` does not name a supported dtype.
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        try:
            return _BY_NAME[value]
        except KeyError:
            raise TypeError(f"Expected a dtype name such as 'float32', found {value!r}.") from None
    if value is _py_bool:
        return bool
    if value is int:
        return int32
    if value is float:
        return float32
    if value is str or value is bytes:
        return string
    try:
        np_dtype = np.dtype(value)
    except TypeError:
        raise TypeError(f"Expected a dtype (e.g. tf.float32), found {value!r}.") from None
    return from_numpy(np_dtype)


_py_bool = type(True)
