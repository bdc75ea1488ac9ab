"""The body of a Ray worker: an actor that imports handlers once each, runs tasks and returns
each result as strict JSON text with the output the task printed.

Ray is not imported here until an actor asks for its node: the class is made remote by
``ray.RayExecutor``.
"""

from __future__ import annotations

import time
from typing import Any

from recallbench.executor.handlers import Handlers, flush_stdio
from recallbench.executor.results import cap_result, encode_result
from recallbench.executor.spool import open_spool, spool_stdio, take_output


class TaskActor:
    """The actor body: imports handlers once each, runs tasks, returns their captured output."""

    def __init__(self, handler_ref: str) -> None:
        # Keep simulator chatter out of Ray's console stream: it goes back with each result
        # and the driver appends it to the run folder's log. Unlinked already: an actor
        # stopped by ray.kill runs no cleanup, and leaves nothing in its node's temp folder.
        self.spool_fd = open_spool()
        spool_stdio(self.spool_fd)
        self.handlers = Handlers()
        self.handlers.get(handler_ref)

    def node(self) -> str:
        import ray

        return ray.get_runtime_context().get_node_id()

    def load(self, handler_ref: str) -> str:
        """Ready for another executor's handler (a kept actor): imports it, returns the node."""
        self.handlers.get(handler_ref)
        return self.node()

    def run(self, handler_ref: str, key: str, payload: Any) -> tuple[str, str | None, float, bytes]:
        """The handler's result as strict JSON text (``results.encode_result``), never the
        object itself: the driver decodes JSON only."""
        start = time.perf_counter()
        value, error = self.handlers.call(handler_ref, payload)
        text, unencodable = encode_result(value) if error is None else ("null", None)
        if unencodable is None:
            text, unencodable = cap_result(value, text)
        wall = time.perf_counter() - start
        flush_stdio()
        return text, unencodable or error, float(wall), take_output(self.spool_fd, key)
