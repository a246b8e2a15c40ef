"""Modes, config options and slash commands: wire to models, rendering (hostile text stays inert), actions."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.support.html import problems, tags, text
from webclient.acp.controls import (
    ConfigChoice,
    ConfigGroup,
    ConfigOption,
    Mode,
    config_options_from_wire,
    modes_from_wire,
)
from webclient.acp.models import Command
from webclient.domain.state import Aspect, SessionState
from webclient.views import assets, render
from webclient.web.actions import BadAction, SetConfigOptionAction, SetModeAction, parse_action

HOSTILE = '"><script>alert(1)</script><img src=x onerror=alert(1) id=composer hx-get=/x ws-send>'


def controls_state(word: str) -> SessionState:
    state = SessionState(agent_name="demo")
    state.set_modes((Mode(id=word, name=word, description=word), Mode(id="code", name="Code")), word)
    select = ConfigOption(
        id=word,
        name=word,
        description=word,
        kind="select",
        current=word,
        groups=(
            ConfigGroup(name=None, choices=(ConfigChoice(value=word, name=word, description=word),)),
            ConfigGroup(name=word, choices=(ConfigChoice(value="b", name="B"),)),
        ),
    )
    toggle = ConfigOption(id=word, name=word, description=word, kind="boolean", current=True)
    state.set_config_options((select, toggle))
    state.commands = (
        Command(name=word, description=word, input_hint=word),
        Command(name="x", description="y"),
    )
    return state


# --- from the wire --------------------------------------------------------------------------------------


def test_modes_from_a_session_result_skip_invalid_items() -> None:
    modes, current = modes_from_wire(
        {
            "currentModeId": "ask",
            "availableModes": [{"id": "ask", "name": "Ask", "description": "Q"}, {"name": "no id"}, 7],
        }
    )
    assert modes == (Mode(id="ask", name="Ask", description="Q"),)
    assert current == "ask"


@pytest.mark.parametrize("raw", [None, "modes", [], {"availableModes": "x"}])
def test_missing_or_malformed_modes_mean_none(raw: object) -> None:
    assert modes_from_wire(raw) == ((), None)


def test_config_options_keep_groups_and_skip_invalid_items() -> None:
    options = config_options_from_wire(
        [
            {
                "id": "model",
                "name": "Model",
                "type": "select",
                "currentValue": "a",
                "options": [
                    {"group": "g1", "name": "Fast ones", "options": [{"value": "a", "name": "A"}]},
                    {"group": "g2", "name": "Slow ones", "options": [{"value": "b", "name": "B"}]},
                ],
            },
            {"id": "web", "name": "Web", "type": "boolean", "currentValue": False},
            {"id": "broken", "type": "select"},
            {"id": "future", "name": "F", "type": "slider", "currentValue": 3},
        ]
    )
    assert [o.id for o in options] == ["model", "web"]
    model, web = options
    assert [g.name for g in model.groups] == ["Fast ones", "Slow ones"]
    assert model.values == {"a", "b"}
    assert model.accepts("b") and not model.accepts("c") and not model.accepts(True)
    assert web.accepts(True) and not web.accepts("true")


# --- rendering ------------------------------------------------------------------------------------------


def test_header_shows_mode_select_and_config_controls() -> None:
    html = render.region(controls_state("ask"), Aspect.DETAILS)
    found = tags(html)
    select = next(t for t in found if t.attrs.get("data-testid") == "mode-select")
    assert select.name == "select" and select.attrs["name"] == "mode_id"
    controls = [t for t in found if t.attrs.get("data-testid") == "config-option"]
    assert [(t.name, t.attrs.get("type")) for t in controls] == [("select", None), ("input", "checkbox")]
    assert all(t.attrs["data-option-id"] == "ask" for t in controls)
    assert "checked" in controls[1].attrs
    selected = [t.attrs["value"] for t in found if t.name == "option" and "selected" in t.attrs]
    assert selected == ["ask", "ask"]  # the current mode and the current model value
    assert [t.attrs["label"] for t in found if t.name == "optgroup"] == ["ask"]
    forms = [t for t in found if t.name == "form"]
    assert all("ws-send" in f.attrs and f.attrs["hx-trigger"] == "change" for f in forms)


def test_header_without_modes_or_options_has_no_controls() -> None:
    html = render.region(SessionState(), Aspect.DETAILS)
    assert "mode-select" not in html and "config-option" not in html and "<form" not in html


@pytest.mark.parametrize("key", [Aspect.DETAILS, Aspect.COMMANDS])
def test_hostile_mode_option_and_command_names_stay_inert(key: str) -> None:
    hostile = render.region(controls_state(HOSTILE), key)
    benign = render.region(controls_state("ask"), key)
    assert Counter(problems(hostile)) == Counter(problems(benign))
    assert "<script>" not in hostile
    assert "<script>alert(1)</script>" in text(hostile)  # shown as text, never as markup


def test_slash_menu_lists_commands_with_descriptions_and_hints_hidden_until_asked() -> None:
    state = SessionState()
    state.commands = (
        Command(name="show", description="Show a file", input_hint="file path"),
        Command(name="help", description="Help"),
    )
    html = render.region(state, Aspect.COMMANDS)
    found = tags(html)
    menu = found[0]
    assert menu.attrs["data-testid"] == "slash-menu" and menu.attrs["role"] == "listbox"
    assert "hidden" in menu.attrs and menu.attrs["hx-swap-oob"] == "outerHTML"
    items = [t for t in found if t.attrs.get("data-testid") == "slash-command"]
    assert [(t.attrs["data-name"], t.attrs["data-hint"]) for t in items] == [
        ("show", "file path"),
        ("help", ""),
    ]
    assert all(t.attrs["role"] == "option" for t in items)
    assert "Show a file" in text(html) and "/help" in text(html)


def test_page_includes_the_slash_menu_and_its_script() -> None:
    state = SessionState()
    state.commands = (Command(name="help", description="Help"),)
    html = render.page(state, ws_path="/ws/s1")
    assert html.count('data-testid="slash-menu"') == 1
    script = assets.bundle("js")
    assert any(t.name == "script" and t.attrs.get("src") == script.url for t in tags(html))
    assert "slash.js" in assets.SCRIPTS


# --- actions --------------------------------------------------------------------------------------------


def test_set_mode_action_parses() -> None:
    assert parse_action('{"action": "set_mode", "mode_id": "code"}') == SetModeAction(
        action="set_mode", mode_id="code"
    )


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ('{"action": "set_config_option", "config_id": "model", "value": "fast"}', "fast"),
        ('{"action": "set_config_option", "config_id": "v", "type": "boolean", "value": "true"}', True),
        ('{"action": "set_config_option", "config_id": "v", "type": "boolean", "value": false}', False),
        ('{"action": "set_config_option", "config_id": "v", "type": "boolean"}', False),  # unticked box
    ],
)
def test_set_config_option_action_parses_select_and_boolean_values(raw: str, value: object) -> None:
    action = parse_action(raw)
    assert isinstance(action, SetConfigOptionAction)
    assert action.value == value and type(action.value) is type(value)


@pytest.mark.parametrize(
    "raw",
    [
        '{"action": "set_mode"}',
        '{"action": "set_mode", "mode_id": ""}',
        '{"action": "set_config_option", "config_id": "model"}',
        '{"action": "set_config_option", "config_id": "model", "value": true}',
        '{"action": "set_config_option", "config_id": "v", "type": "boolean", "value": "maybe"}',
        '{"action": "set_config_option", "config_id": "v", "type": "slider", "value": "1"}',
        '{"action": "set_config_option", "value": "fast"}',
    ],
)
def test_malformed_mode_and_config_actions_are_refused(raw: str) -> None:
    with pytest.raises(BadAction):
        parse_action(raw)
