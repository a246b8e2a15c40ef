"""Kept transcripts as the store and the database tests write them."""

from __future__ import annotations

from webclient.domain.kept.database import Put
from webclient.domain.kept.entries import KeptEntry, KeptSummary

DAY = 86400.0


def put(key: str, updated: float, *texts: str) -> Put:
    """Transcript `key`, last updated at `updated`, of messages with these texts (user and agent in turn)."""
    summary = KeptSummary(key, "demo", "Demo", f"agent-{key}", f"title {key}", updated, updated)
    entries = {
        f"msg-{i}": (i, KeptEntry(kind="message", role="user" if i % 2 == 0 else "agent", text=text))
        for i, text in enumerate(texts)
    }
    return Put(summary, entries)
