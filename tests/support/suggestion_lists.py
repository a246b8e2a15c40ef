"""Suggestion lists of a given size for the fold's tests: realistic prompts of nearly 80 characters, the
longest a short suggestion is (webclient/views/fold.py promises a short list shows whole)."""

from __future__ import annotations

_SENTENCES = (
    "Explain how the session store keeps each transcript and where it writes it",
    "List the tests that start a real agent process and say which could share one",
    "Show me the functions that render a suggestion and what each of them escapes",
    "Compare the two protocol versions the client speaks and what differs on wire",
    "Find the places where an error is swallowed and suggest the message to show",
    "Summarise what changed in the last five commits and who should review them",
    "Check the dependencies for versions pinned too loosely and say which to fix",
    "Write a short checklist for the first public release, most important first",
)

SHORT = 80


def eighty(count: int) -> list[str]:
    """`count` distinct prompts of 76 to 80 characters, each numbered (#1, #2, ...)."""
    prompts = []
    for i in range(count):
        sentence = _SENTENCES[i % len(_SENTENCES)]
        words = sentence.split(" ")
        while len(f"{' '.join(words)} #{i + 1}") > SHORT:
            words.pop()
        prompts.append(f"{' '.join(words)} #{i + 1}")
    return prompts
