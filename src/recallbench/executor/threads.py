"""How many BLAS/OpenMP threads a worker process gets: one, as Ray gives an actor holding one
CPU, unless the user said otherwise.

A worker is one of ``workers`` processes sharing the machine's cores; each spawning a BLAS
thread per core oversubscribes them (measured: a local worker ran 1.7x faster at one thread).
Libraries read these variables once, when they load, so they must be in the environment the
process starts with. A thread count can change the order of a parallel float reduction, so the
setting is recorded in the run manifest (``ExecutorSettings.manifest``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# Mesa's software renderer (llvmpipe, what EGL and OSMesa render with on a machine without a
# GPU) starts a thread per core in every process: workers rendering at once then oversubscribe
# the cores. Its pictures are the same bits at any thread count (a generated suite's videos were
# compared), so it is not recorded in the manifest.
RENDER_THREADS = "LP_NUM_THREADS"


def worker_threads(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each variable as the user set it; unset ones as OMP_NUM_THREADS (which OpenBLAS and MKL
    fall back to), and that as 1."""
    env = os.environ if environ is None else environ
    default = env.get("OMP_NUM_THREADS", "1")
    return {name: env.get(name, default) for name in THREAD_VARS}


def render_threads(workers: int, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """llvmpipe's threads for one of ``workers`` processes: the cores shared out between them
    (two workers on two cores render with one thread each: 16% less wall time generating a
    SceneMem suite; a lone worker keeps both), unless the user set it."""
    env = os.environ if environ is None else environ
    share = max(1, (os.cpu_count() or 1) // max(1, workers))
    return {RENDER_THREADS: env.get(RENDER_THREADS, str(share))}


@contextlib.contextmanager
def worker_thread_env(workers: int = 1) -> Iterator[None]:
    """``os.environ`` with ``worker_threads()`` and ``render_threads(workers)`` for the block:
    processes spawned in it inherit the setting; the parent's own libraries, loaded already, are
    not affected."""
    wanted = {**worker_threads(), **render_threads(workers)}
    missing = {k: v for k, v in wanted.items() if k not in os.environ}
    os.environ.update(missing)
    try:
        yield
    finally:
        for name in missing:
            os.environ.pop(name, None)
