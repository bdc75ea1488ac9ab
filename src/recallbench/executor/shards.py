"""Shards for batch schedulers: ``--shard i/N`` runs a deterministic part of a run's cases.

Here, at the bottom, because the runner plans with it and a benchmark's scoring counts a
shard's planned cases with it; joining shard folders is ``recallbench.run.merge``.

A unit (a SceneMem scenario, a FindingDory case id) belongs to shard ``sha256(unit) mod N``:
it depends on the unit's name only, so a shard picks the same units whatever else loads, on
every resume, and the N shards together cover every unit exactly once. SceneMem shards whole
scenarios (a shard then builds only its own scenarios' environments).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from recallbench.errors import UsageError

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based, as Slurm's array task ids usually are
    count: int

    def picks(self, unit: str) -> bool:
        import hashlib  # on use: the command line's flags import this module

        digest = hashlib.sha256(unit.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "little") % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str | None, flag: str = "--shard") -> Shard | None:
    """``"i/N"`` (1 <= i <= N) -> Shard; None stays None (the whole run)."""
    if text is None:
        return None
    m = _SHARD.match(text)
    if not m:
        raise UsageError(flag, f"expected i/N such as 1/4, got {text!r}")
    index, count = int(m.group(1)), int(m.group(2))
    if count < 1 or not 1 <= index <= count:
        raise UsageError(flag, f"needs 1 <= i <= N, got {text!r}")
    return Shard(index, count)
