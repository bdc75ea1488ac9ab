"""The text-memory agent's offline answerer (MiniLM retrieval) per question, against the raw
limit measured in the same run: one MiniLM forward pass over the question alone (every question
brings one new text; a video's chunk captions are shared by all its questions).

Also prints what re-encoding the captions with every question (the answerer before it
remembered embeddings) costs, for comparison. Needs the embeddings extra.

    .venv/bin/python bench/bench_text_memory.py [--chunks 12] [--questions 60] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from recallbench.agents.embeddings import MiniLMEmbedder
from recallbench.agents.text_memory import Chunk, EmbeddingAnswerer
from recallbench.benchmarks.findingdory.protocol import FrameQuery

OBJECTS = ("mug", "bowl", "apple", "book", "plant", "lamp", "vase", "cup", "box", "toy")
PLACES = ("sofa", "table", "shelf", "bed", "counter", "desk", "chair", "cabinet", "sink", "stool")


def captions(n: int) -> list[tuple[Chunk, str]]:
    out = []
    for i in range(n):
        positions = tuple(range(8 * i, 8 * i + 8))
        chunk = Chunk(i, positions, positions, (None,) * 8, "video.mp4")
        text = (f"Frames {positions[0]}-{positions[-1]}: the robot picks up the "
                f"{OBJECTS[i % 10]} from the {PLACES[(3 * i) % 10]} and carries it to the "
                f"{PLACES[(3 * i + 1) % 10]} in room {i}.")
        out.append((chunk, text))
    return out


def questions(n: int) -> list[FrameQuery]:
    return [FrameQuery(str(q), f"Navigate to the {OBJECTS[q % 10]} you placed on the "
                               f"{PLACES[(7 * q) % 10]} ({q}).", "video.mp4", tuple(range(96)))
            for q in range(n)]


def timed(fn) -> float:  # noqa: ANN001 - a zero-argument callable
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=12)
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    caps, qs = captions(args.chunks), questions(args.questions)
    model = MiniLMEmbedder()._load()  # loaded once, outside every timing

    def encode(texts: list[str]) -> None:
        model.encode(texts, normalize_embeddings=True, convert_to_numpy=True,
                     show_progress_bar=False)

    def ours() -> None:  # a fresh answerer: its memo starts empty, as in a new run
        embedder = MiniLMEmbedder()
        embedder._model = model
        answerer = EmbeddingAnswerer(embedder)
        for q in qs:
            answerer.answer(q, caps)

    def raw() -> None:  # the floor: each question's own text once, each caption once
        encode([text for _, text in caps])
        for q in qs:
            encode([q.instruction])

    def reencode() -> None:  # what every question cost before: captions again, batched
        for q in qs:
            encode([q.instruction] + [text for _, text in caps])

    rows = {name: [] for name in ("raw", "ours", "re-encode")}
    for _ in range(args.repeats):  # alternating, so load from other jobs falls on all alike
        rows["raw"].append(timed(raw))
        rows["ours"].append(timed(ours))
        rows["re-encode"].append(timed(reencode))
    med = {k: statistics.median(v) for k, v in rows.items()}
    per_q = {k: 1000 * v / args.questions for k, v in med.items()}
    print(f"{args.questions} questions over {args.chunks} captions, medians of {args.repeats}")
    for name in rows:
        print(f"  {name:10s} {per_q[name]:7.2f} ms/question  "
              f"{med[name] / med['raw']:5.2f}x raw")


if __name__ == "__main__":
    main()
