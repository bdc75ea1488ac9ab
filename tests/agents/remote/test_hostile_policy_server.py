"""A policy server is untrusted (issue 35): real WebSocket servers on 127.0.0.1 send hand-built
msgpack bytes. Metadata that made the runner segfault (an object array of the server's pointers)
or take 16 GB (a 30-byte void scalar), or that is just too big, is one line before any work;
the same kinds of reply fail their test, saying why, never the run and never by a timeout; what
the manifest keeps of metadata is bounded JSON."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import time
from pathlib import Path

import msgpack
import numpy as np
import pytest

from recallbench.agents.remote.openpi import OpenpiPolicy
from recallbench.agents.remote.openpi_connection import (
    MAX_METADATA_BYTES,
    ProtocolError,
    server_metadata,
)
from recallbench.agents.remote.openpi_settings import openpi_settings
from recallbench.agents.remote.wire import MAX_HORIZON, MAX_MESSAGE_BYTES, pack
from support.hostile_server import hostile_server
from support.policy_server import ENV, RECALLBENCH
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test

VOID_BOMB = 1_500_000_000  # openpi's decoder makes a void scalar of this many bytes
# Memory the runner may use at most (its imports included); the void bomb alone is 1.5 GB.
RSS_LIMIT_MB = 1000


def _array(dtype: str, shape: list, data: bytes) -> dict:
    return {"__ndarray__": True, "data": data, "dtype": dtype, "shape": shape}


def _packed(message: object) -> bytes:
    return msgpack.packb(message, use_bin_type=True)


HOSTILE_METADATA = {
    "object-array": _packed({"x": _array("|O", [1], b"\x10" * 8)}),
    "void-scalar": _packed({"__npgeneric__": True, "data": VOID_BOMB, "dtype": "V1"}),
    "void-in-map": _packed({"x": {"__npgeneric__": True, "data": VOID_BOMB, "dtype": "V1"}}),
    "huge-declared-shape": _packed({"x": _array("<f8", [2**31, 2**31], b"\0" * 8)}),
    "ext-type": _packed({"x": msgpack.ExtType(42, b"\0" * 8)}),
    "not-a-map": _packed([1, 2, 3]),
    "over-the-cap": _packed({"text": "x" * (MAX_METADATA_BYTES + 10)}),
}


def _suite(root: Path) -> Path:
    mini_scenario(root / "combo_007_L3_S4_0001", [mini_test("t0", "obj0")], base_xy=(1.0, 0.5))
    return root


def _scenemem(tmp_path: Path, url: str, *extra: str) -> tuple[int, str, float, float]:
    """The real command against ``url``: (exit code, stderr, max RSS in MB, seconds). Its
    address space is capped at 8 GB, so a memory bomb on a broken build fails here rather than
    taking the machine."""
    err = tmp_path / "stderr.txt"
    args = [RECALLBENCH, "scenemem", "--data-dir", str(_suite(tmp_path / "data")), "--policy",
            url, "--out", str(tmp_path / "r.json"), "--env_factory", MINI_FACTORY, *extra]

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))

    start = time.monotonic()
    with open(err, "w") as stderr:
        proc = subprocess.Popen(args, env=ENV, stdout=subprocess.DEVNULL, stderr=stderr,
                                preexec_fn=cap)
    try:
        _, status, usage = os.wait4(proc.pid, 0)  # this command's own maximum RSS
    except BaseException:
        proc.kill()
        raise
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, err.read_text(), usage.ru_maxrss / 1024, time.monotonic() - start


@pytest.mark.parametrize("name", sorted(HOSTILE_METADATA))
def test_hostile_metadata_is_one_line_before_any_work(tmp_path: Path, name: str) -> None:
    with hostile_server(HOSTILE_METADATA[name]) as url:
        code, stderr, rss_mb, _ = _scenemem(tmp_path, url.replace("ws://", "openpi://"))
    lines = stderr.strip().splitlines()
    assert code == 2, stderr[-2000:]  # not a segfault (139), not a MemoryError
    assert len(lines) == 1 and "--policy ws://127.0.0.1:" in lines[0], lines[:5]
    assert rss_mb < RSS_LIMIT_MB
    assert not (tmp_path / "r_run").exists()  # refused before any work


def test_metadata_is_stored_as_bounded_json(tmp_path: Path) -> None:
    nested: object = 1
    for _ in range(12):
        nested = {"n": nested}
    greeting = pack({"long": "y" * 500_000, "wide": {f"k{i}": i for i in range(5000)},
                     "deep": nested, "big": np.zeros(1000), "small": np.arange(3),
                     "nan": float("nan"), "n": np.int32(7), "blob": b"\0" * 1000})
    with hostile_server(greeting) as url:
        stored = server_metadata(openpi_settings(url, {}))
    text = json.dumps(stored, allow_nan=False)  # strict JSON, as the manifest is
    assert len(text) < 100_000
    assert stored["long"].startswith("yyy") and "[cut: 499000 more characters]" in stored["long"]
    assert len(stored["wide"]) == 65 and stored["wide"]["<cut>"] == "4936 more keys"
    assert "nested deeper than 8" in json.dumps(stored["deep"])
    assert stored["big"] == "<array float64 [1000]>" and stored["small"] == [0, 1, 2]
    assert stored["nan"] == "nan" and stored["n"] == 7 and stored["blob"] == "<1000 bytes>"


class _Env:
    action_dim = 2

    def _get_observations(self, force_update: bool = False) -> dict:
        return {"base_pos": np.zeros(3)}


HOSTILE_REPLIES = {
    "void-scalar": (_packed({"actions": {"__npgeneric__": True, "data": VOID_BOMB,
                                         "dtype": "V1"}}), "'V1' is not allowed"),
    "object-array": (_packed({"actions": _array("|O", [1, 2], b"\x10" * 16)}),
                     "'|O' is not allowed"),
    "declared-size": (_packed({"actions": _array("<f4", [2**40, 2], b"\0" * 8)}),
                      "over the 33554432 limit"),
    "bytes-disagree": (_packed({"actions": _array("<f4", [5, 2], b"\0" * 8)}),
                       "does not match its bytes"),
    "long-chunk": (pack({"actions": np.zeros((MAX_HORIZON + 1, 2), np.float32)}),
                   f"horizon <= {MAX_HORIZON}"),
    "ext-type": (_packed({"actions": msgpack.ExtType(1, b"x")}), "extension type 1"),
    "too-deep": (b"\x81\xa7actions" + b"\x91" * 40 + b"\x00", "nested deeper than 16"),
    "error-text": ("Traceback...\nValueError: " + "e" * 5_000_000, "[cut: "),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_REPLIES))
def test_a_hostile_reply_fails_its_test_saying_why(name: str) -> None:
    from recallbench.agents.remote import RemotePolicyError

    reply, expected = HOSTILE_REPLIES[name]
    with hostile_server(pack({"server": "hostile"}), reply) as url:
        policy = OpenpiPolicy(openpi_settings(url, {"memory": "none"}))
        policy.reset("Open the drawer.", [])
        start = time.monotonic()
        with pytest.raises((ProtocolError, RemotePolicyError)) as caught:
            policy.get_action(_Env())
        policy.close()
    assert expected in str(caught.value) and len(str(caught.value)) < 3000
    assert policy.server_lost is None  # the policy's fault: the test fails, it is not re-run
    assert time.monotonic() - start < 5


def test_a_reply_over_max_size_fails_the_test_without_being_read() -> None:
    with hostile_server(pack({"server": "hostile"}), b"\0" * (MAX_MESSAGE_BYTES + 1)) as url:
        policy = OpenpiPolicy(openpi_settings(url, {"memory": "none"}))
        policy.reset("Open the drawer.", [])
        with pytest.raises(ProtocolError, match=f"over the {MAX_MESSAGE_BYTES}-byte limit"):
            policy.get_action(_Env())
    assert policy.server_lost is None


@pytest.mark.slow  # a SceneMem run: a worker spawn and the mini env
def test_a_void_scalar_reply_fails_every_test_at_once_not_by_its_timeout(tmp_path: Path) -> None:
    reply, _ = HOSTILE_REPLIES["void-scalar"]
    with hostile_server(pack({"server": "hostile"}), reply) as url:
        code, stderr, _, seconds = _scenemem(tmp_path, url, "--workers", "1",
                                             "--test-timeout", "120")
    assert code == 1, stderr[-2000:]  # every test failed: a run that did nothing right
    (record,) = [json.loads(line) for line in (tmp_path / "r_run" / "runlog.jsonl").open()]
    assert "protocol error" in record["error"] and "'V1' is not allowed" in record["error"]
    assert seconds < 120


def test_the_typed_client_takes_a_hostile_reply_as_the_policys_fault() -> None:
    """``--ll-policy ws://`` (version 1's typed messages): a reply that breaks the wire's rules
    fails the case (RemotePolicyError), it is not a lost server left for ``--resume`` forever;
    hostile metadata is one line before any work."""
    from recallbench.agents.remote import RemotePolicy, RemotePolicyError, check_server

    hello = pack({"type": "hello", "protocol": 2, "interface": "ll", "policy": "p" * 10**6})
    reply, _ = HOSTILE_REPLIES["void-scalar"]
    with hostile_server(hello, reply) as url:
        client = RemotePolicy(url)
        with pytest.raises(RemotePolicyError, match="'V1' is not allowed"):
            client.reset("Open the drawer.", [])
        assert client.server_lost is None
        with pytest.raises(ValueError, match="hosts a ll policy") as caught:
            check_server(url, "scenemem")
        assert len(str(caught.value)) < 500  # the server's million-character name, cut
    with hostile_server(HOSTILE_METADATA["object-array"]) as url, \
            pytest.raises(ValueError, match="is not allowed on the wire"):
        check_server(url, "ll", "--ll-policy")
