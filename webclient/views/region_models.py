"""Each page region's view model: the few values its partial shows, built from the session state here.

A region's partial (`templates/_status.html` and the others `regions.py` names) renders from its model
alone, under the name `MODELS` gives it, with `oob`; it never sees the session state, so what a region
can show is written down here, and `tests/unit/views/test_view_models.py` holds every partial to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from webclient.acp.controls import ConfigOption, Mode
from webclient.acp.models import Command, PlanEntry, UsageEvent
from webclient.domain.prompt import composer_text
from webclient.domain.sidebar import AgentChoice, KeptLink, SessionLink, StoredSession
from webclient.domain.sign_in import SignIn
from webclient.domain.state import SessionState, TurnState
from webclient.views import hidden_chars, presentation
from webclient.views.chips import CHIP_TEXT_LIMIT, ChipView, chip_view
from webclient.views.fold import Fold
from webclient.views.presets import Preset
from webclient.views.shell_command import ShownCommand, shown_command
from webclient.views.welcome import Starter, is_demo_agent, starters


@dataclass(frozen=True)
class StatusView:
    """The status badge (`_status.html`): what the session is doing, in one word or a few."""

    display_status: str
    session_status: str
    signing_in: bool
    queued: bool
    agent_state: str | None
    protocol_version: int


@dataclass(frozen=True)
class ModesView:
    """The mode selector and config options in the header (`_modes.html`)."""

    shows_mode_selector: bool
    available_modes: tuple[Mode, ...]
    current_mode_id: str | None
    config_options: tuple[ConfigOption, ...]


@dataclass(frozen=True)
class HeaderView:
    """The session header (`_header.html`): title, the agent, usage, with the status and the modes."""

    title: str
    agent_name: str
    agent_label: str
    protocol_version: int
    usage: UsageEvent | None
    status: StatusView
    modes: ModesView


@dataclass(frozen=True)
class WelcomeView:
    """An empty session's welcome (`_welcome.html`)."""

    agent_name: str
    demo: bool
    starters: tuple[Starter, ...]
    mode_names: tuple[str, ...]


@dataclass(frozen=True)
class ActionsView:
    """The composer's buttons (`_composer_actions.html`): Send (or Queue), Cancel, Restart, + Image."""

    accepts_images: bool
    agent_status: str
    display_status: str
    turn: str
    can_prompt: bool
    waits: bool  # a prompt sent now waits for the turn to end


@dataclass(frozen=True)
class BackgroundWork:
    """One piece of ACP v2 background work as the list names it, and whether the page may stop it."""

    kind: str
    id: str
    label: str
    stoppable: bool


@dataclass(frozen=True)
class BackgroundView:
    """ACP v2's background work and a compaction under way (`_background.html`)."""

    compacting: bool
    work: tuple[BackgroundWork, ...]


@dataclass(frozen=True)
class PlanView:
    """The agent's plan (`_plan.html`): open while a turn runs (`live`), folded to a count after."""

    live: bool
    entries: tuple[PlanEntry, ...]
    done: int


@dataclass(frozen=True)
class AuthView:
    """Sign-in (`_auth.html`): the agent's methods, and the command each terminal method runs."""

    sign_in: SignIn
    agent_label: str
    commands: Mapping[str, ShownCommand]


@dataclass(frozen=True)
class SuggestionsView:
    """The suggestion list (`_suggestions.html`): each suggestion as its chip, in the agent's order, and
    the style, preset and fold it is presented with."""

    generation: int
    chips: tuple[ChipView, ...]
    style: str
    preset: Preset | None
    fold: Fold
    workspace: str


@dataclass(frozen=True)
class GhostView:
    """The suggestions as the composer's ghost text (`_ghost_text.html`)."""

    generation: int
    chips: tuple[ChipView, ...]


@dataclass(frozen=True)
class WaitingRow:
    """One prompt of the queue, with the text Edit puts back in the composer."""

    id: str
    text: str
    attachments: int
    composer_text: str


@dataclass(frozen=True)
class QueueView:
    """Prompts waiting for the turn to end (`_prompt_queue.html`); `idle`: the turn ended without them."""

    idle: bool
    prompts: tuple[WaitingRow, ...]


@dataclass(frozen=True)
class SessionsView:
    """The sidebar's live sessions and the new-session form (`_sidebar_sessions.html`)."""

    live: tuple[SessionLink, ...]
    agents: tuple[AgentChoice, ...]
    current_agent: str


@dataclass(frozen=True)
class StoredView:
    """The sessions the agent stored (`_sidebar_stored.html`), and what it lets the page do with them."""

    can_list: bool
    owner: str  # "the agent", or its name when the server runs several
    stored: tuple[StoredSession, ...]
    can_load: bool
    can_resume: bool
    can_delete: bool


@dataclass(frozen=True)
class KeptCopiesView:
    """The stored copies in the sidebar (`_kept_copies.html`): the listed ones and how many more."""

    copies: tuple[KeptLink, ...]
    more: int


@dataclass(frozen=True)
class SlashView:
    """The agent's slash commands (`_slash_menu.html`)."""

    commands: tuple[Command, ...]


@dataclass(frozen=True)
class KeptView:
    """A stored copy's page: its banner (`_kept_banner.html`) and its actions (`_kept_actions.html`)."""

    key: str
    saved_at: float
    agent_label: str


def kept(state: SessionState) -> KeptView | None:
    """The stored copy `state` shows, if it shows one (its page has no composer)."""
    copy = state.kept
    return None if copy is None else KeptView(copy.key, copy.saved_at, state.agent_label)


