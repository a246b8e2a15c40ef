"""The bundled demo agent: a real, offline, deterministic ACP agent (v1, and the v2 draft on request).

Run it as a subprocess speaking JSON-RPC (ndjson) over stdio::

    python -m webclient.demo_agent

It answers from the session's working directory (list, show and explain files, count slowly so cancel can
be tried) and is the reference Agent for the prompt-suggestions RFD: it sends ``prompt_suggestions_update``
only to clients that advertise ``clientCapabilities.session.promptSuggestions`` (v2:
``capabilities.session.promptSuggestions``), and its ``/suggest*`` commands send exactly what a client
test asks for. The ``initialize`` it receives picks the version (``wire.py``).
"""

from __future__ import annotations

from webclient import sdk

# Before any of the agent's modules imports the SDK: it loads faster this way (webclient/sdk.py).
sdk.load()

__version__ = "0.1.0"

__all__ = ["__version__"]
