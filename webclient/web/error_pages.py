"""The pages a browser sees when the server refuses it: what happened and what to do, styled like the app.

They name no secret (never the token) and say nothing an agent wrote; their text is ours only.
"""

from __future__ import annotations

from dataclasses import dataclass

from webclient.views.render import error_page


@dataclass(frozen=True)
class Refusal:
    """Why a request was refused, in words for the person at the browser."""

    status: int
    title: str
    what_happened: str
    what_to_do: str
    renews: bool = False  # the page tries the origin's sign-in key first (static/sign_in_key.js)

    def html(self) -> str:
        return error_page(self.status, self.title, self.what_happened, self.what_to_do, renews=self.renews)


RESTART_HINT = (
    "open the newest link webclient printed in its terminal (the one that ends in ?token=…). "
    "If webclient is not running any more, start it again (make run) and open the link it prints."
)

BAD_HOST = Refusal(
    400,
    "Open webclient at its own address",
    "This page was asked for under a name webclient does not answer to, which protects it from other sites.",
    "open the address webclient printed (it starts with http://127.0.0.1).",
)
CROSS_ORIGIN = Refusal(
    403,
    "Request refused",
    "Another site tried to make webclient act. webclient only takes actions from its own pages.",
    "use webclient from the page it opened for you.",
)
NOT_SIGNED_IN = Refusal(
    401,
    "This browser is not signed in to webclient",
    "webclient lets in only the browser that opened the link it printed when it started. "
    "Each start makes a new link, so after a restart the old page no longer works.",
    RESTART_HINT,
    renews=True,
)
NO_KEY = Refusal(
    403,
    "This page has no sign-in key",
    "The cookie alone opens nothing: changes need the key the link webclient printed gave this page, "
    "and this browser's storage for the address has none (it was cleared, or this is another browser "
    "profile).",
    "Open the link webclient printed when it started, in this browser; if it says the link was used, "
    "restart webclient for a new one.",
)
TOO_MANY_COOKIES = Refusal(
    431,
    "Your browser sent too many cookies",
    "Cookies are not kept apart by port: every program serving on this machine's 127.0.0.1 shares them, "
    "and together they made your browser's Cookie header too large to read. webclient has cleared the "
    "cookies it was sent (other local programs that set them may sign you out), and gets its own back "
    "with this page's sign-in key.",
    "reload this page. If it still says this, open the link webclient printed when it started; if that "
    "link was used, restart webclient for a new one.",
    renews=True,
)
WRONG_TOKEN = Refusal(
    401,
    "This link is out of date",
    "The link's token is not the one webclient made when it started: it is from an earlier start,"
    " or mistyped.",
    RESTART_HINT,
)
SPENT_TOKEN = Refusal(
    401,
    "This link was already used",
    "The link webclient printed signs in one browser, once, and it has done so.",
    "in the browser that opened it first, open the printed link again: it still works there. "
    "Anywhere else, restart webclient: it prints a new link.",
)
NO_SUCH_SESSION = Refusal(
    404,
    "This session is not open",
    "It was closed, or webclient was restarted since this page was opened.",
    "go to the start page (/) to see the open sessions; stored ones can be loaded from the sidebar.",
)
