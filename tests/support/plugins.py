"""Install a plugin the way pip would leave it, for subprocess tests: its modules and a
``dist-info`` folder with ``entry_points.txt`` in a site folder that goes on PYTHONPATH."""

from __future__ import annotations

from pathlib import Path


def install(site: Path, name: str, entry_points: str, modules: dict[str, Path]) -> dict[str, str]:
    """``modules``: import name (``toybench``, ``toy_transport.py``) -> the file or package it
    links to. Returns the environment that puts ``site`` on PYTHONPATH."""
    site.mkdir(parents=True, exist_ok=True)
    for link, target in modules.items():
        (site / link).symlink_to(target)
    dist = site / f"{name}-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0\n")
    (dist / "entry_points.txt").write_text(entry_points)
    return {"PYTHONPATH": str(site)}


TOYBENCH = Path(__file__).resolve().parent / "toybench"


def install_toybench(site: Path) -> dict[str, str]:
    """ToyBench (``support/toybench``) with its ``toy-oracle`` agent, registered."""
    return install(site, "toybench",
                   "[recallbench.benchmarks]\ntoybench = toybench.seam:BENCHMARK\n\n"
                   "[recallbench.agents]\ntoy-oracle = toybench.agents:ToyOracle\n",
                   {"toybench": TOYBENCH})
