"""Concurrent requests to a batched policy gathered into one forward (``Batcher``).

The requests that arrive while the policy computes (or within ``batch_wait`` of the first) go to
its ``get_action_batch`` together, at most ``max_batch`` at a time; a request waits at most
``batch_wait`` for the others once every rollout in progress has asked. Forwards run one at a
time, off the event loop. A batch that raises is retried request by request, so only the request
that breaks it fails.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from recallbench.agents.remote.policy_contract import BATCH_METHOD, ActionRequest


class Batcher:
    """Batches ``action`` calls for ``policy``. ``in_rollout`` is the server's live set of
    sessions in a rollout (how many requests a batch may wait for); ``count`` is told each
    forward's size."""

    def __init__(self, policy: Any, max_batch: int, batch_wait: float, in_rollout: set[int],
                 count: Callable[[int], None]) -> None:
        self.policy = policy
        self.max_batch = max_batch
        self.batch_wait = batch_wait
        self._in_rollout = in_rollout
        self._count = count
        self._pending: list[tuple[ActionRequest, asyncio.Future]] = []
        self._wake: asyncio.Event | None = None
        self._forward = ThreadPoolExecutor(1, thread_name_prefix="forward")  # one at a time

    async def action(self, request: ActionRequest) -> Any:
        """The policy's action for ``request``, computed in a batch with its neighbours."""
        future = asyncio.get_running_loop().create_future()
        self._pending.append((request, future))
        if self._wake is None:
            self._wake = asyncio.Event()
            asyncio.get_running_loop().create_task(self._gather())
        self._wake.set()
        return await future

    def _wanted(self) -> int:
        return max(1, min(self.max_batch, len(self._in_rollout)))

    async def _gather(self) -> None:
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            deadline = loop.time() + self.batch_wait
            while len(self._pending) < self._wanted() and loop.time() < deadline:
                self._wake.clear()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), deadline - loop.time())
            batch = self._pending[: self.max_batch]
            del self._pending[: len(batch)]
            if not self._pending:
                self._wake.clear()
            if batch:
                await self._run_batch(batch, loop)

    async def _run_batch(self, batch: list, loop: asyncio.AbstractEventLoop) -> None:
        self._count(len(batch))
        requests = [request for request, _ in batch]
        try:
            actions = await loop.run_in_executor(self._forward, self._call_batch, requests)
        except Exception as exc:
            if len(batch) == 1:
                batch[0][1].set_exception(exc)
                return
            # Retried request by request, so only the request that breaks it fails.
            for request, future in batch:
                try:
                    self._count(1)
                    (action,) = await loop.run_in_executor(self._forward, self._call_batch,
                                                           [request])
                    future.set_result(action)
                except Exception as alone:
                    future.set_exception(alone)
            return
        for (_, future), action in zip(batch, actions, strict=True):
            future.set_result(action)

    def _call_batch(self, requests: list[ActionRequest]) -> Sequence[Any]:
        actions = getattr(self.policy, BATCH_METHOD)(requests)
        if len(actions) != len(requests):
            raise ValueError(f"{BATCH_METHOD} returned {len(actions)} actions for "
                             f"{len(requests)} requests")
        return actions
