"""Video access for frame-selection agents: lazy decoding, subsampling, stamping, writing.

Public API: ``subsample_indices``, ``stamp_frame``, ``VideoFrames``, ``count_frames``,
``VideoWriter``. Each is imported from its submodule on first use: PyAV costs about a third of a
second to import, and scoring (which needs only ``subsample_indices``) never decodes a frame.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from recallbench.video.reader import VideoFrames, count_frames
    from recallbench.video.sampling import subsample_indices
    from recallbench.video.stamp import stamp_frame
    from recallbench.video.writer import VideoWriter

_HOME = {"VideoFrames": "reader", "count_frames": "reader", "subsample_indices": "sampling",
         "stamp_frame": "stamp", "VideoWriter": "writer"}
__all__ = ["VideoFrames", "VideoWriter", "count_frames", "stamp_frame", "subsample_indices"]


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
