"""Drives the agent through the situations the RFD rules about: one agent process per capability form.

Per protocol version: a process for each way of NOT advertising `promptSuggestions`, one for each offer
(`{}`, then image, audio and embeddedContext one at a time), the baseline one with two sessions and a
prompt sent the moment the previous turn ended, and one more that loads (v1) or resumes with a replay
(v2) the session the baseline run left behind. Every step has a deadline; every process is stopped,
its whole group, whatever happened.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from webclient.acp.capabilities import OFFERS, UNADVERTISED_FORMS, probe_initialize
from webclient.acp.endpoint import AgentEndpoint
from webclient.acp.link import AgentLink
from webclient.acp.models import AgentInfo, Notice, NoticeLevel, PromptBlock, TextPart
from webclient.acp.negotiate import VersionMismatch, connection_for
from webclient.acp.process import AgentProcess
from webclient.acp.remote.endpoint import RemoteAgent
from webclient.check.recorder import Numbering, Recorder
from webclient.check.sandbox import Sandbox
from webclient.errors import AgentError, AgentExitedError, AgentRequestError

BASELINE = "offer-baseline"
REPLAY = "replay"
# The declaration of a client that offers the update and also looks for the legacy `_meta` channel (what
# `webclient --jetbrains-air-meta` sends); the other, without the capability, is UNADVERTISED_FORMS's.
AIR_OFFER = "offer-air-meta"
AIR_META: dict[str, Any] = {"jetbrains": {"air": {}}}
Progress = Callable[[str], None]
T = TypeVar("T")


@dataclass(frozen=True)
class Plan:
    """What to run: the agent, where, which prompts, how patiently."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    prompts: tuple[str, ...]
    step_timeout: float = 60.0
    settle: float = 1.0  # the quiet time after each turn in which a prediction may still arrive
    jobs: int = 4  # agent processes at once (the declarations after the baseline are independent)
    groups: frozenset[str] = frozenset({"unadvertised", "offers", "legacy", "replay"})  # past the baseline
    # A remote agent (ws://, wss://, http://, https://): reached there instead of started; its sessions
    # open in `remote_cwd` on its own machine, and it gets this machine's files only with `local_tools`.
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    remote_cwd: str = ""
    local_tools: bool = True


@dataclass
class Run:
    """One agent process under one capability form, and what it showed."""

    version: int
    form: str
    recorder: Recorder
    info: AgentInfo | None = None
    sessions: list[str] = field(default_factory=list)
    turns: int = 0
    replayed: str | None = None  # the session loaded or resumed with a replay
    error: str | None = None
    unsupported: bool = False  # the agent does not speak this version
    exit_code: int | None = None  # the agent's own exit code, when it ended by itself
    stderr: tuple[str, ...] = ()  # the last lines it wrote to stderr, when it never got initialized

    @property
    def name(self) -> str:
        return f"v{self.version} {self.form}"

    @property
    def advertised(self) -> bool:
        return self.form.startswith("offer-") or self.form == REPLAY


