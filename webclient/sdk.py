"""Loading the ACP SDK, about 40% faster than a plain `import acp`.

The SDK builds its ~270 pydantic models when it is imported, and its base model sets pydantic's
`use_attribute_docstrings`. For every model, pydantic then walks the call stack to find the class in its
source file and parses that block again, to copy each field's docstring into the field's `description`.
That is 150 of the 360 ms the import takes here, paid by every server and every demo agent at start (and
by each of the test suite's hundreds of them). The descriptions only show in JSON Schema output, and
nothing in webclient or its demo agent produces the SDK's schema.

`load()` imports the SDK with pydantic finding no field docstrings, the state pydantic is already in when a
model's source cannot be read (a frozen app, an interactive session). Validation and serialization are
unchanged. The packages that import the SDK (`webclient.acp`, `webclient.demo_agent`) call it in their
`__init__.py`, so it runs before any of their modules imports the SDK.

The hook is a pydantic internal (`pydantic._internal._fields.extract_docstrings_from_cls`), swapped only
for the duration of the import. If a pydantic release moves it, `load()` imports the SDK the plain way,
only slower, and `tests/unit/test_sdk.py` fails to say so.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

HOOK = "extract_docstrings_from_cls"


def load() -> None:
    """Import the SDK (`acp` and the schema it loads) without field docstrings, unless already loaded."""
    if "acp" in sys.modules:
        return
    with _no_field_docstrings():
        importlib.import_module("acp")


@contextmanager
def _no_field_docstrings() -> Iterator[None]:
    from pydantic._internal import _fields

    original = getattr(_fields, HOOK, None)
    if original is None:
        yield
        return
    setattr(_fields, HOOK, _no_docstrings)
    try:
        yield
    finally:
        setattr(_fields, HOOK, original)


def _no_docstrings(cls: type[Any], use_inspect: bool = False) -> dict[str, str]:
    return {}
