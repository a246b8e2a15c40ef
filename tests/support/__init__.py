"""What the tests share, one module per concept; test modules import from here and never from each other.

- `polling`: the one way to wait (`Deadline`, `wait_until`, `eventually`): a deadline and what was awaited.
- `html`: the one HTML parser: a fragment's tags, text and `problems`; a tab's `Page` and wait predicates.
- `dom`: a tab's DOM built from its frames as htmx's out-of-band swaps build it, serialised to compare.
- `markdown_corpus`: Markdown answers of every construct, and random chunkings of them, for streaming.
- `live`: a real server (`run_server` subprocess, `serve_in_thread`), its WebSocket `Tab`, scripted agents.
- `inprocess`: the app in the test's process through Starlette's TestClient, with a real agent.
- `driver`: `SessionDriver`, the domain's registry with real agents, driven as a tab drives it.
- `processes`: processes seen through /proc (alive, reaped, children).
- `demo_agent`, `demo_agent_v2`: a client that drives the demo agent over stdio (ACP v1 and v2).
- `sessions`: a fresh session on a running server, made through the app (browser tests).
- `browser`, `pages`, `layouts`, `accessibility`, `screenshots`, `chromium`: the browser tests' helpers.
- `workspace`: the files the agents see; `streams`: stand-ins for asyncio streams.
- `tmpfs`: a small real disk for the tests that fill one.
- `kept`: kept transcripts as the store's and the database's tests write them.
- `studies`: a server running a presentation study (browser tests of studies and presets).
- `remote_agents`: real ACP servers on loopback (acpremote, the SDK's `AcpServer`) for remote-agent tests.
"""
