"""Where the workspace's shared data lives: ``../shared`` beside the project root (as on every
developer machine and in CI), or the folder named by RECALLBENCH_SHARED."""

from __future__ import annotations

import os
from pathlib import Path

SHARED = Path(os.environ.get("RECALLBENCH_SHARED", Path(__file__).resolve().parents[3] / "shared"))
# The public FindingDory validation annotations (5,876 questions): real data for the tests.
FINDINGDORY_VAL_QA = SHARED / "data" / "findingdory-val-qa.json"
