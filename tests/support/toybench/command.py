"""``recallbench toybench`` (``Benchmark.command``): recallbench's card command for a benchmark
(``cli.card``), so its flags are ToyBench's declared options; nothing in recallbench is edited."""

from recallbench.cli.card import card_command

register = card_command("toybench", "run one agent on a ToyBench suite (which frame shows a "
                                    "colour)")
