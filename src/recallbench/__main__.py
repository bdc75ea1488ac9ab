"""``python -m recallbench``: the same entry point as the ``recallbench`` script."""

import sys

from recallbench.cli import main

sys.exit(main())