def status(state: SessionState) -> StatusView:
    return StatusView(
        state.display_status,
        state.session_status,
        bool(state.sign_in.pending),
        state.queued,
        state.agent_state,
        state.protocol_version,
    )


def modes(state: SessionState) -> ModesView:
    return ModesView(
        state.shows_mode_selector, state.available_modes, state.current_mode_id, state.config_options
    )


def header(state: SessionState) -> HeaderView:
    return HeaderView(
        state.display_title if state.title or state.items else "webclient",
        state.agent_name,
        state.agent_label,
        state.protocol_version,
        state.usage,
        status(state),
        modes(state),
    )


def welcome(state: SessionState) -> WelcomeView:
    return WelcomeView(state.agent_name, is_demo_agent(state), starters(state), state.mode_names)


def actions(state: SessionState) -> ActionsView:
    return ActionsView(
        state.accepts_images,
        state.agent_status.value,
        state.display_status,
        state.turn.value,
        state.can_prompt,
        not state.can_prompt and state.waiting.accepts(state),
    )


def background(state: SessionState) -> BackgroundView:
    return BackgroundView(
        state.activity.compacting, tuple(_work(state, w.kind, w.id) for w in state.activity.background)
    )


def _work(state: SessionState, kind: str, work_id: str) -> BackgroundWork:
    if kind == "terminal":
        term = state.terminals.get(work_id)
        label = term.command if term is not None and term.command else f"terminal {work_id}"
        return BackgroundWork(
            kind, work_id, label, term is not None and term.cancellable and term.exit is None
        )
    if kind == "tool_call":
        card = state.tool_card(work_id)
        label = card.title if card is not None and card.title else f"tool call {work_id}"
        return BackgroundWork(kind, work_id, label, card is not None and card.stoppable)
    return BackgroundWork(kind, work_id, f"{kind.replace('_', ' ')} {work_id}", False)


def plan(state: SessionState) -> PlanView:
    done = sum(1 for entry in state.plan if entry.status == "completed")
    return PlanView(state.turn is not TurnState.IDLE, state.plan, done)


def auth(state: SessionState) -> AuthView:
    sign_in = state.sign_in
    commands = {m.id: shown_command(sign_in.command(m.id)) for m in sign_in.methods if m.kind == "terminal"}
    return AuthView(sign_in, state.agent_label, commands)


def suggestions(state: SessionState, style: str = "chips") -> SuggestionsView:
    """`style` is the presentation a new browser starts with; a study's preset, if one applies, fixes it."""
    preset = presentation.of(state)
    limit = CHIP_TEXT_LIMIT if preset is None else preset.text_limit
    chips = tuple(chip_view(s, state.workspace, limit) for s in state.suggestions)
    shown_style = preset.style if preset is not None else style
    fold = presentation.fold_of(state)
    return SuggestionsView(state.suggestions_generation, chips, shown_style, preset, fold, state.workspace)


def ghost(state: SessionState) -> GhostView:
    return GhostView(state.suggestions_generation, tuple(chip_view(s) for s in state.suggestions))


def queue(state: SessionState) -> QueueView:
    rows = tuple(
        WaitingRow(p.id, p.text, p.attachments, composer_text(p.parts, hidden_chars.strip_hidden))
        for p in state.waiting.prompts
    )
    return QueueView(state.turn is TurnState.IDLE, rows)


def sessions(state: SessionState) -> SessionsView:
    sidebar = state.sidebar
    return SessionsView(sidebar.live, sidebar.agents, sidebar.current_agent)


def stored(state: SessionState) -> StoredView:
    sidebar = state.sidebar
    owner = state.agent_label if len(sidebar.agents) > 1 else "the agent"
    return StoredView(
        sidebar.can_list, owner, sidebar.stored, sidebar.can_load, sidebar.can_resume, sidebar.can_delete
    )


def kept_copies(state: SessionState) -> KeptCopiesView:
    return KeptCopiesView(state.sidebar.kept, state.sidebar.kept_more)


def slash(state: SessionState) -> SlashView:
    return SlashView(state.commands)


# Each region partial: the name its model goes by in the template, and how the model is built.
MODELS: Mapping[str, tuple[str, Callable[[SessionState], object]]] = {
    "_header.html": ("header", header),
    "_status.html": ("status", status),
    "_modes.html": ("modes", modes),
    "_welcome.html": ("welcome", welcome),
    "_composer_actions.html": ("actions", actions),
    "_background.html": ("background", background),
    "_plan.html": ("plan", plan),
    "_auth.html": ("auth", auth),
    "_suggestions.html": ("suggestions", suggestions),
    "_ghost_text.html": ("ghost", ghost),
    "_prompt_queue.html": ("queue", queue),
    "_sidebar_sessions.html": ("sessions", sessions),
    "_sidebar_stored.html": ("stored", stored),
    "_kept_copies.html": ("kept_copies", kept_copies),
    "_slash_menu.html": ("slash", slash),
}


def model(name: str, state: SessionState) -> tuple[str, object]:
    """The model of region partial `name` for `state`, with the name the partial knows it by."""
    key, build = MODELS[name]
    return key, build(state)


def all_models(state: SessionState, *, style: str = "chips") -> dict[str, object]:
    """Every region's model, by the name its partial knows it by: the full page includes them all."""
    found = {key: build(state) for key, build in MODELS.values() if build is not suggestions}
    found["suggestions"] = suggestions(state, style)
    return found
