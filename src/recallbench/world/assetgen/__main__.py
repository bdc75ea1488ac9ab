"""Rewrite every family's shipped assets and manifest (``python -m recallbench.world.assetgen``)."""

from __future__ import annotations

import importlib
import json

from recallbench.world.asset_store import ASSET_ROOT, MANIFEST

# Each family module has ``generate(out_dir) -> {file: manifest entry}``.
FAMILIES: tuple[str, ...] = ("rooms", "objects")
LICENCE = "MIT (this project, see LICENSE)"


def main() -> None:
    for family in FAMILIES:
        module = importlib.import_module(f"recallbench.world.assetgen.{family}")
        out = ASSET_ROOT / family
        out.mkdir(parents=True, exist_ok=True)
        for old in out.iterdir():
            if old.name != MANIFEST:
                old.unlink()
        entries = module.generate(out)
        manifest = {"licence": LICENCE, "generator": f"recallbench.world.assetgen.{family}",
                    "assets": dict(sorted(entries.items()))}
        (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
        print(f"{family}: {len(entries)} files")


if __name__ == "__main__":
    main()
