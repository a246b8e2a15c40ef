"""The templates' contract: every partial renders from its view model alone.

Each region's partial gets its model (views/region_models.py) under one name and `oob`; a transcript entry's
partials get its row (views/entry_models.py). Rendered in an environment whose missing names fail
(`StrictUndefined`), from nothing but that, a partial that reaches for the session state or another
region's values fails here; and no partial names a value that its caller does not hand it (`INPUTS`).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from jinja2 import Environment, StrictUndefined, meta, nodes

from tests.support.html import tags
from webclient.acp.controls import Mode
from webclient.acp.models import (
    AgentStatus,
    AuthMethod,
    AuthVar,
    BackgroundWork,
    Command,
    CommandsEvent,
    CompactionEvent,
    MessageChunk,
    Notice,
    NoticeLevel,
    PermissionOption,
    PermissionRequest,
    PlanEntry,
    PlanEvent,
    PromptBlock,
    ResourceLinkPart,
    StateEvent,
    Suggestion,
    TerminalEvent,
    TerminalOutput,
    TextPart,
    ToolCallContent,
    ToolCallEvent,
    UsageEvent,
)
from webclient.domain.items import FileWriteItem, PermissionItem
from webclient.domain.kept.entries import KeptCopy
from webclient.domain.sidebar import AgentChoice, KeptLink, SessionLink, Sidebar, StoredSession
from webclient.domain.sign_in import SignIn
from webclient.domain.state import Aspect, SessionState
from webclient.domain.transcript import Transcript
from webclient.views import entry_models, region_models, render
from webclient.views.entry_models import kind_of
from webclient.views.paths import TEMPLATES_DIR
from webclient.views.regions import REGIONS
from webclient.views.regions import partials as partials_of

# What each `_`-prefixed partial may be handed by whoever renders or includes it: its model, `oob` and the
# few values an including partial passes on. Anything else it names is a global helper of a value.
ENTRY = {"item", "workspace", "oob", "local", "row"}
INPUTS: dict[str, set[str]] = {
    **{name: {key, "oob"} for name, (key, _) in region_models.MODELS.items()},
    "_modes.html": {"modes"},  # only inside the header, never swapped on its own
    "_transcript.html": {"transcript", "oob"},
    "_item.html": {"row", "oob", "local"},
    "_message.html": ENTRY,
    "_message_body.html": ENTRY,
    "_notice.html": ENTRY,
    "_failure.html": ENTRY,
    "_permission.html": ENTRY,
    "_file_write.html": ENTRY,
    "_tool_call.html": ENTRY,
    "_tool_content_added.html": {"row", "start"},
    "_tool_content.html": ENTRY | {"entry", "term_index"},
    "_terminal.html": ENTRY | {"entry", "term_index"},
    "_part.html": ENTRY | {"part"},
    "_diff.html": {"workspace", "diff_path", "diff_old", "diff_new", "diff_patch", "diff_changes"},
    "_diff_lines.html": {"view", "diff_path"},
    "_attachment.html": {"att", "workspace"},
    "_chip_pieces.html": set(),
    "_message_tail.html": {"item_id", "tail", "oob"},
    "_kept_banner.html": {"kept"},
    "_kept_actions.html": {"kept"},
    "_composer_pill.html": {"held", "insert", "workspace"},
    "_composer_attachments.html": {"pills", "workspace", "oob"},
    "_composer_options.html": {"suggestion_style"},
    "_composer_suggestions.html": {"suggestions"},
    "_file_picker.html": {"found", "query", "open", "oob"},
    "_navigate.html": {"href", "draft", "oob"},
    "_inspector.html": {"session_path"},
    "_inspector_entries.html": {"body", "oob"},
    "_inspector_entry.html": {"entry", "pretty", "since"},
    "_inspector_note.html": {"hidden", "dropped", "oob"},
    "_diagnostics.html": {"diagnostics"},
    "studies/_banner.html": {"plan", "stage", "participant", "where"},
    "studies/_plot.html": {"plot"},
}


def strict() -> Environment:
    return render.build_environment(StrictUndefined)


def named(source: str, env: Environment) -> set[str]:
    """The names a template reads that it does not set itself (a `set` inside an `if` counts as set)."""
    tree = env.parse(source)
    assigned = {n.name for n in tree.find_all(nodes.Name) if n.ctx in ("store", "param")}
    return set(meta.find_undeclared_variables(tree)) - assigned - set(env.globals)


def partials() -> Iterator[str]:
    for path in sorted(TEMPLATES_DIR.rglob("_*.html")):
        yield path.relative_to(TEMPLATES_DIR).as_posix()


@pytest.mark.parametrize("name", list(partials()))
def test_a_partial_names_only_what_its_caller_hands_it(name: str) -> None:
    env = strict()
    source = (TEMPLATES_DIR / name).read_text(encoding="utf-8")
    assert "state" not in named(source, env), f"{name} reads the session state"
    assert named(source, env) <= INPUTS.get(name, set()), f"{name} reads {named(source, env)}"


def test_every_region_partial_has_a_model() -> None:
    shown = {name for names in REGIONS.values() for name in names}
    assert shown <= set(region_models.MODELS)


# -- states that reach the partials' branches ---------------------------------------------------------------


def rich_state(version: int) -> SessionState:
    state = SessionState(
        agent_name="Agent", agent_label="agent", workspace="/work/shop", protocol_version=version
    )
    state.set_agent_status(AgentStatus.READY)
    state.begin_turn([TextPart(text="hello"), ResourceLinkPart(name="a.py", uri="file:///work/shop/a.py")])
    state.apply(MessageChunk(role="thought", content=TextPart(text="thinking")))
    state.apply(MessageChunk(role="agent", content=TextPart(text="An *answer* with `code`.\n\nMore")))
    content = (
        ToolCallContent(kind="diff", path="/work/shop/a.py", old_text="a\n", new_text="b\n"),
        ToolCallContent(kind="terminal", terminal_id="term-1"),
        ToolCallContent(kind="content", content=TextPart(text="line one\nline two")),
    )
    call = ToolCallEvent(tool_call_id="c1", is_update=False, title="Edit a.py", kind="edit", content=content)
    state.apply(call)
    state.apply(TerminalEvent(terminal_id="term-1", command="make test", output="ok\n", cancellable=True))
    state.set_terminal("term-1", TerminalOutput(output="ok\n", truncated=False))
    ask = PermissionRequest(
        session_id="s",
        tool_call=ToolCallEvent(tool_call_id="c1", is_update=True, kind="edit", content=content[:1]),
        options=(
            PermissionOption(id="allow", name="Allow"),
            PermissionOption(id="no", name="No", kind="reject_once"),
        ),
    )
    state.add_item(PermissionItem(request=ask))
    state.add_item(FileWriteItem(path="/work/shop/b.py", old_text=None, new_text="new\n"))
    state.add_notice(Notice(level=NoticeLevel.WARNING, text="careful", detail="the detail"))
    state.add_notice(Notice(level=NoticeLevel.ERROR, text="it failed", detail="Traceback"), failure=True)
    state.apply(PlanEvent(entries=(PlanEntry(content="one", priority="high", status="completed"),)))
    state.apply(UsageEvent(used=1200, size=200000, cost_amount=0.25, cost_currency="USD"))
    state.set_suggestions(
        (
            Suggestion(parts=(TextPart(text="Run the tests"),), wire=()),
            Suggestion(
                parts=(TextPart(text="Show "), ResourceLinkPart(name="a.py", uri="file:///work/shop/a.py")),
                wire=(),
            ),
            Suggestion(parts=(TextPart(text="x" * 400),), wire=()),
        )
    )
    state.waiting.hold(
        state,
        [PromptBlock(TextPart(text="then this")), PromptBlock(ResourceLinkPart(name="a", uri="file:///a"))],
    )
    state.apply(CommandsEvent(commands=(Command(name="plan", description="Make a plan", input_hint="what"),)))
    state.set_modes(
        (Mode(id="ask", name="Ask", description="asks first"), Mode(id="code", name="Code")), "ask"
    )
    state.set_sidebar(
        Sidebar(
            live=(SessionLink(local_id="s1", title="one", status="working", current=True, agent="agent"),),
            stored=(StoredSession(session_id="old", title="Old one", updated_at="2026-01-01T10:00:00"),),
            can_load=True,
            can_resume=True,
            can_list=True,
            can_delete=True,
            agents=(AgentChoice(key="a", name="agent"), AgentChoice(key="b", name="other")),
            current_agent="a",
            kept=tuple(
                KeptLink(key=f"k{n}", title=f"copy {n}", agent="agent", saved_at=0.0) for n in range(7)
            ),
            kept_more=2,
        )
    )
    if version >= 2:
        state.apply(
            StateEvent(
                state="running",
                background=(
                    BackgroundWork(kind="terminal", id="term-1"),
                    BackgroundWork(kind="tool_call", id="c1"),
                    BackgroundWork(kind="_job", id="j"),
                ),
            )
        )
        state.apply(CompactionEvent(compaction_id="z", status="running"))
    return state


def signing_in() -> SessionState:
    state = SessionState(agent_label="agent")
    state.set_agent_status(AgentStatus.AUTH_REQUIRED)
    methods = (
        AuthMethod(id="web", name="Browser"),
        AuthMethod(id="key", name="API key", kind="env_var", vars=(AuthVar(name="API_KEY"),)),
        AuthMethod(id="cli", name="Terminal", kind="terminal"),
    )
    state.set_sign_in(SignIn(methods=methods, pending="web", error="nope"))
    return state


def kept_copy() -> SessionState:
    state = SessionState(agent_label="agent")
    state.show_copy(KeptCopy(key="a" * 32, title="kept", saved_at=0.0), Transcript())
    return state


STATES = {
    "empty": SessionState,
    "v1": lambda: rich_state(1),
    "v2": lambda: rich_state(2),
    "sign-in": signing_in,
    "kept": kept_copy,
}


@pytest.mark.parametrize("which", list(STATES))
def test_every_region_renders_from_its_model_alone_as_the_page_renders_it(which: str) -> None:
    state = STATES[which]()
    env = strict()
    for name, (key, build) in region_models.MODELS.items():
        alone = env.get_template(name).render({key: build(state), "oob": True})
        # As the page's live frames render it; the modes go out inside the header.
        aspect = next((a for a, names in REGIONS.items() if name in names), Aspect.DETAILS)
        if name in partials_of(aspect, composer=state.kept is None) or name == "_modes.html":
            assert alone.strip() in render.region(state, aspect), name


@pytest.mark.parametrize("which", list(STATES))
def test_every_entry_renders_from_its_row_alone_by_its_kind(which: str) -> None:
    state = STATES[which]()
    env = strict()
    for entry in state.items:
        row = entry_models.row(state, entry)
        alone = env.get_template("_item.html").render(row=row, oob=False, local=False)
        assert alone == render.item(state, entry)
        assert tags(alone)[0].attrs["id"] == entry.id


def test_the_whole_page_renders_with_strict_names() -> None:
    for make in STATES.values():
        state = make()
        html = (
            strict()
            .get_template("index.html")
            .render(
                region_models.all_models(state),
                transcript=entry_models.transcript(state),
                title=state.title,
                kept=region_models.kept(state),
                ws_path="/ws",
                session_path="/",
                suggestion_style="chips",
                present=False,
                oob=False,
            )
        )
        assert html == render.page(state, ws_path="/ws")


def test_each_entry_kind_picks_its_partial() -> None:
    state = rich_state(1)
    shown = {
        "message": {"message"},
        "notice": {"notice", "failure"},
        "permission": {"permission"},
        "file_write": {"file-write"},
        "tool_call": {"tool-call"},
    }
    kinds = set()
    for entry in state.items:
        kind = kind_of(entry)
        kinds.add(kind)
        assert tags(render.item(state, entry))[0].attrs["data-testid"] in shown[kind], kind
    assert kinds == set(shown)
