"""What we advertise to an agent in `initialize`, built from settings.

The SDK's models drop fields they do not know (such as `session.promptSuggestions`), so the params are
plain dicts that we send ourselves.
"""

from __future__ import annotations

from typing import Any

from webclient import __version__

PROTOCOL_VERSION = 1

# Block types beyond text and resource_link that the chip UI can show in full and send back unchanged:
# an image as a thumbnail from its own data, audio as a player from its own data, an embedded resource
# as its name and URI with a preview (templates/_attachment.html). Sending is the agent's blocks as sent.
SUGGESTION_CONTENT_TYPES: dict[str, dict[str, Any]] = {"image": {}, "audio": {}, "embeddedContext": {}}


def client_capabilities(
    *, prompt_suggestions: bool, jetbrains_air: bool, local_tools: bool = True
) -> dict[str, Any]:
    """The `clientCapabilities` object for `initialize`. Without `local_tools` (a remote agent the user
    did not allow them), no `fs` and no `terminal`: the agent may not touch this machine."""
    caps: dict[str, Any] = {}
    if local_tools:
        caps = {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True}
    # The session header shows boolean config options as checkboxes (templates/_modes.html).
    caps["session"] = {"configOptions": {"boolean": {}}}
    # Terminal sign-in methods are shown as the command to run (templates/_auth.html).
    caps["auth"] = {"terminal": True}
    if prompt_suggestions:
        caps["session"]["promptSuggestions"] = dict(SUGGESTION_CONTENT_TYPES)
    if jetbrains_air:
        caps["_meta"] = {"jetbrains": {"air": {}}}
    return caps


def initialize_params(
    *, prompt_suggestions: bool, jetbrains_air: bool, local_tools: bool = True
) -> dict[str, Any]:
    """The full `initialize` params for ACP v1."""
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "clientCapabilities": client_capabilities(
            prompt_suggestions=prompt_suggestions, jetbrains_air=jetbrains_air, local_tools=local_tools
        ),
        "clientInfo": {"name": "webclient", "title": "webclient", "version": __version__},
    }


def initialize_params_v2(*, prompt_suggestions: bool, jetbrains_air: bool = False) -> dict[str, Any]:
    """The full `initialize` params for ACP v2: `info` and `capabilities`, with no `fs` and no `terminal`
    (v2 has neither). Prompt suggestions' capability sits in the RFD's client `session` group; the
    markers are objects, and `session: {}` alone would advertise nothing. `jetbrains_air` puts the
    AIR marker in `capabilities._meta`, where v2 keeps a client's metadata (v1: `clientCapabilities`)."""
    capabilities: dict[str, Any] = {"auth": {"terminal": {}}}
    if prompt_suggestions:
        capabilities["session"] = {"promptSuggestions": dict(SUGGESTION_CONTENT_TYPES)}
    if jetbrains_air:
        capabilities["_meta"] = {"jetbrains": {"air": {}}}
    return {
        "protocolVersion": 2,
        "info": {"name": "webclient", "title": "webclient", "version": __version__},
        "capabilities": capabilities,
    }


# --- probing an agent (`webclient check`) -------------------------------------------------------------

# The forms a client may take to NOT advertise prompt suggestions (the RFD lists each), and the one
# declaration some agents key their legacy `_meta` channel on.
UNADVERTISED_FORMS: dict[str, str] = {
    "session-absent": "no session group",
    "session-null": "session: null",
    "session-empty": "session: {} (promptSuggestions absent)",
    "suggestions-null": "session.promptSuggestions: null",
    "air-meta": "no session group, _meta.jetbrains.air declared",
}
# promptSuggestions offers: the baseline, then each optional block type one at a time.
OFFERS: dict[str, str] = {
    "offer-baseline": "promptSuggestions: {}",
    "offer-image": "promptSuggestions: {image: {}}",
    "offer-audio": "promptSuggestions: {audio: {}}",
    "offer-embeddedContext": "promptSuggestions: {embeddedContext: {}}",
}


def probe_initialize(version: int, form: str) -> dict[str, Any]:
    """The `initialize` params of ACP `version` for one capability form of `UNADVERTISED_FORMS` or
    `OFFERS`: our usual declaration, with only the `session` group (and `_meta`) changed."""
    if version == 1:
        params = initialize_params(prompt_suggestions=False, jetbrains_air=form == "air-meta")
        caps = params["clientCapabilities"]
    else:
        params = initialize_params_v2(prompt_suggestions=False)
        caps = params["capabilities"]
        if form == "air-meta":
            caps["_meta"] = {"jetbrains": {"air": {}}}
    session = dict(caps.get("session") or {})
    if form in ("session-absent", "air-meta"):
        caps.pop("session", None)
        return params
    if form in ("session-null", "session-empty"):
        caps["session"] = None if form == "session-null" else {}
        return params
    if form == "suggestions-null":
        session["promptSuggestions"] = None
    elif form.startswith("offer-"):
        field = form.removeprefix("offer-")
        session["promptSuggestions"] = {} if field == "baseline" else {field: {}}
    else:
        raise ValueError(f"unknown capability form {form!r}")
    caps["session"] = session
    return params
