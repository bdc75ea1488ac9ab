"""Headless Chromium for the page tests (Debian's /usr/bin/chromium through Playwright): skipped
with the reason when either is missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync"]


def browser_api() -> Any:
    """``playwright.sync_api``, or a skip saying what is missing."""
    if not CHROMIUM.is_file():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")
    return pytest.importorskip("playwright.sync_api",
                               reason="needs the playwright package (test extra)")
