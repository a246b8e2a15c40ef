"""Where templates and static files live, in a source checkout and in an installed package alike."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def _find(name: str) -> Path:
    # Installed (non-editable): setuptools maps the top-level folders into the package.
    installed = _PACKAGE / name
    if installed.is_dir():
        return installed
    # Source checkout or editable install: the folders sit beside the package.
    return _PACKAGE.parent / name


TEMPLATES_DIR = _find("templates")
STATIC_DIR = _find("static")
