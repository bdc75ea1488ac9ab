"""Colour palettes per style id: floors, walls and cabinetry differ so homes look distinct."""

from __future__ import annotations

from dataclasses import dataclass

RGBA = tuple[float, float, float, float]


def _hex(code: str, alpha: float = 1.0) -> RGBA:
    code = code.lstrip("#")
    r, g, b = (int(code[i : i + 2], 16) / 255.0 for i in (0, 2, 4))
    return (round(r, 4), round(g, 4), round(b, 4), alpha)


@dataclass(frozen=True)
class Style:
    name: str
    wall: RGBA
    floors: dict[str, RGBA]  # per room type
    cabinet: RGBA
    counter: RGBA
    appliance: RGBA  # fridge, dishwasher, oven body
    accent: RGBA  # handles, trims
    wood: RGBA  # tables, shelves, bed frame
    fabric: RGBA  # sofa, bed cover


STYLES: tuple[Style, ...] = (
    Style(
        "classic",
        wall=_hex("e8e0d0"),
        floors={
            "kitchen": _hex("b8b0a0"),
            "living_room": _hex("9a6b43"),
            "bedroom": _hex("a87c55"),
            "dining_room": _hex("8c5e3c"),
            "bathroom": _hex("d0d8dc"),
        },
        cabinet=_hex("f2efe6"),
        counter=_hex("3a3a3a"),
        appliance=_hex("c8ccd0"),
        accent=_hex("707478"),
        wood=_hex("7a5230"),
        fabric=_hex("4f6d8a"),
    ),
    Style(
        "modern",
        wall=_hex("f4f4f4"),
        floors={
            "kitchen": _hex("5d5d5d"),
            "living_room": _hex("c9b89a"),
            "bedroom": _hex("bfa98a"),
            "dining_room": _hex("c9b89a"),
            "bathroom": _hex("e6e6e6"),
        },
        cabinet=_hex("2f3b45"),
        counter=_hex("e9e6df"),
        appliance=_hex("9aa0a6"),
        accent=_hex("d0d4d8"),
        wood=_hex("a88a63"),
        fabric=_hex("8a8f94"),
    ),
    Style(
        "farmhouse",
        wall=_hex("f1e6cf"),
        floors={
            "kitchen": _hex("a0522d"),
            "living_room": _hex("8b6b4a"),
            "bedroom": _hex("9c7b5a"),
            "dining_room": _hex("7d5a3a"),
            "bathroom": _hex("cfd6c4"),
        },
        cabinet=_hex("6f8f72"),
        counter=_hex("c8b89a"),
        appliance=_hex("e8e8e8"),
        accent=_hex("3b3b3b"),
        wood=_hex("5c3d22"),
        fabric=_hex("a0453a"),
    ),
    Style(
        "coastal",
        wall=_hex("dfeef3"),
        floors={
            "kitchen": _hex("d9d2c5"),
            "living_room": _hex("c7b299"),
            "bedroom": _hex("d1c0a8"),
            "dining_room": _hex("bfa888"),
            "bathroom": _hex("bcd6df"),
        },
        cabinet=_hex("2e5e80"),
        counter=_hex("f5f5f0"),
        appliance=_hex("b0b6bb"),
        accent=_hex("c2a25a"),
        wood=_hex("b08d64"),
        fabric=_hex("e3d9c6"),
    ),
    Style(
        "industrial",
        wall=_hex("b9b3ab"),
        floors={
            "kitchen": _hex("6b6b6b"),
            "living_room": _hex("7a6652"),
            "bedroom": _hex("856f59"),
            "dining_room": _hex("6e5a47"),
            "bathroom": _hex("8e9a9e"),
        },
        cabinet=_hex("1f1f1f"),
        counter=_hex("9e9e9e"),
        appliance=_hex("7e8388"),
        accent=_hex("b87333"),
        wood=_hex("4a3526"),
        fabric=_hex("5a4a3a"),
    ),
)


def get_style(style: int) -> Style:
    """Styles cycle, so any non-negative id is valid."""
    if style < 0:
        raise ValueError(f"style must be >= 0, got {style}")
    return STYLES[style % len(STYLES)]
