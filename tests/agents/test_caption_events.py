"""The text-memory answerer reads the day's events from its captions to answer order questions.

Captions are written exactly as ``AnnotationCaptioner`` writes them. Without the event reading,
the embedding answerer picks by sentence similarity, which cannot count ("second" vs "first").
"""

from __future__ import annotations

import numpy as np

from recallbench.agents.base import FrameQuery
from recallbench.agents.caption_events import answer_from_events, interactions
from recallbench.agents.text_memory import Chunk, EmbeddingAnswerer

CAPTIONS = [
    "The robot is in the kitchen. At frame 3 the robot picks up the red mug from the counter in "
    "the kitchen.",
    "At frame 14 the robot places the red mug on the table in the dining room. It sees the red "
    "mug.",
    "At frame 30 the robot picks up the blue vase from the shelf in the living room. At frame 37 "
    "the robot places the blue vase on the sofa in the living room.",
    "At frame 50 the robot picks up the green apple from the table in the dining room.",
    "At frame 61 the robot places the green apple on the counter in the kitchen.",
]


def _captions() -> list[tuple[Chunk, str]]:
    return [(Chunk(i, tuple(range(16 * i, 16 * i + 16)), tuple(range(16 * i, 16 * i + 16)),
                   (None,) * 16, None), text) for i, text in enumerate(CAPTIONS)]


def test_interactions_are_rebuilt_in_order():
    its = interactions(_captions())
    assert [(it.obj, it.pick, it.place) for it in its] == [
        ("red mug", 3, 14), ("blue vase", 30, 37), ("green apple", 50, 61)]
    assert its[2].pick_receptacle == "table" and its[2].place_receptacle == "counter"


def test_order_and_object_questions_are_answered_from_the_events():
    caps = _captions()
    ask = {
        "Navigate to the second object that you interacted with yesterday.": [37],
        "Navigate to the first receptacle that you picked an object from.": [3],
        "Navigate to the third receptacle that you placed an object on.": [61],
        "Navigate to the object you interacted with immediately after ending the interaction "
        "with mug.": [37],
        "Navigate to the object you interacted with 2 interactions before starting the "
        "interaction with apple.": [14],
        "Navigate to the object that you interacted with between the interactions with mug and "
        "apple.": [37],
        "Navigate to the receptacle that you picked the vase from.": [30],
        "Navigate to to the object which took the shortest time to rearrange.": [37],
        "Navigate to the room where you placed the first object in.": [14],
    }
    for question, frames in ask.items():
        assert answer_from_events(question, caps, 1) == frames, question
    order = ("Revisit all the receptacles you placed objects on yesterday in specific order. "
             "The order to revisit them is: third, first, second.")
    assert answer_from_events(order, caps, 3) == [61, 14, 37]
    assert answer_from_events("Revisit all the objects you interacted with yesterday.", caps,
                              3) == [14, 37, 61]
    # not an order question, or one the events cannot settle: similarity decides
    assert answer_from_events("Navigate to a mug.", caps, 1) is None
    assert answer_from_events("Navigate to the fifth object that you interacted with "
                              "yesterday.", caps, 1) is None


class _Flat:
    """Every text alike: similarity alone would always pick the first chunk."""

    def embed(self, texts):
        return np.ones((len(texts), 4))


def test_the_embedding_answerer_uses_the_events_before_similarity():
    answerer = EmbeddingAnswerer(embedder=_Flat())
    query = FrameQuery("1", "The robot's goal is: Navigate to the third object that you "
                       "interacted with yesterday.", None, tuple(range(80)), num_targets=1)
    answer = answerer.answer(query, _captions())
    assert answer.frame_indices == [61] and answer.info["rule"] == "caption events"
    other = FrameQuery("2", "The robot's goal is: Navigate to a mug.", None, tuple(range(80)),
                       num_targets=1)
    assert answerer.answer(other, _captions()).frame_indices == [3]  # chunk 0's first frame
