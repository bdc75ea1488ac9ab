"""The policy wire format (openpi's msgpack-numpy) and a real `recallbench serve-policy`'s
answers to openpi_client, to bad requests, to a batch one request breaks, to a reply too big to
send; and OpenpiPolicy against a server that answers garbage."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import msgpack
import numpy as np
import pytest
from websockets.sync.client import connect

from recallbench.agents.remote import PolicyServerLost, RemotePolicy, RemotePolicyError
from recallbench.agents.remote.wire import pack, unpack
from support.hostile_server import threaded_server
from support.policy_server import free_port, start_server, stop

openpi_client = pytest.importorskip("openpi_client")
pytestmark = pytest.mark.openpi


def test_arrays_round_trip_with_openpi_clients_packer_both_ways():
    from openpi_client import msgpack_numpy

    image = np.random.default_rng(0).integers(0, 256, (224, 224, 3), dtype=np.uint8)
    state = np.linspace(-1, 1, 7, dtype=np.float32)
    theirs = unpack(msgpack_numpy.packb({"img": image, "q": state, "n": np.int64(3)}))
    assert theirs["img"].dtype == np.uint8 and np.array_equal(theirs["img"], image)
    assert np.array_equal(theirs["q"], state) and theirs["n"] == 3
    ours = msgpack_numpy.unpackb(pack({"actions": np.ones((5, 4))}))
    assert ours["actions"].shape == (5, 4) and ours["actions"].dtype == np.float64
    with pytest.raises(TypeError):
        pack({"o": np.array([object()], dtype=object)})
    with pytest.raises(ValueError, match="binary"):
        unpack("{}")


def _raw_array(dtype: str, shape: list, data: bytes) -> bytes:
    return msgpack.packb({"x": {b"__ndarray__": True, b"data": data, b"dtype": dtype,
                                b"shape": shape}}, use_bin_type=True)


@pytest.mark.parametrize("message,expected", [
    (_raw_array("|O", [1], b"\0" * 8), "not allowed"),  # pointers from the wire
    (_raw_array("<f8", [4], b"\0" * 8), "does not match its bytes"),
    (_raw_array("<f8", [1] * 7, b"\0" * 8), "at most 6"),
    (_raw_array("<f8", [-1], b""), "sizes >= 0"),
], ids=["object-dtype", "short-bytes", "seven-dims", "negative-size"])
def test_the_decoder_refuses_what_openpis_own_would_trust(message, expected):
    with pytest.raises(ValueError, match=expected):
        unpack(message)


@pytest.fixture(scope="module")
def faulty_server():
    port = free_port()
    server = start_server("Faulty", port)
    yield f"ws://127.0.0.1:{port}"
    stop(server)


def test_openpi_clients_own_client_calls_serve_policy(faulty_server):
    from openpi_client.websocket_client_policy import WebsocketClientPolicy

    client = WebsocketClientPolicy(faulty_server)
    meta = client.get_server_metadata()
    assert meta["server"] == "recallbench" and meta["policy"].endswith(":Faulty")
    request = {"prompt": "Show me where the bowl is placed.", "recallbench/step": 0,
               "recallbench/action_dim": 3, "img": np.zeros((8, 8, 3), np.uint8)}
    assert client.infer(request)["actions"].shape == (1, 3)
    for bad, expected in (
        ({**request, "recallbench/action_dim": 5000}, "action_dim must be an integer in 1..1024"),
        ({**request, "recallbench/step": -1}, "recallbench/step must be"),
        ({**request, "recallbench/action_dim": 1.5}, "must be an integer"),
        ({**request, "prompt": "Show me where the raise_reset is placed."},
         "policy.reset raised RuntimeError: model weights missing"),
    ):
        with pytest.raises(RuntimeError, match=expected):
            client.infer(bad)
    assert client.infer(request)["actions"].shape == (1, 3)  # the connection stayed
    # openpi's own clients send no recallbench/* keys: the suite's width (docs/world.md)
    plain = {k: v for k, v in request.items() if not k.startswith("recallbench/")}
    assert client.infer(plain)["actions"].shape == (1, 12)


def test_typed_messages_remain_and_bad_ones_get_error_replies(faulty_server):
    with connect(faulty_server) as ws:
        assert unpack(ws.recv(timeout=10))["protocol"] == 2  # the server speaks first
        for message, expected in (
            (pack({"type": "act", "step": 0, "action_dim": 2, "observations": {}}),
             "act before reset"),
            (pack({"type": "launch"}), "unknown message type 'launch'"),
        ):
            ws.send(message)
            reply = unpack(ws.recv(timeout=10))
            assert reply["type"] == "error" and expected in reply["message"]
        ws.send("not msgpack")
        assert "bad message" in ws.recv(timeout=10)
        ws.send(_raw_array("|O", [1], b"\0" * 8))
        assert "not allowed on the wire" in ws.recv(timeout=10)


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


def test_a_batch_one_request_breaks_is_retried_so_only_it_fails():
    from openpi_client.websocket_client_policy import WebsocketClientPolicy

    port = free_port()
    server = start_server("PoisonBatch", port, "--batch-wait-ms", "500")
    try:
        good, bad = WebsocketClientPolicy("127.0.0.1", port), WebsocketClientPolicy("127.0.0.1",
                                                                                     port)
        out: dict[str, object] = {}

        def ask(name: str, client: object, prompt: str, step: int = 1) -> None:
            try:
                out[name] = client.infer({"prompt": prompt,  # type: ignore[attr-defined]
                                          "recallbench/step": step, "recallbench/action_dim": 2})
            except RuntimeError as exc:
                out[name] = exc

        # Both rollouts start first, so the server waits for both before a forward call.
        ask("good", good, "fine", 0)
        ask("bad", bad, "poison", 0)

        threads = [threading.Thread(target=ask, args=("good", good, "fine")),
                   threading.Thread(target=ask, args=("bad", bad, "poison"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        with connect(f"ws://127.0.0.1:{port}") as ws:
            ws.recv(timeout=10)
            ws.send(pack({"type": "stats"}))
            stats = unpack(ws.recv(timeout=10))
    finally:
        stop(server)
    assert stats["max_batch"] == 2  # they did meet in one batch
    assert np.array_equal(out["good"]["actions"], np.ones((1, 2)))  # type: ignore[index]
    assert isinstance(out["bad"], RuntimeError) and "poisoned batch" in str(out["bad"])


def test_a_reply_too_big_to_send_is_an_error_text_not_a_dropped_connection():
    from openpi_client.websocket_client_policy import WebsocketClientPolicy

    port = free_port()
    server = start_server("HugeReply", port)
    try:
        client = WebsocketClientPolicy("127.0.0.1", port)
        request = {"prompt": "x", "recallbench/step": 0, "recallbench/action_dim": 2}
        with pytest.raises(RuntimeError, match="over the 67108864 limit"):
            client.infer(request)
        with pytest.raises(RuntimeError, match="over the"):
            client.infer({**request, "recallbench/step": 1})  # still connected
    finally:
        stop(server)


@contextlib.contextmanager
def ws_server(greet: bool, replies: list[bytes]) -> Iterator[str]:
    """A real WebSocket server on loopback that greets like openpi (or stays silent), then
    answers each request with the next canned reply."""
    async def handler(ws):  # type: ignore[no-untyped-def]
        if greet:
            await ws.send(pack({"server": "garbage"}))
        async for _ in ws:
            await ws.send(replies.pop(0))

    # websockets' own default message limit (1 MiB), as the server here had before
    with threaded_server(handler, max_size=2**20) as url:
        yield url.replace("ws://", "openpi://", 1)


@pytest.fixture
def garbage_server() -> Iterator[tuple[str, list[bytes]]]:
    replies: list[bytes] = []
    with ws_server(True, replies) as url:
        yield url, replies


def test_a_server_that_never_sends_metadata_is_one_line_not_a_hang():
    from recallbench.agents.remote.openpi_connection import server_metadata
    from recallbench.agents.remote.openpi_settings import openpi_settings

    with ws_server(False, []) as url, pytest.raises(ValueError, match="no metadata within 1 s"):
        server_metadata(openpi_settings(url, {}), timeout=1)


class _Env:
    action_dim = 2

    def _get_observations(self) -> dict:
        return {"base_pos": np.zeros(3)}


def test_a_server_answering_garbage_fails_the_test_with_the_reason(garbage_server):
    from recallbench.agents.remote.openpi import OpenpiPolicy
    from recallbench.agents.remote.openpi_connection import ProtocolError
    from recallbench.agents.remote.openpi_settings import openpi_settings

    url, replies = garbage_server
    replies.extend([b"\xc1garbage", pack({"act": 1}), pack({"actions": np.ones((4, 3))}),
                    pack({"actions": np.full((4, 2), np.nan)}),
                    pack({"actions": np.ones((4, 2))})])
    policy = OpenpiPolicy(openpi_settings(url.replace("openpi", "ws"), {"memory": "none"}))
    for expected in ("not openpi msgpack", "no 'actions'", "width 3, env.action_dim is 2",
                     "NaN or inf"):
        policy.reset("Show me where the bowl is placed.", [])
        with pytest.raises(ProtocolError, match=expected):
            policy.get_action(_Env())
        assert policy.server_lost is None
    policy.reset("Show me where the bowl is placed.", [])
    assert [policy.get_action(_Env()).tolist() for _ in range(4)] == [[1.0, 1.0]] * 4
    assert policy.calls == 5  # four actions of one chunk (replan 5), one request
