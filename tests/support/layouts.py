"""The sizes and colour schemes the page is judged at: a desktop and a phone, light and dark.

Behaviour is tested once per size (a phone gets touch, as a real one has); each state is then shot and
scanned with axe-core in both schemes, by switching the emulated `prefers-color-scheme`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Page

from tests.support import screenshots
from tests.support.accessibility import SCHEMES, assert_accessible

__all__ = ["DESKTOP", "LAYOUTS", "PHONE", "SCHEMES", "Layout", "assert_accessible", "shoot"]


@dataclass(frozen=True)
class Layout:
    name: str
    width: int
    height: int
    phone: bool

    def context_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"viewport": {"width": self.width, "height": self.height}}
        if self.phone:
            options |= {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}
        return options


DESKTOP = Layout("desktop", 1280, 800, phone=False)
PHONE = Layout("phone", 390, 844, phone=True)
LAYOUTS = (DESKTOP, PHONE)


def shoot(page: Page, state: str, layout: Layout) -> None:
    """Scan the page as it is in both schemes (`assert_accessible`, every run), then take its screenshots
    in both, if this run takes any: `<state>-<layout>-<scheme>.png`."""
    assert_accessible(page, state)
    if not screenshots.wanted():
        return
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        screenshots.screenshot(page, f"{state}-{layout.name}-{scheme}")
    page.emulate_media(color_scheme="light")
