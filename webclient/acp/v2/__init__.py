"""ACP v2: our own JSON-RPC peer, the v2 wire shapes, and their translation into the same models as v1."""
