"""The whole real-code corpus: importing this module registers every group."""

from tests.realcode import number_theory  # noqa: F401 - registers its functions
from tests.realcode.registry import FUNCTIONS  # noqa: F401 - the corpus
