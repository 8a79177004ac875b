"""Drive the real :class:`~tui.app.app.OctuiApp` headless (``App.run_test``) against the real server.

``running_app(server)`` starts the app with a :class:`~tui.app.app.ConnectSpec` pointing at
``server.url`` (Basic auth with the server's password, the server's project directory) and yields
an :class:`AppDriver` once the event stream is connected. Every wait here is bounded; a timeout
fails with what was on screen and what the store held, so a failing test explains itself.
"""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from rich.console import Console
from textual.pilot import Pilot
from textual.screen import Screen

from tests.e2e.server import RealServer
from tui.app.app import ConnectSpec, OctuiApp
from tui.screens.key_guard import keys_taken
from tui.state.transcript import Message, SessionState, TextBlock, ToolCall

__all__ = ["SIZE", "AppDriver", "running_app", "session_text", "tools_of"]

SIZE = (120, 40)
POLL_S = 0.02
DEFAULT_TIMEOUT = 10.0

T = TypeVar("T")


def session_text(state: SessionState, kind: str = "text") -> str:
    """All ``kind`` ("text" or "reasoning") blocks of the session's assistant messages, joined."""
    return "".join(
        part.text
        for message in state.ordered_messages()
        if message.role == "assistant"
        for part in message.parts
        if isinstance(part, TextBlock) and part.kind == kind
    )


def tools_of(state: SessionState) -> list[ToolCall]:
    """Every tool call of the session, in transcript order."""
    return [
        part
        for message in state.ordered_messages()
        for part in message.parts
        if isinstance(part, ToolCall)
    ]


