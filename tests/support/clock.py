"""Times of day as generated FindingDory frames carry them ("HH:MM")."""

from __future__ import annotations


def minutes(hhmm: str) -> int:
    """Minutes after midnight of an "HH:MM" stamp."""
    h, m = hhmm.split(":")
    return int(h) * 60 + int(m)
