"""Misbehaves: prints an error to stderr and exits with code 7 before reading anything."""

from __future__ import annotations

import sys

import wire

wire.stderr("error: no configuration found at ~/.scripted/config.toml", "run `scripted login` first")
sys.exit(7)
