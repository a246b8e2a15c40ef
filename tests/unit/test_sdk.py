"""Loading the ACP SDK: the docstring step is skipped, only during that import, and the models still work.

Each check runs in a fresh interpreter: this test process imported the SDK long ago.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# What a fresh interpreter reports after its imports: a documented SDK field's description, whether
# pydantic's hook is its own function again, and a model validated and dumped to the wire.
PROBE = """
import json
from pydantic._internal import _docs_extraction, _fields
import acp.schema as schema
caps = schema.AgentCapabilities.model_validate({"loadSession": True, "promptCapabilities": {"image": True}})
print(json.dumps({
    "description": schema.AgentCapabilities.model_fields["load_session"].description,
    "hook_restored": _fields.extract_docstrings_from_cls is _docs_extraction.extract_docstrings_from_cls,
    "dumped": caps.model_dump(by_alias=True, exclude_none=True),
}))
"""


def probe(first_import: str) -> dict[str, object]:
    code = f"{first_import}\n{PROBE}"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.fixture(scope="module")
def plain() -> dict[str, object]:
    """What a plain `import acp` gives."""
    return probe("")


def test_a_plain_import_of_the_sdk_reads_its_field_docstrings(plain: dict[str, object]) -> None:
    # The control: the field below is documented in the SDK, so the next test's None means something.
    assert plain["description"] == "Whether the agent supports `session/load`."


def test_the_protocol_layer_loads_the_sdk_without_field_docstrings_and_restores_the_hook(
    plain: dict[str, object],
) -> None:
    fast = probe("import webclient.acp")
    assert fast["description"] is None
    assert fast["hook_restored"] is True
    assert fast["dumped"] == plain["dumped"]
    assert fast["dumped"] == {
        "loadSession": True,
        "promptCapabilities": {"image": True, "audio": False, "embeddedContext": False},
        "mcpCapabilities": {"http": False, "sse": False, "acp": False},
        "sessionCapabilities": {},
        "auth": {},
    }


def test_the_demo_agent_gets_the_fast_import_too() -> None:
    assert probe("import webclient.demo_agent.wire")["description"] is None


def test_the_command_line_does_not_load_the_sdk_before_it_prints_the_address() -> None:
    code = "import sys, webclient.web.cli; print('acp' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "False"
