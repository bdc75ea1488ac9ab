"""openpi's own client loops against a real `recallbench serve-policy` process (issue 36), and
recallbench's openpi client against a server that fails as openpi's does.

The loops encode openpi's examples (examples/libero/main.py, examples/droid/main.py at
openpi@15a9616): the request keys they send, LIBERO's ``len(chunk) >= replan_steps`` assert and
``replan_steps`` = 5, DROID's ``shape == (10, 8)`` assert and ``open_loop_horizon`` = 8, and
openpi_client's ``ActionChunkBroker(policy, action_horizon)``, which indexes row ``k`` of each
chunk for k < action_horizon. openpi's ``WebsocketPolicyServer`` on a policy exception sends
``traceback.format_exc()`` as a text frame and closes with 1011."""

from __future__ import annotations

import contextlib
import subprocess
import traceback
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from support.hostile_server import threaded_server
from support.policy_server import ENV, RECALLBENCH, free_port, run_records, start_server, stop
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test

POLICIES = Path(__file__).with_name("chunk_policies.py")
LIBERO_REPLAN_STEPS = 5
DROID_OPEN_LOOP_HORIZON = 8
PROMPTS = ("put the bowl on the plate", "open the top drawer")


@contextlib.contextmanager
def served(policy: str, *extra: str) -> Iterator[str]:
    port = free_port()
    server = start_server(f"{POLICIES}:{policy}", port, *extra)
    try:
        yield f"ws://127.0.0.1:{port}"
    finally:
        stop(server)


def _camera(seed: int) -> np.ndarray:
    """A robosuite-sized camera image, prepared as the examples do (resize with pad to 224)."""
    from openpi_client import image_tools

    img = np.random.default_rng(seed).integers(0, 255, (256, 256, 3), dtype=np.uint8)
    return image_tools.convert_to_uint8(image_tools.resize_with_pad(img, 224, 224))


def libero_element(prompt: str, t: int) -> dict:
    """examples/libero/main.py's request: images rotated 180 degrees, state = eef pos 3 +
    axis-angle 3 + gripper qpos 2."""
    return {"observation/image": np.ascontiguousarray(_camera(t)[::-1, ::-1]),
            "observation/wrist_image": np.ascontiguousarray(_camera(t + 1)[::-1, ::-1]),
            "observation/state": np.concatenate((np.full(3, 0.1), np.zeros(3), [0.04, -0.04])),
            "prompt": prompt}


def droid_request(prompt: str, t: int) -> dict:
    """examples/droid/main.py's request."""
    return {"observation/exterior_image_1_left": _camera(t),
            "observation/wrist_image_left": _camera(t + 1),
            "observation/joint_position": np.linspace(-1, 1, 7),
            "observation/gripper_position": np.array([0.5]),
            "prompt": prompt}


