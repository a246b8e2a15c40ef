"""Entry point: ``python -m webclient.demo_agent``."""

from __future__ import annotations

from .wire import main

if __name__ == "__main__":
    main()