class Runner:
    """Runs every form of one protocol version; `runs` holds them in order."""

    def __init__(self, plan: Plan, sandbox: Sandbox, numbering: Numbering, progress: Progress) -> None:
        self.plan = plan
        self.sandbox = sandbox
        self.numbering = numbering
        self.progress = progress

    def forms(self) -> list[str]:
        """The capability forms run per version, in report order: the baseline, and the groups asked for."""
        groups = self.plan.groups
        unadvertised = list(UNADVERTISED_FORMS) if "unadvertised" in groups else []
        offers = [f for f in OFFERS if f != BASELINE] if "offers" in groups else []
        legacy = [AIR_OFFER] if "legacy" in groups else []
        return [BASELINE, *unadvertised, *offers, *legacy, *([REPLAY] if "replay" in groups else [])]

    async def run_all(self, version: int, done: Callable[[Run], None]) -> list[Run]:
        """The baseline first (an agent that cannot get through it would fail every other run too), then
        the other declarations and the replay of the session the baseline left behind side by side (each
        its own process, at most `plan.jobs` at once). The runs come back in `forms()` order."""
        base = await self._one(version, BASELINE)
        done(base)
        if base.unsupported or base.info is None:
            return [base]
        gate = asyncio.Semaphore(self.plan.jobs)

        async def one(form: str) -> Run:
            async with gate:
                run = await self._one(version, form)
            done(run)
            return run

        async def replay() -> Run:
            async with gate:
                run = await self._one(version, REPLAY, load=base.sessions[0] if base.sessions else None)
            done(run)
            return run

        middle = [one(f) for f in self.forms() if f not in (BASELINE, REPLAY)]
        return [base, *await asyncio.gather(*middle, *([replay()] if REPLAY in self.forms() else []))]

    async def _one(self, version: int, form: str, *, load: str | None = None) -> Run:
        recorder = Recorder(f"v{version} {form}", self.numbering, self.sandbox)
        run = Run(version, form, recorder)
        params = _initialize(version, form, self.plan.local_tools)
        recorder.local_tools = self.plan.local_tools
        process: AgentEndpoint
        if self.plan.url is not None:
            process = RemoteAgent(self.plan.url, self.plan.headers)
        else:
            process = AgentProcess(self.plan.argv, self.sandbox.cwd, env=self.plan.env)
        link = connection_for(version, process, recorder, params, self.plan.step_timeout)
        recorder.note(f"check: {run.name}: {process.description}")
        try:
            self.progress(f"{run.name}: initialize: waiting for the agent's answer")
            run.info = await self._step(link.start(), "initialize")
            await self._steps(run, link, load)
        except VersionMismatch as exc:
            run.unsupported = True
            run.error = str(exc)
        except AgentExitedError as exc:
            run.error = str(exc) or type(exc).__name__
            run.exit_code = exc.exit_code
            run.stderr = tuple(exc.stderr_tail)
            recorder.warn(run.error)
        except AgentRequestError as exc:
            # The agent refused a step (a sign-in it needs, say): it ends the run, but it is no mistake.
            run.error = str(exc)
            recorder.notify(Notice(level=NoticeLevel.INFO, text=f"the run ended: {run.error}"), None)
        except (AgentError, TimeoutError) as exc:
            run.error = str(exc) or type(exc).__name__
            recorder.warn(run.error)
        finally:
            with contextlib.suppress(Exception):
                await link.stop()
        if run.info is None and not run.stderr and isinstance(process, AgentProcess):
            # An agent that never answered: what it said on the way is the first thing to read.
            run.stderr = tuple(process.stderr_tail())
        return run

    @property
    def cwd(self) -> Path:
        """Where sessions open: the throwaway copy, or a remote agent's own directory."""
        return Path(self.plan.remote_cwd) if self.plan.url is not None else self.sandbox.cwd

    async def _steps(self, run: Run, link: AgentLink, load: str | None) -> None:
        cwd = self.cwd
        if run.form == REPLAY:
            if load is None or run.info is None or not run.info.capabilities.load_session:
                run.recorder.note("check: the agent offers no session/load (v1) or replaying resume (v2)")
                return
            self.progress(f"{run.name}: replay of {load}: waiting for the replay to end")
            run.recorder.mark("load", load)
            await self._step(link.load_session(load, cwd), "the replay")
            run.recorder.mark("load_end", load)
            run.replayed = load
            await asyncio.sleep(self.plan.settle)
            return
        first = await self._step(link.new_session(cwd), "session/new")
        run.sessions.append(first.session_id)
        if run.form == BASELINE:
            second = await self._step(link.new_session(cwd), "a second session/new")
            run.sessions.append(second.session_id)
        # Without the capability one turn shows whether the agent gates; offers need every prompt.
        prompts = self.plan.prompts if run.advertised else self.plan.prompts[:1]
        for index, text in enumerate(prompts):
            await self._turn(run, link, first.session_id, text, f"prompt {index + 1}/{len(prompts)}")
        if run.form != BASELINE:
            return
        # A prompt sent the moment the previous turn ended: a prediction for that turn, if it was still
        # pending, must now be discarded.
        await self._turn(run, link, first.session_id, prompts[0], "crossing 1/2", settle=False)
        await self._turn(run, link, first.session_id, prompts[-1], "crossing 2/2")
        await self._turn(run, link, run.sessions[1], prompts[0], "second session")

    async def _turn(
        self, run: Run, link: AgentLink, session: str, text: str, label: str, settle: bool = True
    ) -> None:
        self.progress(f"{run.name}: {label}: waiting for the turn to end")
        run.recorder.note(f"check: {label}: {text}")
        await self._step(
            link.prompt(session, [PromptBlock(part=TextPart(text=text))]), f"the turn of {label}"
        )
        run.turns += 1
        if settle:
            self.progress(f"{run.name}: {label}: waiting up to {self.plan.settle:g} s for a prediction")
            await self._settle(run, session)

    async def _settle(self, run: Run, session: str) -> None:
        """Wait after a turn until the agent predicts (a non-empty list for `session`) or `settle` ends:
        an agent that predicts at once costs no wait, one that never does the whole settle time."""
        since = len(run.recorder.events)
        deadline = asyncio.get_running_loop().time() + self.plan.settle
        listed = run.recorder.listed
        while True:
            listed.clear()  # before looking: a list that comes after the look sets it again
            left = deadline - asyncio.get_running_loop().time()
            if run.recorder.predicted(session, since) or left <= 0:
                return
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await listed.wait()

    async def _step(self, step: Coroutine[Any, Any, T], what: str) -> T:
        """Await one step within the deadline; TimeoutError says which step it was."""
        try:
            async with asyncio.timeout(self.plan.step_timeout):
                return await step
        except TimeoutError:
            raise TimeoutError(f"{what} did not finish within {self.plan.step_timeout:g} s") from None


def _initialize(version: int, form: str, local_tools: bool = True) -> dict[str, Any]:
    """The `initialize` params of a run: its capability form's (the replay: the baseline's); without
    `local_tools` (a remote agent), no `fs` and no `terminal`, as the server declares them."""
    params = probe_initialize(version, BASELINE if form in (REPLAY, AIR_OFFER) else form)
    caps = params["clientCapabilities" if version == 1 else "capabilities"]
    if form == AIR_OFFER:
        caps["_meta"] = AIR_META
    if not local_tools:
        caps.pop("fs", None)
        caps.pop("terminal", None)
    return params
