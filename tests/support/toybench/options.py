"""ToyBench's options, the fields of its config: ``recallbench run --toybench-target green
--toybench-limit 4``."""

from __future__ import annotations

from dataclasses import dataclass

from recallbench.benchmarks.options import BENCHMARK_COMMAND, option, options_of

COLOURS = ("red", "green", "blue")


@dataclass(frozen=True)
class ToyConfig:
    target: str = option("the colour whose frame is asked for", default="red", choices=COLOURS,
                         resume="target_colour")
    limit: int | None = option("only the first N cases", type=int, positive=True, resume=True)
    shard: str | None = option("run only shard I of N (join the folders with `recallbench "
                               "merge`)", metavar="I/N", resume=True)
    seed: int = option("run seed", type=int, default=0, commands=(BENCHMARK_COMMAND,),
                       resume=True)


OPTIONS = options_of(ToyConfig)
