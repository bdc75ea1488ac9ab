"""ToyBench's options: ``recallbench run --toybench-target green --toybench-limit 4``."""

from __future__ import annotations

from dataclasses import dataclass

from recallbench.benchmarks.options import BENCHMARK_COMMAND, Option, check_declared

COLOURS = ("red", "green", "blue")

OPTIONS: tuple[Option, ...] = (
    Option("target", "the colour whose frame is asked for", default="red", choices=COLOURS),
    Option("limit", "only the first N cases", type=int, positive=True),
    Option("shard", "run only shard I of N (join the folders with `recallbench merge`)",
           metavar="I/N"),
    Option("seed", "run seed", type=int, default=0, commands=(BENCHMARK_COMMAND,)),
)


@dataclass(frozen=True)
class ToyConfig:
    target: str = "red"
    limit: int | None = None
    shard: str | None = None
    seed: int = 0


check_declared(ToyConfig, OPTIONS)
