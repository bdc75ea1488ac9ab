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


def worker_threads(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each variable as the user set it; unset ones as OMP_NUM_THREADS (which OpenBLAS and MKL
    fall back to), and that as 1."""
    env = os.environ if environ is None else environ
    default = env.get("OMP_NUM_THREADS", "1")
    return {name: env.get(name, default) for name in THREAD_VARS}


@contextlib.contextmanager
def worker_thread_env() -> Iterator[None]:
    """``os.environ`` with ``worker_threads()`` for the block: processes spawned in it inherit
    the setting; the parent's own libraries, loaded already, are not affected."""
    missing = {k: v for k, v in worker_threads().items() if k not in os.environ}
    os.environ.update(missing)
    try:
        yield
    finally:
        for name in missing:
            os.environ.pop(name, None)
