"""The frame-selection protocol, re-exported where agent authors look for it; it is defined by
the benchmark (``recallbench.benchmarks.findingdory.protocol``)."""

from recallbench.benchmarks.findingdory.protocol import *  # noqa: F403
from recallbench.benchmarks.findingdory.protocol import __all__  # noqa: F401
