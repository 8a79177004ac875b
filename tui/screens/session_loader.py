"""The session browser's view of the server: sessions of the current directory, newest first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.app.app import OctuiApp


class AppSessionLoader:
    """The session browser's view of the server: sessions of this directory, newest first."""

    def __init__(self, app: OctuiApp) -> None:
        self.app = app

    async def load(self, cursor: str | None, search: str | None,
                   roots_only: bool) -> tuple[list[Any], str | None]:
        assert self.app.client is not None
        sessions, nxt = await self.app.client.list_sessions(
            limit=50, cursor=cursor, search=search, directory=self.app.spec.directory,
            roots_only=roots_only)
        for info in sessions:
            self.app.store.upsert_info(info)
        return sessions, nxt

    def busy_ids(self) -> set[str]:
        return self.app.store.busy_ids()
