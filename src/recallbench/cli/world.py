"""``recallbench world ...``: preview pictures and saved worlds. Imports MuJoCo lazily."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("world", help="built-in MuJoCo home world: preview, build")
    sub = p.add_subparsers(dest="world_command", metavar="WORLD_COMMAND")
    for name, helptext in (
        ("preview", "write a top-down map and camera views as PNGs"),
        ("build", "write model.xml, world.json and state.npy"),
    ):
        q = sub.add_parser(name, help=helptext)
        q.add_argument("--seed", type=int, default=0, help="layout seed (>= 0)")
        q.add_argument("--style", type=int, default=0, help="colour style id (>= 0)")
        q.add_argument("--kind", choices=("home", "kitchen"), default="home")
        q.add_argument("--out", required=True, help="output directory")
        q.set_defaults(func=_preview if name == "preview" else _build)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _check(args: argparse.Namespace) -> int | None:
    from recallbench.errors import UsageError

    for flag, value in (("--seed", args.seed), ("--style", args.style)):
        if value < 0:
            raise UsageError(flag, f"must be >= 0, got {value}")
    from recallbench.cli.outputs import MARKS, check_output_folder

    check_output_folder("--out", args.out, (*MARKS, "map.png", "model.xml", "world.json"))
    return None


def _preview(args: argparse.Namespace) -> int:
    if (bad := _check(args)) is not None:
        return bad
    from recallbench.world.preview import write_preview

    for path in write_preview(args.seed, args.style, args.out, kind=args.kind):
        print(path)
    return 0


def _build(args: argparse.Namespace) -> int:
    if (bad := _check(args)) is not None:
        return bad
    from recallbench.world.env import HomeEnv
    from recallbench.world.io import save_world

    env = HomeEnv(seed=args.seed, style=args.style, kind=args.kind)
    print(save_world(env, args.out))
    env.close()
    return 0
