"""A real multi-node Ray cluster on one machine, started with Ray's own tooling.

A head and worker nodes, each a separate ``ray start --block`` process in its own process group
(so one node can be killed alone, and teardown touches this cluster only, never another Ray on
the machine), one CPU each (``cpus``), a capped object store, no dashboard, temp files under the
test's tmp path. Tests import it only after ``pytest.importorskip("ray")``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

OBJECT_STORE_BYTES = 80 * 1024 * 1024  # per node: tasks pass small payloads and results
NODE_START_TIMEOUT = 120.0
# Nodes and drivers alike: no token auth (else a token file left in ~/.ray by an earlier local
# Ray turns it on for the head only, and the worker nodes cannot join).
CLIENT_ENV = {"RAY_AUTH_MODE": "disabled"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _descendants(root: int) -> list[int]:
    """Every process below ``root`` (from /proc: pid -> parent pid)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _ray_cli() -> str:
    return str(Path(sys.executable).with_name("ray"))


class RayCluster:
    def __init__(self, tmp: Path, workers: int = 2, env: dict[str, str] | None = None,
                 cpus: int = 1) -> None:
        self.tmp = tmp
        self.cpus = cpus  # per node: an actor holds one
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        # Short: Ray's socket paths under the temp dir must fit in 107 bytes.
        self.temp_dir = Path(f"/tmp/rb{os.getpid()}_{self.port}")
        # A raylet waits this long for its node's agent (Python, slow to start on a busy machine)
        self.env = {**os.environ, **CLIENT_ENV, **(env or {}),  # a test's own env wins
                    "RAY_USAGE_STATS_ENABLED": "0", "RAY_agent_register_timeout_ms": "120000"}
        self.nodes: list[subprocess.Popen] = []
        try:
            # One at a time: on two shared cores, nodes starting together time out.
            for i in range(1 + workers):
                self._start_with_retries(i)
        except BaseException:
            self.stop()
            raise

    def _start(self, head: bool) -> None:
        # Every port free-picked: fixed defaults would collide with another node or Ray here.
        common = [f"--num-cpus={self.cpus}", f"--object-store-memory={OBJECT_STORE_BYTES}",
                  "--block",
                  "--disable-usage-stats", "--node-ip-address=127.0.0.1",
                  "--include-log-monitor=false",  # workers' output reaches workers.log
                  *(f"--{name}={_free_port()}" for name in (
                      "dashboard-agent-listen-port", "dashboard-agent-grpc-port",
                      "metrics-export-port", "runtime-env-agent-port"))]
        if head:
            args = ["--head", f"--port={self.port}", "--include-dashboard=false",
                    f"--dashboard-port={_free_port()}",
                    f"--ray-client-server-port={_free_port()}", f"--temp-dir={self.temp_dir}"]
        else:
            args = [f"--address={self.address}"]
        log = open(self.tmp / f"ray_node_{len(self.nodes)}.log", "a")  # noqa: SIM115
        # Its own process group (one node is killed alone), in our session: with the kernel's
        # autogroup scheduling every session gets an equal CPU share, so nodes in sessions of
        # their own would outrun local workers on a loaded machine (bench/bench_ray.py).
        proc = subprocess.Popen([_ray_cli(), "start", *args, *common], env=self.env,
                                stdout=log, stderr=subprocess.STDOUT, process_group=0)
        self.nodes.append(proc)

    def _start_with_retries(self, index: int, attempts: int = 5) -> None:
        # Ray gives a raylet 30 s to register; on a busy two-core machine it can miss that.
        for attempt in range(attempts):
            if attempt:
                self._kill(self.nodes.pop())
                if index == 0:
                    self.port = _free_port()
                    self.address = f"127.0.0.1:{self.port}"
            self._start(head=index == 0)
            try:
                return self.wait_for_start(index)
            except RuntimeError:
                if attempt == attempts - 1:
                    raise

    def wait_for_start(self, index: int) -> None:
        """Until ``ray start`` says the node runs (it has registered with the head)."""
        log = self.tmp / f"ray_node_{index}.log"
        deadline = time.monotonic() + NODE_START_TIMEOUT
        while time.monotonic() < deadline:
            # failed tries never print it
            if "Ray runtime started" in log.read_text(errors="replace"):
                return
            if self.nodes[index].poll() is not None:
                raise RuntimeError(f"ray node {index} exited: see {log}")
            time.sleep(0.5)
        raise RuntimeError(f"ray node {index} did not start in {NODE_START_TIMEOUT} s: see {log}")

    def kill_node(self, index: int) -> None:
        """SIGKILL one node's processes (raylet, agents and its workers, which Ray puts in
        process groups of their own): a machine that vanished."""
        proc = self.nodes[index]
        for pid in _descendants(proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self._kill(proc)

    @staticmethod
    def _kill(proc: subprocess.Popen) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)

    def stop(self) -> None:
        for proc in reversed(self.nodes):  # workers first, the head last
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in reversed(self.nodes):
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(20)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        subprocess.run(["rm", "-rf", str(self.temp_dir)], check=False)