class AppDriver:
    """A running app plus its pilot, with bounded waits on the store and the screen."""

    def __init__(self, app: OctuiApp, pilot: Pilot[int]) -> None:
        self.app = app
        self.pilot = pilot

    # -- reading ------------------------------------------------------------------------------

    @property
    def main(self) -> Any:
        """The MainScreen (typed loosely: it is a Screen subclass with app-specific methods)."""
        return self.app.screen_main()

    @property
    def session_id(self) -> str | None:
        sid: str | None = self.main.session_id
        return sid

    @property
    def state(self) -> SessionState:
        """The open session's state (fails when none is open)."""
        sid = self.session_id
        assert sid is not None, "no session is open"
        return self.app.store.session(sid)

    def screen_text(self) -> str:
        """The whole composed screen (the active screen over the ones below it) as plain text."""
        width, height = self.app.size
        console = Console(
            width=width,
            height=height,
            file=io.StringIO(),
            force_terminal=True,
            color_system="truecolor",
            record=True,
            legacy_windows=False,
            safe_box=False,
        )
        update = self.app.screen._compositor.render_update(
            full=True, screen_stack=self.app._background_screens
        )
        console.print(update)
        return console.export_text(styles=False)

    def messages(self) -> list[Message]:
        return self.state.ordered_messages()

    def describe(self) -> str:
        """A short dump of the app state for failure messages."""
        lines = [f"screen: {type(self.app.screen).__name__}; stream: {self.app.stream_state.phase}"]
        sid = self.session_id
        if sid is not None and sid in self.app.store.sessions:
            state = self.app.store.sessions[sid]
            lines.append(f"session {sid}: busy={state.busy} inbox={list(state.inbox)}")
            for message in state.ordered_messages():
                parts = ", ".join(
                    f"{p.kind}:{p.text[:40]!r}" if isinstance(p, TextBlock) else f"tool {p.name}:{p.status}"
                    for p in message.parts
                )
                error = f" error={message.error.message!r}" if message.error else ""
                lines.append(f"  {message.role} {message.id} finish={message.finish}{error} "
                             f"text={message.text[:40]!r} [{parts}]")
        return "\n".join(lines)

    # -- waiting ------------------------------------------------------------------------------

    async def wait_until(
        self, predicate: Callable[[], T | None], what: str, timeout: float = DEFAULT_TIMEOUT
    ) -> T:
        """Poll ``predicate`` (letting the app run) until it is truthy; return its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() >= deadline:
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {what}\n{self.describe()}\n"
                    f"--- screen ---\n{self.screen_text()}"
                )
            await asyncio.sleep(POLL_S)

    async def wait_for_text(self, text: str, timeout: float = DEFAULT_TIMEOUT) -> str:
        """Wait until ``text`` is on screen; returns the screen."""
        await self.pilot.pause()
        return await self.wait_until(
            lambda: (screen if text in (screen := self.screen_text()) else ""), f"{text!r} on screen", timeout
        )

    async def wait_for_screen(self, kind: type[Screen[Any]], timeout: float = DEFAULT_TIMEOUT) -> Any:
        return await self.wait_until(  # (taking keys: one that opened by itself holds them a moment)
            lambda: self.app.screen if isinstance(self.app.screen, kind)
            and keys_taken(self.app.screen, time.perf_counter()) else None,
            f"a {kind.__name__} on top",
            timeout,
        )

    async def wait_for_session(self, timeout: float = DEFAULT_TIMEOUT) -> str:
        """Wait until a session is open on the main screen; returns its id."""
        return await self.wait_until(lambda: self.session_id, "a session to open", timeout)

    async def wait_for_message(
        self, where: Callable[[Message], bool], what: str, timeout: float = DEFAULT_TIMEOUT
    ) -> Message:
        def find() -> Message | None:
            sid = self.session_id
            if sid is None or sid not in self.app.store.sessions:
                return None
            return next((m for m in self.app.store.sessions[sid].ordered_messages() if where(m)), None)

        return await self.wait_until(find, what, timeout)

    async def wait_idle(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        await self.wait_until(lambda: not self.state.busy, "the session to go idle", timeout)

    # -- acting -------------------------------------------------------------------------------

    async def type_prompt(self, text: str, key: str = "enter", *, by_keys: bool = False) -> None:
        """Enter ``text`` in the composer, press ``key`` (enter / alt+enter), wait until it is sent.

        ``by_keys`` types every character as a key press (about 70 ms a key under the pilot);
        otherwise the text arrives as one bracketed paste, as a terminal delivers pasted text.
        Sent means the composer emptied itself, which it does once the server took the prompt.
        """
        from textual import events

        from widgets.composer.composer import Composer

        composer = self.main.query_one(Composer)
        assert composer.text == "", f"composer not empty: {composer.text!r}"
        composer.focus()
        await self.pilot.pause()
        if by_keys:
            await self.pilot.press(*text)
        else:
            self.app.post_message(events.Paste(text))  # as the driver does: the app forwards it
            await self.pilot.pause()
        assert composer.text == text, f"composer holds {composer.text!r}, typed {text!r}"
        await self.pilot.press(key)
        await self.wait_until(lambda: composer.text == "", f"the prompt {text!r} to be sent")


@asynccontextmanager
async def running_app(
    server: RealServer,
    *,
    session_id: str | None = None,
    size: tuple[int, int] = SIZE,
    connect_timeout: float = DEFAULT_TIMEOUT,
) -> AsyncIterator[AppDriver]:
    """Start octui headless against ``server`` and wait (bounded) until its stream is connected."""
    spec = ConnectSpec(
        url=server.url,
        username=server.username,
        password=server.password,
        directory=str(server.project_dir),
        session_id=session_id,
    )
    app = OctuiApp(spec)
    async with app.run_test(size=size) as pilot:
        driver = AppDriver(app, pilot)
        await driver.wait_until(
            lambda: app.session.is_ready and app.stream_state.phase == "connected",
            "the event stream to connect",
            connect_timeout,
        )
        if session_id is not None:
            await driver.wait_until(lambda: driver.session_id == session_id, f"session {session_id} to open")
        yield driver
