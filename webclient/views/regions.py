"""The one mapping from what changed in a session to the partials that show it.

The domain says *what* changed (an `Aspect`, or a transcript entry's id); this module alone knows which
page regions that touches. The full page, a new tab's snapshot and every live frame use it.
"""

from __future__ import annotations

from collections.abc import Mapping

from webclient.domain.state import Aspect

# Aspect -> the partials that render it, each with a stable id that an out-of-band swap replaces.
# The protocol log is not here: the inspector renders it per tab (views/inspector.py).
REGIONS: Mapping[Aspect, tuple[str, ...]] = {
    # The welcome names the agent and its modes and commands, so it follows both.
    Aspect.DETAILS: ("_header.html", "_welcome.html"),
    # The status badge and the buttons that depend on it change together, and so does ACP v2's list of
    # background work (the agent's state update carries it); the plan folds when a turn ends.
    Aspect.STATUS: ("_status.html", "_composer_actions.html", "_background.html", "_plan.html"),
    Aspect.SIGN_IN: ("_auth.html",),
    Aspect.PLAN: ("_plan.html",),
    # The chip row and the composer's ghost text come from the same list and change together.
    Aspect.SUGGESTIONS: ("_suggestions.html", "_ghost_text.html"),
    Aspect.QUEUE: ("_prompt_queue.html",),
    # The sidebar's parts: the stored copies change apart from the sessions' states, which change at every
    # turn (a sidebar listing 200 copies made each turn's first frame some 80 KB).
    Aspect.SESSIONS: ("_sidebar_sessions.html", "_sidebar_stored.html"),
    Aspect.KEPT_COPIES: ("_kept_copies.html",),
    Aspect.COMMANDS: ("_slash_menu.html", "_welcome.html"),
}


def is_region(key: str) -> bool:
    """Whether a change key names a region (rather than a transcript entry or the protocol log)."""
    return key in REGIONS


# The partials inside the composer: a stored copy's page has none (its actions stand in its place).
IN_COMPOSER = frozenset(
    {"_composer_actions.html", "_ghost_text.html", "_slash_menu.html", "_prompt_queue.html"}
)


def partials(aspect: Aspect, *, composer: bool = True) -> tuple[str, ...]:
    """The partials that show `aspect`, without those inside the composer on a page that has none."""
    names = REGIONS[aspect]
    return names if composer else tuple(name for name in names if name not in IN_COMPOSER)
