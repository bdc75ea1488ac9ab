"""``recallbench serve-policy module:Class --port P``: one policy served to many env workers
with openpi's WebSocket protocol (any ``openpi_client.WebsocketClientPolicy`` can call it).

Evaluate against it with ``recallbench scenemem --policy ws://HOST:P`` (or ``openpi://``). The
protocol, the checks on each request and the batched method are in docs/remote-policy.md.
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "serve-policy",
        help="host a SceneMem (or LL) policy with openpi's WebSocket protocol for --policy "
             "ws://HOST:PORT or openpi://HOST:PORT",
        description=(
            "Load module:Class once and serve it to every env worker that connects, with "
            "openpi's protocol (metadata on connect, observation dict in, {'actions'} out); "
            "concurrent requests go to its get_action_batch(requests) in one call when it has "
            "one. docs/remote-policy.md"
        ),
    )
    p.add_argument("policy", help="module:Class or path/to/file.py:Class: a SceneMem policy, or "
                   "an LL navigation policy (reset(env), act(pose, goal)) for findingdory "
                   "--ll-policy ws://HOST:PORT")
    p.add_argument("--port", type=int, required=True, help="TCP port (0: any free port)")
    p.add_argument("--host", default="127.0.0.1", help="interface to listen on (default "
                   "127.0.0.1; 0.0.0.0 for other machines)")
    p.add_argument("--max-batch", type=int, default=64, help="requests per forward call at most")
    p.add_argument("--batch-wait-ms", type=float, default=5.0,
                   help="how long a request waits for others to join its batch (default 5)")
    p.add_argument("--action-horizon", type=int, default=None, metavar="N",
                   help="actions in every reply, advertised as the metadata's action_horizon "
                   "(openpi_client's ActionChunkBroker(N)); the policy must declare "
                   "action_horizon >= N and return chunks (default: its action_horizon, else "
                   "the rows it returns)")
    p.add_argument("--policy-path", action="append", default=[], metavar="DIR",
                   help="folder to import the policy from (repeatable; the current folder is "
                   "always searched)")
    p.set_defaults(func=_handle)


def _handle(args: argparse.Namespace) -> int:
    import asyncio

    from recallbench.agents.remote.policy_contract import NoChunks, served_shape
    from recallbench.agents.remote.server import PolicyServer, serve
    from recallbench.agents.remote.wire import MAX_HORIZON
    from recallbench.cli.checks import check_positive
    from recallbench.errors import UsageError

    check_positive("--max-batch", args.max_batch)
    check_positive("--batch-wait-ms", args.batch_wait_ms, allow_zero=True)
    if args.action_horizon is not None and not 1 <= args.action_horizon <= MAX_HORIZON:
        raise UsageError("--action-horizon", f"must be 1..{MAX_HORIZON}, got "
                         f"{args.action_horizon}")
    if not 0 <= args.port < 65536:
        raise UsageError("--port", f"must be 0..65535, got {args.port}")
    try:
        policy_class = _load_class(args.policy, args.policy_path)
    except (ValueError, ImportError) as exc:
        message = str(exc).removeprefix("--policy: ").replace("--policy", "policy", 1)
        raise UsageError("policy", message) from None
    try:
        served_shape(policy_class, args.action_horizon)
    except NoChunks as exc:
        raise UsageError("--action-horizon", str(exc)) from None
    except ValueError as exc:  # a declared action_horizon or action_dim out of range
        raise UsageError("policy", str(exc)) from None
    try:
        server = PolicyServer(policy_class, args.policy, max_batch=args.max_batch,
                              batch_wait=args.batch_wait_ms / 1000,
                              action_horizon=args.action_horizon)
    except ValueError as exc:  # neither a SceneMem nor an LL policy
        raise UsageError("policy", str(exc)) from None
    except Exception as exc:
        raise UsageError("policy", f"constructor raised {type(exc).__name__}: {exc}") from None

    def ready(url: str) -> None:
        mode = "batched" if server.batched else "one instance per env worker"
        rows = server.action_horizon or "the policy's"
        print(f"serving {args.policy} on {url} ({mode}; {rows} actions per reply)", flush=True)

    try:
        asyncio.run(serve(server, args.host, args.port, ready))
    except OSError as exc:  # the port is taken, the host is not ours
        raise UsageError("--port", f"cannot listen on {args.host}:{args.port}: "
                         f"{exc.strerror or exc}") from None
    except KeyboardInterrupt:
        return 0
    return 0


def _load_class(ref: str, paths: list[str]) -> type:
    """A SceneMem policy class as ``--policy`` loads it, else an LL navigation policy (a
    registry name such as ``stop``, or module:Class with reset(env) and act(pose, goal))."""
    from recallbench.agents.registry import resolve
    from recallbench.benchmarks.scenemem.policy import load_policy_class

    try:
        return load_policy_class(ref, paths)
    except ValueError as scenemem_error:
        try:
            return resolve(ref, "navigation")
        except (ValueError, ImportError):
            raise scenemem_error from None
