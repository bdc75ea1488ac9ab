"""A served LL navigation policy in FindingDory's LL phase: the in-process outcomes, and a server
that dies mid-drive leaves its cases for --resume, which finishes them with equal outcomes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recallbench.run.runlog import completed
from support.policy_server import free_port, start_server, stop

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
STRAIGHT = f"{Path(__file__).resolve().parents[1] / 'support' / 'll_policies.py'}:StraightLL"


@pytest.fixture(scope="module")
def suite(findingdory_generated_suite) -> Path:
    return findingdory_generated_suite  # tests/conftest.py: one tiny generated day


def findingdory(suite: Path, out: Path, ll_policy: str, *extra: str) -> int:
    from recallbench.cli import main

    return main(["findingdory", "--data", str(suite), "--agent", "oracle", "--ll",
                 "--ll-policy", ll_policy, "--out", str(out), *extra])


def outcomes(run: Path) -> dict[str, dict]:
    return {key: rec.get("ll") for key, rec in completed(run / "runlog.jsonl").items()}


def test_served_ll_policy_matches_in_process_and_resumes_after_its_server_dies(
    suite, tmp_path, capsys
):
    assert findingdory(suite, tmp_path / "local", STRAIGHT) == 0
    local = outcomes(tmp_path / "local")
    assert all(ll is not None for ll in local.values()) and len(local) >= 2
    total_steps = sum(ll["steps"] for ll in local.values())

    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    # The server exits on an action in the middle of the phase: a case is mid-drive.
    server = start_server(STRAIGHT, port, env={"RB_DIE_AFTER": str(total_steps // 2)})
    try:
        capsys.readouterr()
        assert findingdory(suite, tmp_path / "served", url) == 1
        err = capsys.readouterr().err
    finally:
        stop(server)
    assert f"policy server {url} lost" in err and "--resume" in err
    cut = outcomes(tmp_path / "served")
    done = {k: ll for k, ll in cut.items() if ll is not None}
    assert 0 < len(done) < len(local)  # the cases driven before it died are kept
    assert done == {k: local[k] for k in done}

    server = start_server(STRAIGHT, port)  # the server returns
    try:
        assert findingdory(suite, tmp_path / "served", url, "--resume") == 0
    finally:
        stop(server)
    assert outcomes(tmp_path / "served") == local
    local_summary = json.loads((tmp_path / "local" / "summary.json").read_text())
    served_summary = json.loads((tmp_path / "served" / "summary.json").read_text())
    assert served_summary["overall"] == local_summary["overall"]


def test_ll_policy_flag_refuses_a_scenemem_server(suite, tmp_path, capsys):
    port = free_port()
    server = start_server("ObservationSeeker", port)
    try:
        assert findingdory(suite, tmp_path / "r", f"ws://127.0.0.1:{port}") == 2
    finally:
        stop(server)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "hosts a scenemem policy" in err[0] and "--ll-policy" in err[0]
