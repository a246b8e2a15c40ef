"""Entry point: ``python -m webclient.replay_agent RECORDING.jsonl [--speed F]``."""

from __future__ import annotations

from .player import main

if __name__ == "__main__":
    raise SystemExit(main())
