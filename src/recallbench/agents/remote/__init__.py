"""Policies served once for many simulators (docs/remote-policy.md).

``server``: ``recallbench serve-policy module:Class --port P`` hosts one policy and batches
concurrent requests; ``client``: ``RemotePolicy``, what ``--policy ws://host:P`` runs in each env
worker; ``wire``: the msgpack message format both speak.
"""

from recallbench.agents.remote.client import (
    PolicyServerLost,
    RemoteLLPolicy,
    RemotePolicy,
    RemotePolicyError,
    ServedPolicy,
    check_server,
    is_remote_policy,
)

__all__ = ["PolicyServerLost", "RemoteLLPolicy", "RemotePolicy", "RemotePolicyError",
           "ServedPolicy", "check_server", "is_remote_policy"]
