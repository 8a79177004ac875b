"""The session browser's source of pages: sessions of the current directory, newest first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.app.app import OctuiApp


class SessionPages:
    """Pages of sessions for ``SessionsScreen``, read through the app's session service."""

    def __init__(self, app: OctuiApp) -> None:
        self.app = app

    async def load(self, cursor: str | None, search: str | None,
                   roots_only: bool) -> tuple[list[Any], str | None]:
        return await self.app.session.list_sessions(cursor, search, roots_only)

    def busy_ids(self) -> set[str]:
        return self.app.store.busy_ids()
