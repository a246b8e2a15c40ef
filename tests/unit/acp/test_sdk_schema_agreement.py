"""webclient's ACP v2 layer against the official SDK's v2 schema (vendored in
tests/fixtures/acp-sdk-schema/, from @agentclientprotocol/sdk 2.4.0): the same methods, every update
kind handled, and no field required by us that the schema leaves optional. The messages we send are
checked against the same schema in tests/integration/test_sdk_agent.py, with the SDK's own agent."""

from __future__ import annotations

import ast
import inspect
from typing import Any

import pytest

from tests.support.acp_schema import definition, errors, methods, minimal, update_kinds
from webclient.acp.capabilities import initialize_params_v2
from webclient.acp.models import Notice
from webclient.acp.suggestions import SUGGESTIONS_VARIANT
from webclient.acp.v2 import connection
from webclient.acp.v2.translate import V2Translator

# What webclient does with each method an agent may call, and why: a new method in the schema fails the
# test until it is added here (and handled, with a test, or refused on purpose).
CLIENT_METHODS = {
    "session/request_permission": "handled: the page asks the user",
    "elicitation/create": "refused with -32601 and a notice: webclient does not advertise elicitation",
}
CLIENT_NOTIFICATIONS = {
    "session/update": "handled: V2Translator",
    "elicitation/complete": "ignored: no elicitation is ever accepted",
}


def called_methods() -> set[str]:
    """The methods our v2 connection calls on the agent: the literal first argument of each
    `self._request(...)` and `...notify(...)` in its source."""
    tree = ast.parse(inspect.getsource(connection))
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        first = node.args[0] if node.args else None
        if node.func.attr in ("_request", "notify") and isinstance(first, ast.Constant):
            found.add(str(first.value))
    return found


def test_we_call_every_agent_method_of_the_schema_and_none_it_lacks() -> None:
    expected = set(methods("agent", "Request")) | set(methods("agent", "Notification"))
    assert called_methods() == expected


def test_every_method_an_agent_may_call_is_handled_or_refused_on_purpose() -> None:
    assert set(methods("client", "Request")) == set(CLIENT_METHODS)
    assert set(methods("client", "Notification")) == set(CLIENT_NOTIFICATIONS)


def test_every_update_kind_of_the_schema_is_translated_and_we_read_no_other() -> None:
    kinds = set(update_kinds())
    translated = V2Translator().kinds
    assert kinds - translated == set(), "update kinds of the schema that webclient does not read"
    assert translated - kinds == set(), "update kinds webclient reads that the schema no longer has"
    # The RFD's update is read before the translators; once the SDK's schema has it, check its shape.
    assert SUGGESTIONS_VARIANT not in kinds


@pytest.mark.parametrize("kind", sorted(update_kinds()))
def test_an_update_with_only_the_fields_the_schema_requires_is_taken_without_complaint(kind: str) -> None:
    update: dict[str, Any] = {"sessionUpdate": kind, **minimal(definition(update_kinds()[kind]))}
    assert errors("SessionUpdate", update) == []  # the instance is one the schema accepts
    translation = V2Translator().translate({"sessionId": "s", "update": update})
    complaints = [e.text for e in translation.events if isinstance(e, Notice) and not e.from_agent]
    assert complaints == [], f"{kind} with the schema's required fields only: {complaints}"


# Required fields whose absence webclient tolerates on purpose, and why.
TOLERATED = {("notice", "severity"): "the agent's words are shown anyway, as information"}


@pytest.mark.parametrize("kind", sorted(update_kinds()))
def test_an_update_without_a_field_the_schema_requires_is_said_to_be_malformed(kind: str) -> None:
    fields = definition(update_kinds()[kind])
    full: dict[str, Any] = {"sessionUpdate": kind, **minimal(fields)}
    for name in fields.get("required", []):
        broken = {k: v for k, v in full.items() if k != name}
        assert errors("SessionUpdate", broken) != []
        events = V2Translator().translate({"sessionId": "s", "update": broken}).events
        said = [e.text for e in events if isinstance(e, Notice) and not e.from_agent]
        if (kind, name) in TOLERATED:
            assert not said
        else:
            assert said and "malformed" in said[0], f"{kind} without {name} was taken as {events}"


@pytest.mark.parametrize("suggestions", [True, False])
@pytest.mark.parametrize("air", [True, False])
def test_our_initialize_params_are_a_valid_v2_initialize_request(suggestions: bool, air: bool) -> None:
    params = initialize_params_v2(prompt_suggestions=suggestions, jetbrains_air=air)
    assert errors("InitializeRequest", params) == []
    assert set(definition("InitializeRequest")["required"]) <= set(params)
