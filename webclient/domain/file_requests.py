"""The agent's `fs/*` requests in one session: reads and writes inside the session's directories only,
each write shown in the transcript, and a write to a protected path held until the user allows it once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from webclient.acp.models import PermissionOutcome, PermissionRequest
from webclient.domain.approval import WriteNotApproved, approves, protected_write_request
from webclient.domain.files import FileAccess
from webclient.domain.items import FileWriteItem
from webclient.domain.protected import ProtectedPaths
from webclient.domain.state import SessionState, TurnState

Ask = Callable[[PermissionRequest], Awaitable[PermissionOutcome]]


class FileRequests:
    """Serves one session's `fs/read_text_file` and `fs/write_text_file`. `ask` puts a question of
    ours to the user (it ends with the turn); `mark` takes the change keys."""

    def __init__(
        self,
        files: FileAccess,
        protected: ProtectedPaths | None,
        state: SessionState,
        mark: Callable[[Iterable[str]], None],
        ask: Ask,
    ) -> None:
        """`protected`: writes there wait for the user's approval (None: no path is protected)."""
        self._files = files
        self._protected = protected
        self._state = state
        self._mark = mark
        self._ask = ask

    async def read(self, path: str, line: int | None, limit: int | None) -> str:
        """`fs/read_text_file` (FileAccessError outside the session's directories)."""
        return await self._files.read_text_async(path, line, limit)

    async def write(self, path: str, content: str) -> None:
        """`fs/write_text_file`; the write shows in the transcript.

        A write to a protected path waits for the user's Allow once; anything else raises
        `WriteNotApproved` and the file stays as it was.
        """
        target = self._files.resolve(path)  # refused outright first: a path we never write needs no question
        if self._protected is not None and self._protected.is_protected(path):
            await self._approve(path, content)
            if self._files.resolve(path) != target:  # a symlink on the way was changed while we asked
                raise WriteNotApproved(
                    f"{path!r} leads somewhere else than when you allowed the write; nothing was written"
                )
        result = await self._files.write_text_async(path, content)
        item = FileWriteItem(path=str(result.path), old_text=result.old_text, new_text=result.new_text)
        self._mark(self._state.add_item(item))

    async def _approve(self, path: str, content: str) -> None:
        refusal = f"{path!r} is protected (a write there can run code)"
        old_text = await self._files.existing_text_async(path)
        # Checked after the read, with no await between it and the question's registration: a turn
        # that ends meanwhile cannot leave the question open (its end answers it, or it is never asked).
        if self._state.turn is not TurnState.WORKING or self._state.session_id is None:
            # Outside a turn, or after Cancel, there is nobody to ask: the end of the turn means no.
            raise WriteNotApproved(
                f"{refusal} and no turn is running to ask the user in; nothing was written"
            )
        request = protected_write_request(self._state.session_id, path, old_text, content)
        if not approves(await self._ask(request)):
            raise WriteNotApproved(f"{refusal} and the user did not allow the write; nothing was written")