def test_openpis_libero_loop_and_chunk_broker_run_against_serve_policy() -> None:
    from openpi_client.action_chunk_broker import ActionChunkBroker
    from openpi_client.websocket_client_policy import WebsocketClientPolicy

    with served("LiberoChunks", "--action-horizon", "10") as url:
        client = WebsocketClientPolicy(url)
        meta = client.get_server_metadata()
        assert meta["action_horizon"] == 10 and meta["action_dim"] == 7
        # the LIBERO example: one connection, episodes told apart by their prompt only
        for episode, prompt in enumerate(PROMPTS):
            action_plan: deque = deque()
            for t in range(12):
                if not action_plan:
                    chunk = client.infer(libero_element(prompt, t))["actions"]
                    assert len(chunk) >= LIBERO_REPLAN_STEPS, chunk.shape
                    action_plan.extend(chunk[:LIBERO_REPLAN_STEPS])
                action = action_plan.popleft()
                assert action.shape == (7,) and np.all(np.isfinite(action))
                # a new prompt started a rollout; its requests counted from 0
                assert action[:3].tolist() == [episode + 1, t // 5, t % 5]
        broker = ActionChunkBroker(WebsocketClientPolicy(url), meta["action_horizon"])
        for t in range(25):
            action = broker.infer(libero_element(PROMPTS[0], t))["actions"]
            assert action.shape == (7,) and action[:3].tolist() == [1, t // 10, t % 10]


def test_openpis_droid_loop_and_chunk_broker_run_against_serve_policy() -> None:
    from openpi_client.action_chunk_broker import ActionChunkBroker
    from openpi_client.websocket_client_policy import WebsocketClientPolicy

    with served("DroidChunks") as url:  # the policy's declared horizon: no option needed
        client = WebsocketClientPolicy(url)
        assert client.get_server_metadata()["action_horizon"] == 10
        completed, chunk = 0, None
        for t in range(20):
            if completed == 0 or completed >= DROID_OPEN_LOOP_HORIZON:
                completed = 0
                chunk = client.infer(droid_request(PROMPTS[1], t))["actions"]
            assert chunk is not None and chunk.shape == (10, 8)
            action = chunk[completed]
            completed += 1
            assert np.all(np.isfinite(action)) and action[1:3].tolist() == [t // 8, t % 8]
        broker = ActionChunkBroker(WebsocketClientPolicy(url), 10)
        for t in range(15):
            action = broker.infer(droid_request(PROMPTS[1], t))["actions"]
            assert action.shape == (8,) and action[1:3].tolist() == [t // 10, t % 10]
        with pytest.raises(RuntimeError, match=r"observation/joint_position: shape \(5,\)"):
            client.infer({**droid_request(PROMPTS[1], 0),
                          "observation/joint_position": np.zeros(5)})  # a 5-joint arm


def test_a_one_action_policy_cannot_promise_chunks() -> None:
    proc = subprocess.run(
        [RECALLBENCH, "serve-policy", f"{POLICIES.parent.parent.parent}/support/"
         "scenemem_fixtures/policies.py:Faulty", "--port", "0", "--action-horizon", "10"],
        env=ENV, capture_output=True, text=True, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "--action-horizon" in lines[0] and "declares no action_horizon" in lines[0]


class _Env:
    action_dim = 4

    def _get_observations(self, force_update: bool = False) -> dict:
        return {"base_pos": np.zeros(3)}


@contextlib.contextmanager
def openpi_like_server(fail_on: set[int]) -> Iterator[tuple[str, list[int]]]:
    """A real server behaving as openpi's WebsocketPolicyServer: metadata on connect, then per
    request ``{"actions": (10, action_dim)}``; the requests numbered in ``fail_on`` (counted
    over all connections from 0) raise, and the traceback is sent as text before a 1011 close.
    Yields the URL and the list of connections' request counts."""
    import websockets.frames
    from openpi_client import msgpack_numpy

    requests: list[int] = [0]
    connections: list[int] = []

    def infer(obs: dict) -> dict:
        n, requests[0] = requests[0], requests[0] + 1
        if n in fail_on:
            raise ValueError(f"checkpoint normalisation failed on request {n}")
        return {"actions": np.zeros((10, int(obs.get("recallbench/action_dim", 4))))}

    async def handler(ws):  # type: ignore[no-untyped-def]
        packer = msgpack_numpy.Packer()
        connections.append(0)
        await ws.send(packer.pack({"server": "openpi-like"}))
        while True:
            try:
                obs = msgpack_numpy.unpackb(await ws.recv())
                connections[-1] += 1
                await ws.send(packer.pack(infer(obs)))
            except websockets.ConnectionClosed:
                break
            except Exception:
                await ws.send(traceback.format_exc())
                await ws.close(code=websockets.frames.CloseCode.INTERNAL_ERROR,
                               reason="Internal server error. Traceback included in previous "
                                      "frame.")
                break  # openpi re-raises: the handler ends, the server goes on

    with threaded_server(handler) as url:
        yield url, connections


def test_an_error_text_fails_that_rollout_and_the_next_one_connects_again() -> None:
    from recallbench.agents.remote import RemotePolicyError
    from recallbench.agents.remote.openpi import OpenpiPolicy
    from recallbench.agents.remote.openpi_settings import openpi_settings

    with openpi_like_server({0}) as (url, connections):
        policy = OpenpiPolicy(openpi_settings(url, {"memory": "none"}))
        policy.reset("open the drawer", [])
        with pytest.raises(RemotePolicyError) as caught:
            policy.get_action(_Env())
        assert policy.server_lost is None  # the policy's fault, not a lost server
        policy.reset("open the drawer", [])
        assert policy.get_action(_Env()).shape == (4,)  # a new connection, not a dead one
        policy.close()
    assert connections == [1, 1]
    text = str(caught.value)
    assert "ValueError: checkpoint normalisation failed on request 0" in text
    assert "in infer" in text and len(text) < 2100  # the raising frame, bounded


@pytest.mark.slow  # a SceneMem run: a worker spawn and the mini env
def test_a_server_side_exception_fails_one_test_and_the_next_test_runs(tmp_path: Path) -> None:
    tests = [mini_test(f"t{i}", f"obj{i}") for i in range(2)]
    suite = mini_scenario(tmp_path / "data" / "combo_007_L3_S4_0001", tests).parent
    with openpi_like_server({0}) as (url, connections):
        proc = subprocess.run(
            [RECALLBENCH, "scenemem", "--data-dir", str(suite), "--policy",
             url.replace("ws://", "openpi://"), "--policy-arg", "obs_map=raw", "--policy-arg",
             "memory=none", "--workers", "1", "--max_steps", "10", "--out",
             str(tmp_path / "r.json"), "--env_factory", MINI_FACTORY],
            env=ENV, capture_output=True, text=True, timeout=240)
    assert "not recorded" not in proc.stderr and "--resume" not in proc.stderr, proc.stderr
    records = run_records(tmp_path / "r_run")
    assert len(records) == 2, proc.stderr  # both recorded: none left for --resume
    failed = [r for r in records.values() if r.get("error")]
    assert len(failed) == 1, records
    assert "ValueError: checkpoint normalisation failed on request 0" in failed[0]["error"]
    assert [r["steps"] for r in records.values() if not r.get("error")] == [10]
    # the precheck reads the metadata only; the failed test's connection took one request,
    # then a new one served the next test (replan_steps 5: 2 requests for 10 steps)
    assert connections == [0, 1, 2]
    assert proc.returncode == 0, proc.stderr
