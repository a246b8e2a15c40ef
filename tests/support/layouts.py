"""The sizes and colour schemes the page is judged at: a desktop and a phone, light and dark.

Behaviour is tested once per size (a phone gets touch, as a real one has); each state is then shot and
scanned with axe-core in both schemes, by switching the emulated `prefers-color-scheme`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from playwright.sync_api import Page

from tests.support import screenshots
from tests.support.accessibility import BLOCKING, COLOUR_RULES, describe, violations

SCHEMES: tuple[Literal["light", "dark"], ...] = ("light", "dark")


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
    """Screenshots of the page as it is, in both schemes: `<state>-<layout>-<scheme>.png`."""
    if not screenshots.wanted():
        return
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        screenshots.screenshot(page, f"{state}-{layout.name}-{scheme}")
    page.emulate_media(color_scheme="light")


def assert_accessible(page: Page, what: str, *, impacts: tuple[str, ...] = BLOCKING) -> None:
    """No axe-core violation of `impacts` (critical and serious unless told), in either scheme.

    Every rule in the first scheme; in the others only the colour rules, the only ones a scheme changes.
    """
    for n, scheme in enumerate(SCHEMES):
        page.emulate_media(color_scheme=scheme)
        found = violations(page, impacts=impacts, rules=None if n == 0 else COLOUR_RULES)
        assert not found, f"{what} ({scheme}):\n{describe(found)}"
    page.emulate_media(color_scheme="light")
