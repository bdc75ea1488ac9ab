"""A real WebSocket policy server on 127.0.0.1 that holds each request to the contract of a real
openpi policy config (read from openpi @15a9616: ``src/openpi/policies/libero_policy.py`` and
``droid_policy.py``, ``examples/libero/main.py`` and ``examples/droid/main.py``, the action
horizons of ``pi05_libero`` / ``pi05_droid`` in ``src/openpi/training/config.py``), packed with
openpi-client's own msgpack_numpy. A request that breaks the contract gets openpi's answer to a
policy exception: the traceback's text, then close 1011. Replies carry known values per column,
so a test can find them in the env's applied actions."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from support.hostile_server import threaded_server


@dataclass
class Contract:
    name: str
    images: tuple[str, ...]  # uint8 (224, 224, 3) each
    vectors: dict[str, int]  # float, (n,)
    horizon: int
    width: int
    requests: list[dict[str, Any]] = field(default_factory=list)  # step-0 images, steps
    violations: list[str] = field(default_factory=list)

    def check(self, request: dict[str, Any]) -> None:
        """Raises AssertionError naming what openpi's transforms would choke on."""
        for key in self.images:
            image = request[key]  # KeyError: the transform's own failure
            assert image.dtype == np.uint8 and image.shape == (224, 224, 3), \
                f"{key}: {image.dtype} {image.shape}"
        for key, n in self.vectors.items():
            vector = np.asarray(request[key])
            assert vector.dtype.kind == "f" and vector.shape == (n,), \
                f"{key}: {vector.dtype} {vector.shape}, the checkpoint's stats are ({n},)"
        assert isinstance(request["prompt"], str) and request["prompt"], "prompt"

    def reply(self, count: int) -> np.ndarray:
        """(horizon, width): column j holds (j + 1) / 10 with alternating sign, the last
        column (the gripper) alternates per request between close and open."""
        row = np.array([(j + 1) / 10 * (-1) ** j for j in range(self.width)])
        row[-1] = GRIPPER[self.name][count % 2]
        return np.tile(row, (self.horizon, 1)).astype(np.float32)


# the gripper column per request: LIBERO sends robosuite's -1 open / +1 close; DROID a position,
# 0 open .. 1 closed, which its client binarises at 0.5
GRIPPER = {"libero": (1.0, -1.0), "droid": (0.9, 0.2)}
LIBERO = ("libero", ("observation/image", "observation/wrist_image"), {"observation/state": 8},
          10, 7)
DROID = ("droid", ("observation/exterior_image_1_left", "observation/wrist_image_left"),
         {"observation/joint_position": 7, "observation/gripper_position": 1}, 15, 8)


@contextlib.contextmanager
def contract_server(spec: tuple[Any, ...]) -> Iterator[tuple[str, Contract]]:
    """Yields ``(ws://127.0.0.1:PORT, contract)`` for LIBERO or DROID."""
    from openpi_client import msgpack_numpy

    contract = Contract(*spec)

    async def handler(ws):  # type: ignore[no-untyped-def]
        await ws.send(msgpack_numpy.packb({"config": f"pi05_{contract.name}"}))
        with contextlib.suppress(Exception):  # the client hanging up is its right
            async for message in ws:
                request = msgpack_numpy.unpackb(message)
                try:
                    contract.check(request)
                except (AssertionError, KeyError) as exc:
                    contract.violations.append(f"{type(exc).__name__}: {exc}")
                    await ws.send(f"Traceback ...\n{type(exc).__name__}: {exc}")
                    await ws.close(1011, "Internal server error")
                    return
                contract.requests.append({
                    "step": int(request.get("recallbench/step", -1)),
                    **({k: request[k] for k in contract.images}
                       if request.get("recallbench/step") == 0 else {}),
                    **{k: np.asarray(request[k]) for k in contract.vectors}})
                await ws.send(msgpack_numpy.packb(
                    {"actions": contract.reply(len(contract.requests) - 1)}))

    with threaded_server(handler) as url:
        yield url, contract
