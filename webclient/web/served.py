"""What the app holds for its routes, handed to each route as a dependency.

`create_app` builds the session registry and the settings' services once and keeps them on the app's
state; the routers are module-level and read them through these dependencies, so a route names what it
uses in its signature instead of closing over `create_app`'s locals.
"""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import Depends
from starlette.requests import HTTPConnection

from webclient.domain.registry import SessionRegistry
from webclient.settings import Settings
from webclient.views.live import LiveHub


def _registry(connection: HTTPConnection) -> SessionRegistry[LiveHub]:
    return cast("SessionRegistry[LiveHub]", connection.app.state.registry)


def _settings(connection: HTTPConnection) -> Settings:
    return cast(Settings, connection.app.state.settings)


# The sessions this server runs (HTTP routes and WebSockets alike).
Sessions = Annotated[SessionRegistry[LiveHub], Depends(_registry)]
# The server's settings, as it started.
ServerSettings = Annotated[Settings, Depends(_settings)]
