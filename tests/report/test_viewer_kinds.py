"""The viewer and the comparison read each agent's kind (issue 24): gains over the memoryless
baseline only for memory agents, privileged agents marked, and runs recorded before kinds were
(no ``agent_kind`` in their manifests) read the same."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from recallbench.cli import main
from recallbench.report.viewer.site import build_viewer, read_overview
from support.findingdory_suite import build_suite

AGENTS = textwrap.dedent(
    """
    from recallbench.benchmarks.findingdory.protocol import FrameAnswer


    class LastFrame:  # declares no kind: a memory agent
        privileged = False

        def select_frames(self, query, frames):
            n = query.num_targets or 1
            return FrameAnswer(frame_indices=[len(query.offered_frames) - 1] * n)


    class Peeker(LastFrame):
        agent_kind = "privileged"
    """
)


@pytest.fixture(scope="module")
def comparison(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    root = tmp_path_factory.mktemp("kinds")
    build_suite(root / "suite")
    (root / "kinds_agents.py").write_text(AGENTS)
    memory, peeker = f"{root / 'kinds_agents.py'}:LastFrame", f"{root / 'kinds_agents.py'}:Peeker"
    agents = ",".join(["time-prior", "question-only", "recency", "blind", memory, peeker])
    out = root / "cmp"
    assert main(["run", "--suite", str(root / "suite"), "--agents", agents, "--out", str(out),
                 "--frames", "40", "--quiet"]) == 0
    return out, memory, peeker


def _paired(viewer: Path) -> dict:
    return read_overview(viewer)["benchmarks"]["findingdory"]["paired"]


def test_gains_only_for_memory_agents_over_blind(comparison: tuple[Path, str, str]) -> None:
    out, memory, peeker = comparison
    paired = _paired(out / "viewer")
    # blind, although listed after the other memoryless agents; time-prior and question-only
    # have no memory, the privileged one reads the answer: no gain for any of them
    assert paired["baseline"] == "blind"
    # a file agent is shown by its file name and class: never this machine's absolute path
    # (pages must not embed it) nor a path relative to the page (a name is not a link)
    assert [g["agent"] for g in paired["gains"]] == ["kinds_agents.py:LastFrame"]
    kinds = {json.loads(m.read_text())["agent"]: json.loads(m.read_text())["agent_kind"]
             for m in out.glob("findingdory/*/manifest.json")}
    assert kinds == {"time-prior": "memoryless", "question-only": "memoryless",
                     "recency": "memoryless", "blind": "memoryless", memory: "memory",
                     peeker: "privileged"}
    agents = {a["agent"]: a for a in
              json.loads((out / "comparison.json").read_text())["benchmarks"]["findingdory"]
              ["agents"]}
    assert agents[peeker]["privileged"] and not agents[memory]["privileged"]
    assert not agents["time-prior"]["privileged"]


def test_runs_recorded_before_kinds_read_the_same(comparison: tuple[Path, str, str],
                                                  tmp_path: Path) -> None:
    out, memory, peeker = comparison
    for manifest in out.glob("findingdory/*/manifest.json"):
        m = json.loads(manifest.read_text())
        if m["agent"] != peeker:  # (a class declaring a kind is recorded with it)
            del m["agent_kind"]
        manifest.write_text(json.dumps(m))
    index = build_viewer(out, tmp_path / "viewer")
    paired = _paired(index.parent)
    assert paired["baseline"] == "blind"
    # by name from the registry; a third-party class is a memory agent (nothing is imported)
    assert [g["agent"] for g in paired["gains"]] == ["kinds_agents.py:LastFrame"]


def test_pages_show_a_file_agent_by_its_file_and_class(comparison: tuple[Path, str, str]) -> None:
    """Neither the machine's absolute path nor a ``../`` path relative to the page: a name."""
    out, memory, peeker = comparison
    root = out.parent
    pages = [out / "report.html", *(out / "viewer").rglob("*.js")]
    for page in pages:
        text = page.read_text()
        assert str(root) not in text and str(root.resolve()) not in text, page
        assert "../kinds_agents.py" not in text, page
    assert "<th>kinds_agents.py:LastFrame</th>" in (out / "report.html").read_text()
    agents = read_overview(out / "viewer")["agents"]
    shown = agents if isinstance(agents, list) else list(agents)
    assert "kinds_agents.py:Peeker" in json.dumps(shown), shown
