"""The bundled replay agent: plays back a session recorded by the protocol inspector, as an ACP agent.

Run it as a subprocess speaking JSON-RPC (ndjson) over stdio::

    python -m webclient.replay_agent RECORDING.jsonl [--speed 2]

or from webclient with ``--agent replay:RECORDING.jsonl``. The recording is the inspector's download of a
session (``/s/ID/inspector.jsonl``): the replay answers ``initialize`` and ``session/new`` as the recorded
agent did (so it speaks the recording's ACP version), and each prompt gets the next recorded turn's
messages at their recorded pace, prompt suggestions included. It needs no credentials, no network and no
SDK: what it sends is what the recorded agent sent, with the session id of the session it plays in.
"""

from __future__ import annotations

__all__: list[str] = []
