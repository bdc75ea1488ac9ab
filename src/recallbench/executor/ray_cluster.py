"""Reaching Ray for a ``RayExecutor``: start it on this machine or join the cluster at
``--address``, with the environment workers need (headless GL backend, one BLAS/OpenMP and one
render thread an actor), and a refusal turned into one line naming the flag.

Ray is the optional ``ray`` extra, imported only through ``import_ray``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

from recallbench.errors import UsageError
from recallbench.executor.threads import render_threads, worker_threads

# Environment a worker needs to render as the driver does (headless GL backend).
FORWARDED_ENV = ("MUJOCO_GL", "PYOPENGL_PLATFORM")
# What a driver needs for a cluster started with token authentication (Ray 2.5x's default).
AUTH_HELP = ("set RAY_AUTH_MODE=token and give the cluster's token in ~/.ray/auth_token (or "
             "RAY_AUTH_TOKEN, or a file named by RAY_AUTH_TOKEN_PATH): `ray get-auth-token` "
             "on the head prints it")
_AUTH_SIGNS = ("Unauthenticated", "InvalidAuthToken", "Authentication token")


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ImportError(
            "--executor ray needs Ray: pip install 'recallbench[ray]'"
        ) from None
    return ray


def init_ray(ray: Any, address: str | None) -> None:
    """``ray.init`` at ``address`` ("auto", "host:port"; None starts Ray on this machine);
    a failure is a ``UsageError`` on ``--address``."""
    # and one BLAS/OpenMP thread an actor, as local workers get (Ray sets only OMP's),
    # and one render thread: an actor holds one CPU
    env = {**{k: os.environ[k] for k in FORWARDED_ENV if k in os.environ},
           **worker_threads(), **render_threads(os.cpu_count() or 1)}
    where = f"the Ray cluster at {address}" if address else "a local Ray"
    # Joining a cluster, Ray's core logs the real cause of a refusal on fd 2, many times;
    # a Ray started here spawns its nodes now, and they keep their stderr
    capture = native_stderr() if address else contextlib.nullcontext(lambda: "")
    with capture as said:
        try:
            ray.init(
                address=address,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
                runtime_env={"env_vars": env} if env else None,
            )
        except (ConnectionError, RuntimeError, ValueError, ray.exceptions.RayError) as exc:
            failure: BaseException | None = exc
        else:
            failure = None
        native = said()
    if failure is not None:
        if refused_for_auth(failure, native):
            raise UsageError("--address", f"{where} refused the connection for "
                             f"authentication (token auth is on, Ray's default): "
                             f"{AUTH_HELP}") from None
        raise UsageError("--address", f"cannot start or reach {where}: "
                                      f"{first_line(failure)}") from None
    sys.stderr.write(native)  # a successful start says what it always said


def refused_for_auth(exc: BaseException, native: str) -> bool:
    """Ray 2.60 reports a missing token as "Failed to connect"; the gRPC status naming the
    cause is only in its core's stderr."""
    text = f"{type(exc).__name__}: {exc}\n{native}"
    return type(exc).__name__ == "AuthenticationError" or any(s in text for s in _AUTH_SIGNS)


@contextlib.contextmanager
def native_stderr() -> Iterator[Any]:
    """File descriptor 2 into a temporary file for the block (C++ writes there, past Python's
    sys.stderr); yields a function returning what was written."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield lambda: (sink.seek(0), sink.read().decode("utf-8", "replace"))[1]
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
