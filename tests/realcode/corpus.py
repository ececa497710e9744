"""The whole real-code corpus: importing this module registers every group."""

from tests.realcode import bits  # noqa: F401 - registers its functions
from tests.realcode import digits  # noqa: F401
from tests.realcode import euler  # noqa: F401
from tests.realcode import lists  # noqa: F401
from tests.realcode import number_theory  # noqa: F401
from tests.realcode import roots_search  # noqa: F401
from tests.realcode import sequences  # noqa: F401
from tests.realcode.registry import FUNCTIONS  # noqa: F401 - the corpus
