"""The built-in export formats' checks (rows of ``export.formats``): each turns its options'
values into the options export.json records, refusing a bad one before any work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
from recallbench.errors import UsageError


def sft_options(values: dict[str, Any], out: Path) -> dict[str, Any]:
    if values["full_length"] and values["frames"] is not None:
        raise UsageError("--frames", "not with --full-length")
    frames = DEFAULT_FRAMES if values["frames"] is None else values["frames"]
    if frames < 1:
        raise UsageError("--frames", f"must be >= 1, got {frames}")
    from recallbench.export.findingdory_sft import DEFAULT_VAL_FRACTION, sampler_loss

    loss = None if values["full_length"] else sampler_loss(frames)
    if loss:  # the frames the export offers are the frames the trainer must see
        raise UsageError("--frames", f"{frames}: {loss}")
    val = DEFAULT_VAL_FRACTION if values["val_fraction"] is None else values["val_fraction"]
    if not 0.0 <= val < 1.0:
        raise UsageError("--val-fraction", f"must be in [0, 1), got {val}")
    return {"frames": frames, "full_length": bool(values["full_length"]), "val_fraction": val}


def lerobot_options(values: dict[str, Any], out: Path) -> dict[str, Any]:
    return {"probes": not values["no_probes"],
            "repo_id": values["repo_id"] or f"recallbench/{out.resolve().name}"}
