"""What a page complains of while a browser test runs: script errors, and console errors and warnings
(htmx reports a swap it could not make, such as a target that is not in the page, as a console error)."""

from __future__ import annotations

from playwright.sync_api import ConsoleMessage, Page


def watch_problems(page: Page) -> list[str]:
    """A list that fills with every problem `page` reports from now on; a clean run leaves it empty."""
    problems: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            problems.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda error: problems.append(str(error)))
    return problems
