"""The whole real-code corpus: importing this module registers every group.

WRITTEN: functions written for this project in the idiom of public numeric Python;
VERBATIM: functions copied verbatim from public repositories (tests/realcode/verbatim/).
The two are measured and reported apart.
"""

from tests.realcode import bits  # noqa: F401 - registers its functions
from tests.realcode import digits  # noqa: F401
from tests.realcode import euler  # noqa: F401
from tests.realcode import lists  # noqa: F401
from tests.realcode import number_theory  # noqa: F401
from tests.realcode import roots_search  # noqa: F401
from tests.realcode import sequences  # noqa: F401
from tests.realcode.registry import FUNCTIONS
from tests.realcode.verbatim import corpus as _verbatim  # noqa: F401 - registers its functions

VERBATIM = [c for c in FUNCTIONS if c.fn.__module__.startswith('tests.realcode.verbatim.')]
WRITTEN = [c for c in FUNCTIONS if not c.fn.__module__.startswith('tests.realcode.verbatim.')]
