"""Settings read once from the environment and passed down."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DemoSettings"]

log = logging.getLogger(__name__)

STATE_DIR_ENV = "WEBCLIENT_DEMO_STATE_DIR"
CHUNK_DELAY_ENV = "WEBCLIENT_DEMO_CHUNK_DELAY_MS"
PREDICTION_DELAY_ENV = "WEBCLIENT_DEMO_PREDICTION_DELAY_MS"
SLOW_STEP_ENV = "WEBCLIENT_DEMO_SLOW_STEP_MS"
DEFAULT_CHUNK_DELAY_MS = 15.0
# Real agents send their prediction a few tens of milliseconds after the prompt response (claude-agent-acp:
# ~60 ms); the demo does the same so clients meet the realistic ordering.
DEFAULT_PREDICTION_DELAY_MS = 50.0
# One number per step for "slow" / "count to N": slow enough to press cancel, independent of the chunk delay
# so a test that turns streaming delays off can still cancel a running turn.
DEFAULT_SLOW_STEP_MS = 200.0


@dataclass(frozen=True, slots=True)
class DemoSettings:
    """How the demo agent behaves; every field has a sensible default."""

    state_dir: Path
    chunk_delay_s: float = DEFAULT_CHUNK_DELAY_MS / 1000
    prediction_delay_s: float = DEFAULT_PREDICTION_DELAY_MS / 1000
    slow_step_s: float = DEFAULT_SLOW_STEP_MS / 1000

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> DemoSettings:
        """Read ``WEBCLIENT_DEMO_STATE_DIR`` and the three delays, each in milliseconds.

        ``WEBCLIENT_DEMO_CHUNK_DELAY_MS`` paces streamed answers, ``WEBCLIENT_DEMO_PREDICTION_DELAY_MS``
        is the wait between a turn's response and its prediction, ``WEBCLIENT_DEMO_SLOW_STEP_MS`` paces
        "count to N" and "slow" line by line. Missing, empty or unreadable values keep the defaults, which
        are what a person trying the demo should see; tests shorten them.
        """
        env = os.environ if env is None else env
        return cls(
            state_dir=_state_dir(env),
            chunk_delay_s=_milliseconds(env, CHUNK_DELAY_ENV, DEFAULT_CHUNK_DELAY_MS) / 1000,
            prediction_delay_s=_milliseconds(env, PREDICTION_DELAY_ENV, DEFAULT_PREDICTION_DELAY_MS) / 1000,
            slow_step_s=_milliseconds(env, SLOW_STEP_ENV, DEFAULT_SLOW_STEP_MS) / 1000,
        )


def _state_dir(env: Mapping[str, str]) -> Path:
    if explicit := env.get(STATE_DIR_ENV):
        return Path(explicit).expanduser()
    xdg = env.get("XDG_STATE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "state"
    return base / "webclient-demo"


def _milliseconds(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        log.warning("%s=%r is not a number; using %s ms", name, raw, default)
        return default
    return max(value, 0.0)
