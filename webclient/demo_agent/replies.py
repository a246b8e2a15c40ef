"""Deciding what to answer: a prompt in, a thought + Markdown reply + what to predict next out."""

from __future__ import annotations

from dataclasses import dataclass

from .capabilities import SuggestionSupport
from .commands import SCENARIO_PRESETS
from .explain import summarise
from .intents import Intent, Kind, PromptView
from .markdown import code, fenced, language_for
from .predictions import Topic, TopicKind
from .scenarios import ScenarioOutcome, run_scenario
from .workspace import Listing, Workspace, WorkspaceError

__all__ = ["Reply", "answer"]

SHOW_LIMIT_BYTES = 12_000
EXPLAIN_LIMIT_BYTES = 1_000_000
_SCENARIO_KINDS = (Kind.SUGGEST, Kind.SUGGEST_DEMO, Kind.SUGGEST_DELAY)


@dataclass(frozen=True, slots=True)
class Reply:
    """One turn's answer.

    ``topic`` drives the prediction sent after the turn (None: predict nothing); ``scenario`` is set for
    ``/suggest*`` commands, whose list replaces the prediction; ``line_by_line`` streams one line per slow
    step instead of ~32-character chunks.
    """

    thought: str
    text: str
    topic: Topic | None = None
    line_by_line: bool = False
    scenario: ScenarioOutcome | None = None


def answer(
    view: PromptView, intent: Intent, workspace: Workspace, support: SuggestionSupport, protocol: int = 1
) -> Reply:
    """The reply to a prompt, in the ACP version the client speaks; reads the workspace, sends nothing."""
    if intent.kind in _SCENARIO_KINDS:
        return _scenario(intent, workspace, support)
    reply = _answer_request(view, intent, workspace, protocol)
    if not view.notes:
        return reply
    notes = "\n".join(f"- {note}" for note in view.notes)
    return Reply(reply.thought, f"{notes}\n\n{reply.text}", reply.topic, reply.line_by_line)


def _answer_request(view: PromptView, intent: Intent, workspace: Workspace, protocol: int) -> Reply:
    file_ref = view.file_refs[0] if view.file_refs else ""
    try:
        match intent.kind:
            case Kind.LIST:
                return _list(workspace, intent.argument or ".")
            case Kind.SHOW:
                return _show(workspace, file_ref or intent.argument)
            case Kind.EXPLAIN:
                return _explain(workspace, file_ref or intent.argument)
            case Kind.COUNT:
                return _count(int(intent.argument))
            case Kind.UNKNOWN if not intent.argument and file_ref:
                return _show(workspace, file_ref)  # a bare file attachment: show it
            case Kind.UNKNOWN if view.notes:
                return _media()
            case Kind.UNKNOWN if intent.argument:
                return _help(workspace, protocol, recognised=False)
            case _:
                return _help(workspace, protocol, recognised=True)
    except WorkspaceError as refusal:
        return Reply("Checking the request against the workspace.", str(refusal), Topic(TopicKind.REFUSED))


def _media() -> Reply:
    # The notes acknowledging each attachment are put in front of this text by answer().
    return Reply(
        "Looking at the attachments I received.", "That is all I can tell about them.", Topic(TopicKind.MEDIA)
    )


def _scenario(intent: Intent, workspace: Workspace, support: SuggestionSupport) -> Reply:
    outcome = run_scenario(intent, workspace, support)
    command = f"/{intent.kind.value} {intent.argument}".strip()
    thought = f"Running the prompt-suggestions test scenario {code(command)}."
    return Reply(thought, outcome.message, scenario=outcome)


def _list(workspace: Workspace, reference: str) -> Reply:
    listing = workspace.list_dir(reference)
    name = workspace.relative(listing.directory)
    thought = f"Listing {_directory_name(name)}."
    return Reply(thought, _listing_markdown(listing, name), Topic(TopicKind.LISTED, listing=listing))


def _directory_name(name: str) -> str:
    return "the workspace" if name == "." else code(name)


