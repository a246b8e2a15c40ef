"""ACP v1: the SDK's JSON-RPC connection, the v1 wire shapes, and their translation into our models."""
