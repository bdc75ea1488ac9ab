"""Draw docs/architecture.png from the real import graph: one row per layer (top: cli), one box
per package, one arrow per pair of packages that import each other's modules, labelled with the
number of such imports. Run: python scripts/draw_architecture.py [OUT.png]"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.import_graph import LAYERS, layer_edges  # noqa: E402

ROLE = ["base helpers", "world, video, executor", "formats, metrics, scoring, seam",
        "what is evaluated", "suites from the world", "execution only",
        "scores, renders, audits", "every command"]
BASE = ["errors", "io", "versions", "loader", "seeding"]  # drawn as one box


def main(out: Path) -> None:
    rows = [sorted(p for p in pkgs if p not in ("__init__", "__main__")) for pkgs in LAYERS]
    rows[0] = ["base"]
    fig, ax = plt.subplots(figsize=(9.5, 7.2), dpi=120)
    centre: dict[str, tuple[float, float]] = {}
    for level, pkgs in enumerate(rows):
        y = level * 1.0
        width = 8.0 / max(len(pkgs), 1)
        for i, pkg in enumerate(pkgs):
            # a lone package shifts left and right from row to row, so arrows stay apart
            x = 1.0 + (i + 0.5) * width if len(pkgs) > 1 else (2.6, 5.0, 7.4)[level % 3]
            centre[pkg] = (x, y)
            label = "errors · io · versions\nloader · seeding" if pkg == "base" else pkg
            ax.add_patch(FancyBboxPatch((x - 0.9, y - 0.22), 1.8, 0.44,
                                        boxstyle="round,pad=0.02", fc="#e8f0fb", ec="#4a6fa5"))
            ax.text(x, y, label, ha="center", va="center", fontsize=9 if pkg != "base" else 7.5)
        ax.text(9.2, y, ROLE[level], ha="left", va="center", fontsize=8, color="dimgray")
    for (src, dst), count in sorted(layer_edges().items()):
        src = "base" if src in BASE else src
        dst = "base" if dst in BASE else dst
        if src == dst or dst == "base" or src not in centre or dst not in centre:
            continue  # every layer may use the base helpers: those arrows are not drawn
        (x0, y0), (x1, y1) = centre[src], centre[dst]
        ax.add_patch(FancyArrowPatch((x0, y0 - 0.23), (x1, y1 + 0.23), arrowstyle="-|>",
                                     mutation_scale=8, lw=0.5 + 0.04 * min(count, 40),
                                     color="#8a8a8a", alpha=0.55,
                                     connectionstyle="arc3,rad=0.08"))
    bx, by = centre["base"]
    ax.text(bx + 1.05, by, "every layer may import these (arrows not drawn)", ha="left",
            va="center", fontsize=7.5, color="dimgray")
    ax.set_xlim(0, 11.5)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.axis("off")
    ax.set_title("recallbench layers: every import points down (checked by "
                 "tests/test_architecture.py)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out)
    print(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/architecture.png"))
