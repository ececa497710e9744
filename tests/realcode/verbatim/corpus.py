"""The verbatim real-code corpus: importing this module registers every copied function."""

from tests.realcode.verbatim import calls_keon  # noqa: F401 - registers its functions
from tests.realcode.verbatim import calls_others  # noqa: F401
from tests.realcode.verbatim import calls_thealgorithms  # noqa: F401
