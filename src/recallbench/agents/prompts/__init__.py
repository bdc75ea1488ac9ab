"""Versioned prompt files for the model-backed agents.

A prompt is never edited in place: a change is a new file (``..._v2.txt``), so a run's manifest
(prompt name + sha256 of the file) says exactly which text produced its numbers. Placeholders are
``{name}`` and are filled by plain replacement, not ``str.format``, because the prompts contain
literal JSON braces.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

PROMPT_DIR = Path(__file__).resolve().parent
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class Prompt:
    name: str
    text: str
    path: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def placeholders(self) -> set[str]:
        return set(_PLACEHOLDER.findall(self.text))

    def render(self, **values: object) -> str:
        """Fill every placeholder; a missing or unknown name is a programming error."""
        missing = self.placeholders - values.keys()
        unknown = values.keys() - self.placeholders
        if missing or unknown:
            raise KeyError(
                f"prompt {self.name}: missing {sorted(missing)}, unknown {sorted(unknown)}"
            )
        return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), self.text)

    def manifest(self) -> dict[str, str]:
        return {"name": self.name, "sha256": self.sha256, "path": self.path}


def load_prompt(name_or_path: str | Path) -> Prompt:
    """A bundled prompt by name (``findingdory_frame_selection_v1``) or any text file by path."""
    candidate = Path(name_or_path)
    if candidate.suffix == ".txt" and candidate.is_file():
        path = candidate
    else:
        path = PROMPT_DIR / f"{name_or_path}.txt"
        if not path.is_file():
            bundled = sorted(p.stem for p in PROMPT_DIR.glob("*.txt"))
            raise FileNotFoundError(
                f"prompt {name_or_path!r} not found (bundled prompts: {', '.join(bundled)})"
            )
    return Prompt(name=path.stem, text=path.read_text(encoding="utf-8"), path=str(path))
