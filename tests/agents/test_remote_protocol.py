"""The remote-policy wire format and a real server's replies to bad or failing requests."""

from __future__ import annotations

import numpy as np
import pytest
from websockets.sync.client import connect

from recallbench.agents.remote import PolicyServerLost, RemotePolicy, RemotePolicyError
from recallbench.agents.remote.wire import pack, unpack
from support.policy_server import free_port, start_server, stop


def test_arrays_round_trip_with_dtype_and_shape():
    image = np.random.default_rng(0).integers(0, 256, (256, 256, 3), dtype=np.uint8)
    state = np.linspace(-1, 1, 7)
    message = unpack(pack({"type": "act", "observations": {"img": image, "q": state,
                                                           "flag": np.array([True])},
                           "step": np.int64(3)}))
    obs = message["observations"]
    assert obs["img"].dtype == np.uint8 and obs["img"].shape == (256, 256, 3)
    assert np.array_equal(obs["img"], image) and np.array_equal(obs["q"], state)
    assert obs["flag"].dtype == bool and message["step"] == 3
    with pytest.raises(TypeError):
        pack({"type": "act", "observations": {"o": np.array([object()], dtype=object)}})
    with pytest.raises(ValueError, match="binary"):
        unpack("{}")


@pytest.fixture(scope="module")
def faulty_server():
    port = free_port()
    server = start_server("Faulty", port)
    yield f"ws://127.0.0.1:{port}"
    stop(server)


def test_bad_requests_get_error_replies_and_the_connection_stays(faulty_server):
    with connect(faulty_server) as ws:
        for message, expected in (
            (pack({"type": "act", "step": 0, "action_dim": 2, "observations": {}}),
             "act before reset"),
            ("not msgpack", "bad message"),
            (pack({"type": "launch"}), "unknown message type 'launch'"),
        ):
            ws.send(message)
            reply = unpack(ws.recv(timeout=10))
            assert reply["type"] == "error" and expected in reply["message"]
        ws.send(pack({"type": "hello", "protocol": 1}))
        assert unpack(ws.recv(timeout=10))["batched"] is False


def test_a_policy_error_is_the_policys_fault_not_a_lost_server(faulty_server):
    client = RemotePolicy(faulty_server)
    with pytest.raises(RemotePolicyError, match="policy.reset raised RuntimeError: model "
                                                "weights missing"):
        client.reset("Show me where the raise_reset is placed.", [])
    assert client.server_lost is None
    client.close()
    gone = RemotePolicy(f"ws://127.0.0.1:{free_port()}")
    with pytest.raises(PolicyServerLost):
        gone.reset("anything", [])
    assert gone.server_lost and "lost" in gone.server_lost
