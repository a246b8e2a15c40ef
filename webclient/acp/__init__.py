"""acp layer."""