def _listing_markdown(listing: Listing, name: str) -> str:
    title = _directory_name(name)
    title = title[0].upper() + title[1:]
    if not listing.entries:
        return f"{title} is empty (hidden files and tool directories like `.git` are not listed)."
    lines = [f"{title} has {listing.total} entr{'y' if listing.total == 1 else 'ies'}:", ""]
    lines += [f"- {code(p.name + '/' if p in listing.directories else p.name)}" for p in listing.entries]
    if listing.hidden_by_cap:
        lines.append(f"- …and {listing.hidden_by_cap} more")
    return "\n".join(lines)


def _show(workspace: Workspace, reference: str) -> Reply:
    if not reference:
        return _which_file("show")
    content = workspace.read_text(reference, SHOW_LIMIT_BYTES)
    name = workspace.relative(content.path)
    parts = [f"{code(name)} ({content.size} bytes):", fenced(content.text, language_for(content.path))]
    if content.truncated:
        shown = len(content.text.encode("utf-8"))
        parts.append(f"_The file is truncated here: this is the first {shown} of {content.size} bytes._")
    thought = f"Reading {code(name)} from the workspace to show it."
    return Reply(thought, "\n\n".join(parts), Topic(TopicKind.SHOWN, file=content.path))


def _explain(workspace: Workspace, reference: str) -> Reply:
    if not reference:
        return _which_file("explain")
    content = workspace.read_text(reference, EXPLAIN_LIMIT_BYTES)
    name = workspace.relative(content.path)
    summary = summarise(name, content.text, content.size, language_for(content.path), not content.truncated)
    thought = f"Reading {code(name)} to summarise its structure."
    return Reply(thought, summary, Topic(TopicKind.EXPLAINED, file=content.path))


def _which_file(verb: str) -> Reply:
    text = f"Which file? Name it (for example {code(verb + ' README.md')}) or attach it as a file link."
    return Reply(
        f"The user asked me to {verb} a file but did not say which one.", text, Topic(TopicKind.REFUSED)
    )


def _count(n: int) -> Reply:
    thought = f"Counting to {n} slowly, one number every 200 ms, so the turn can be cancelled."
    text = "".join(f"{i}\n" for i in range(1, n + 1))
    return Reply(thought, text, Topic(TopicKind.COUNTED, count=n), line_by_line=True)


_RUN_HELP = {
    False: "once you allow it, your client runs it in a terminal you can watch (simulated when your "
    "client has none).",
    True: "once you allow it, I run it and its output streams into the page as it comes.",
}


def _help(workspace: Workspace, protocol: int, recognised: bool) -> Reply:
    intro = "" if recognised else "I didn't recognise that request, but here is what I can do.\n\n"
    presets = "|".join(SCENARIO_PRESETS)
    text = f"""{intro}I'm the **webclient demo agent**: a small agent that works offline on the files of \
this workspace ({code(workspace.root.name)}), so you can try everything webclient shows. Try:

- `list files` or `ls` (also `list files in src`): list a directory.
- `show README.md` (or `cat`, `open`): show a file. Attach a file link instead of typing its name.
- `explain app.py`: summarise a file (lines, size, Python definitions, Markdown headings).
- `count to 10` or `slow`: stream slowly, so you can try cancelling.
- `edit app.py`: a plan, a read and an edit with a diff, then I ask your permission before writing.
- `run tests` or `search WORD`: a (simulated) test run, or a search of the workspace.
- `run COMMAND`, e.g. `run ls -l`: {_RUN_HELP[protocol >= 2]}
- `/mode code`: switch my mode (the Mode selector above does it too).
- Attach an image and I'll tell you what I received.

To test prompt suggestions in a client:

- `/suggest <JSON list>`: send exactly that list as `suggestions`.
- `/suggest-demo {presets}`: send a preset list.
- `/suggest-delay <ms>`: send the next prediction that long after its turn ends."""
    thought = (
        "The user wants to know what I can do; I'll list my commands with examples."
        if recognised
        else "I don't recognise this request, so I'll explain what I can do."
    )
    return Reply(thought, text, Topic(TopicKind.HELP))
