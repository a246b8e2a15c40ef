"""Which preset a session's suggestions are rendered with: none (the page's Display menu decides, as
always), or the one a study assigned to the participant whose session it is.

The assignment is kept here, beside the renderer, keyed by the session's state object and dropped with it,
so that every render of the suggestions (the page, a new tab's snapshot, each live frame) applies it
without the session state knowing of presets.
"""

from __future__ import annotations

import weakref
from dataclasses import replace

from webclient.domain.state import SessionState
from webclient.views.fold import FOLD, Fold
from webclient.views.presets import Preset

_assigned: dict[int, Preset] = {}


def assign(state: SessionState, preset: Preset | None) -> None:
    """Render `state`'s suggestions with `preset` from now on (None: as the page's Display menu says)."""
    key = id(state)
    if preset is None:
        _assigned.pop(key, None)
        return
    if key not in _assigned:
        weakref.finalize(state, _assigned.pop, key, None)
    _assigned[key] = preset


def of(state: SessionState) -> Preset | None:
    """The preset `state`'s suggestions are rendered with, if one was assigned."""
    return _assigned.get(id(state))


def fold_of(state: SessionState) -> Fold:
    """How `state`'s suggestion list folds: the page's fold, within its preset's limits if it has one."""
    preset = of(state)
    if preset is None:
        return FOLD
    lengths = [len(s.text) for s in state.suggestions]
    return replace(FOLD, most=preset.first_shown(lengths), area=preset.fold_area)
