"""Video access for frame-selection agents: lazy decoding, subsampling, stamping, writing.

Public API: ``subsample_indices``, ``stamp_frame``, ``VideoFrames``, ``count_frames``,
``VideoWriter``. PyAV is imported by the submodules, so import them where needed.
"""

from recallbench.video.reader import VideoFrames, count_frames
from recallbench.video.sampling import subsample_indices
from recallbench.video.stamp import stamp_frame
from recallbench.video.writer import VideoWriter

__all__ = ["VideoFrames", "VideoWriter", "count_frames", "stamp_frame", "subsample_indices"]
