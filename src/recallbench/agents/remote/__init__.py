"""Policies served once for many simulators (docs/remote-policy.md).

``server``: ``recallbench serve-policy module:Class --port P`` hosts one policy and batches
concurrent requests (``batcher``, ``request_check``; what a served class offers and gets:
``policy_contract``); ``client``: ``RemotePolicy``, what ``--policy ws://host:P`` runs in each
env worker; ``openpi``: ``OpenpiPolicy``, the client for any openpi server (``openpi_settings``,
``openpi_connection``, ``stored_metadata``); ``wire``: the msgpack message format all speak.
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
