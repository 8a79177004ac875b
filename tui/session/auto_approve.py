"""Answering permission asks on the user's behalf, as the session's permission mode says.

No Textual. Neither server dialect lets a client give a session its own permission ruleset (v2
``POST /api/session`` takes ``{id, title, agent, model, location}`` only and has no session update
route; ``Agent.permissions`` is read-only), so octui applies modes client-side on both: it answers
``once`` itself (never ``always``) the moment an ask arrives, before any dialog opens.

* ``ModeBook``: the mode of each root session, persisted in the state dir (``SavedState``). A
  subagent uses its root's mode.
* ``AutoApprover``: looks at every batch of store changes; claims the asks its mode answers (so
  ``AskFlow`` never opens them), replies ``once``, and leaves a visible record: a notice line in
  the transcript ("auto-allowed: bash `make test`") and an entry in ``history`` for the inbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tui.client.errors import OctuiError
from tui.protocol.models import PermissionReply, PermissionRequest
from tui.state import tree_nav
from tui.state.asks import CurrentFile, permission_preview, written_file
from tui.state.changes import AsksChanged, Change, TranscriptChanged
from tui.state.modes import DEFAULT_MODE, Mode, decide, parse_mode
from tui.state.notices import insert_notice
from tui.state.store import Store
from tui.state.transcript import Ask
from tui.storage.saved_state import SavedState
from tui.text.sanitize import one_line

__all__ = ["AutoAnswer", "AutoApprover", "ModeBook", "ask_target", "notice_key"]

log = logging.getLogger("octui")

ReplyFn = Callable[[str, str, PermissionReply], Awaitable[None]]
ChangeSink = Callable[[list[Change]], None]
SpawnFn = Callable[[Coroutine[Any, Any, None]], None]
ReadFileFn = Callable[[str, str], Awaitable[CurrentFile]]  # (session id, path): the file as it is
READ_WAIT_S = 3.0  # an auto-allowed write waits this long at most for the file it replaces

HISTORY_MAX = 200
MAX_DEPTH = 64


class ModeBook:
    """Per-root permission modes and the "full access confirmed" flag, kept in the state dir.

    Reads are cached; a state dir that cannot be written keeps the value for this run only.
    """

    MODE_KEY = "permission_mode"
    CONFIRMED_KEY = "full_access_confirmed"

    def __init__(self, state: SavedState | None = None) -> None:
        self._state = state
        self._modes: dict[str, Mode] = {}
        self._confirmed: dict[str, bool] = {}

    @property
    def state(self) -> SavedState:
        if self._state is None:
            self._state = SavedState()
        return self._state

    @staticmethod
    def root(store: Store, session_id: str) -> str:
        """The topmost ancestor of ``session_id`` (by ``parentID`` or the spawning tool call)."""
        current = store.root_of(session_id)  # parentID chain: cheap, and almost always enough
        seen = {session_id, current}
        for _ in range(MAX_DEPTH):
            # A child whose session.created has not arrived yet is known only by its tool link.
            state = store.sessions.get(current)
            if state is not None and state.parent_id:
                parent: str | None = state.parent_id
            else:
                parent = tree_nav.parent_of(store, current) if current not in store.sessions or \
                    store.sessions[current].info is None else None
            if parent is None or parent in seen:
                break
            seen.add(parent)
            current = parent
        return current

    def mode_of(self, store: Store, session_id: str) -> Mode:
        """The mode in force for ``session_id``: its root's."""
        return self.get(self.root(store, session_id))

    def get(self, root_id: str) -> Mode:
        mode = self._modes.get(root_id)
        if mode is None:
            try:
                mode = parse_mode(self.state.get(root_id, self.MODE_KEY))
            except OSError:
                mode = DEFAULT_MODE
            self._modes[root_id] = mode
        return mode

    def set(self, root_id: str, mode: Mode) -> bool:
        """Remember ``mode`` for ``root_id``; False when it could not be saved (kept for this run)."""
        self._modes[root_id] = mode
        try:
            self.state.set(root_id, self.MODE_KEY, None if mode is DEFAULT_MODE else mode.value)
        except OSError as exc:
            log.warning("could not save the permission mode: %s", exc)
            return False
        return True

    def full_confirmed(self, root_id: str) -> bool:
        known = self._confirmed.get(root_id)
        if known is None:
            try:
                known = self.state.get(root_id, self.CONFIRMED_KEY) is True
            except OSError:
                known = False
            self._confirmed[root_id] = known
        return known

    def confirm_full(self, root_id: str) -> None:
        self._confirmed[root_id] = True
        with contextlib.suppress(OSError):
            self.state.set(root_id, self.CONFIRMED_KEY, True)


@dataclass
class AutoAnswer:
    """One ask octui answered itself."""

    ask_id: str
    session_id: str
    action: str
    target: str
    mode: Mode
    time: float
    message_id: str | None = None  # the assistant message of the tool call: the notice goes after it
    failed: str = ""  # the error, when the reply could not be sent

    @property
    def text(self) -> str:
        """The transcript line, e.g. "auto-allowed: bash `make test`"."""
        what = f"{self.action} `{self.target}`" if self.target else self.action
        if self.failed:
            return f"auto-allow failed: {what} ({one_line(self.failed, 80)}); asking you instead"
        return f"auto-allowed: {what}"


def notice_key(ask_id: str) -> str:
    return f"auto:{ask_id}"


def ask_target(store: Store, ask: PermissionRequest) -> str:
    """What the ask is about, in one short line: the command, the file, else its resources."""
    tool = store.tool_for_ask(ask)
    data = tool.input if tool is not None else {}
    for key in ("command", "filePath", "path"):
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return one_line(value, 80, breaks=True)  # (two commands never read as one)
    return one_line(", ".join(ask.resources), 80, breaks=True)


class AutoApprover:
    """Claims and answers the asks the mode allows; everything it does is recorded."""

    def __init__(self, store: Store, reply: ReplyFn, spawn: SpawnFn, on_changes: ChangeSink,
                 book: ModeBook | None = None, clock: Callable[[], float] = time.time,
                 read_file: ReadFileFn | None = None) -> None:
        self.store = store
        self.reply = reply
        self.read_file = read_file
        self.spawn = spawn
        self.on_changes = on_changes
        self.book = book if book is not None else ModeBook()
        self.clock = clock
        self.history: deque[AutoAnswer] = deque(maxlen=HISTORY_MAX)
        self.claimed: set[str] = set()  # asks octui is answering (until the server confirms)
        self._held: set[str] = set()  # sessions being interrupted: their asks get rejected instead
        self._failed: set[str] = set()  # replies that failed: left to the user, never retried

    # ------------------------------------------------------------------ queries
    def mode_of(self, session_id: str) -> Mode:
        return self.book.mode_of(self.store, session_id)

    def claims(self, ask_id: str) -> bool:
        """True when octui answers this ask itself: ``AskFlow`` must not open a dialog for it."""
        return ask_id in self.claimed

    def history_for(self, session_ids: Iterable[str] | None = None) -> list[AutoAnswer]:
        """Auto-answers, newest first (of the given sessions only, when given)."""
        wanted = set(session_ids) if session_ids is not None else None
        return [a for a in reversed(self.history) if wanted is None or a.session_id in wanted]

    # ------------------------------------------------------------------ changes
    def review(self, changes: list[Change]) -> list[Change]:
        """Called on every batch of store changes before the UI sees it; returns changes to add."""
        extra: list[Change] = []
        rescan = False
        for change in changes:
            if isinstance(change, AsksChanged) and change.ask_id:
                if change.how == "asked":
                    ask = self.store.asks.get(change.ask_id)
                    if ask is not None:
                        extra += self._consider(ask)
                else:  # settled
                    self.claimed.discard(change.ask_id)
                    self._failed.discard(change.ask_id)
            elif isinstance(change, AsksChanged):
                rescan = True  # the pending list was replaced (resync)
            elif isinstance(change, TranscriptChanged):
                extra += self.restore_notices(change.session_id)
        if rescan:
            self.claimed &= set(self.store.asks)
            extra += self.scan()
        return extra

    def scan(self) -> list[Change]:
        """Consider every pending ask again (after a resync or a mode change)."""
        extra: list[Change] = []
        for ask in list(self.store.asks.values()):
            extra += self._consider(ask)
        return extra

    def set_mode(self, session_id: str, mode: Mode) -> bool:
        """Set the mode of ``session_id``'s tree and answer what it now allows; False if not saved."""
        saved = self.book.set(self.book.root(self.store, session_id), mode)
        changes = self.scan()
        if changes:
            self.on_changes(changes)
        return saved

    def restore_notices(self, session_id: str) -> list[Change]:
        """Put back the notices of ``session_id`` after its transcript was rebuilt."""
        state = self.store.sessions.get(session_id)
        if state is None:
            return []
        changes: list[Change] = []
        for answer in self.history:
            if answer.session_id == session_id and notice_key(answer.ask_id) not in state.messages:
                changes += self._notice(answer)
        return changes

    @contextlib.contextmanager
    def holding(self, session_id: str) -> Iterator[None]:
        """While interrupting ``session_id``: its asks are not auto-answered (they get rejected)."""
        self._held.add(session_id)
        try:
            yield
        finally:
            self._held.discard(session_id)

    # ------------------------------------------------------------------ answering
    def _consider(self, ask: Ask) -> list[Change]:
        if ask.id in self.claimed or ask.id in self._failed or not isinstance(ask, PermissionRequest):
            return []
        if ask.sessionID in self._held:
            return []
        mode = self.mode_of(ask.sessionID)
        if decide(mode, ask) != "once":
            return []
        self.claimed.add(ask.id)
        answer = AutoAnswer(ask_id=ask.id, session_id=ask.sessionID, action=ask.action or "permission",
                            target=ask_target(self.store, ask), mode=mode, time=self.clock(),
                            message_id=ask.source.messageID if ask.source else None)
        self.history.append(answer)
        self.spawn(self._send(ask, answer))
        return self._notice(answer)

    def _notice(self, answer: AutoAnswer) -> list[Change]:
        return insert_notice(self.store, answer.session_id, notice_key(answer.ask_id), answer.text,
                             after=answer.message_id, time_created=answer.time * 1000)

    async def _keep_what_it_replaces(self, ask: PermissionRequest) -> None:
        """A whole-file write allowed with no dialog, the server sending no diff (1.18): the file
        it replaces is read first, so its row shows the change as a write allowed in its dialog
        does (QA: an auto-allowed overwrite showed only the new content, "+6 −?"). Best effort,
        and bounded: the answer waits READ_WAIT_S at most for the read and the diff, and goes out
        whatever went wrong (review: an unexpected error left the ask unanswered for good)."""
        tool = self.store.tool_for_ask(ask)
        written = written_file(ask, tool)
        if written is None or self.read_file is None:
            return
        read_file = self.read_file

        async def read_and_compare() -> None:
            current = await read_file(ask.sessionID, written[0])
            preview = await asyncio.to_thread(permission_preview, ask, tool, current)
            if preview.replaced:
                self.store.show_write(ask.id, preview.replaced)

        try:
            await asyncio.wait_for(read_and_compare(), READ_WAIT_S)
        except Exception as exc:  # noqa: BLE001 (the row then says what it replaces is not shown)
            log.info("what %s replaces was not read: %s", ask.id, exc or type(exc).__name__)

    def _still_to_answer(self, ask: PermissionRequest, answer: AutoAnswer) -> bool:
        """After the read (seconds, on a slow server): the ask is still pending, its session is
        not being interrupted, and the mode still allows it (review: the allow went out after the
        mode was set back to supervised). A mode that no longer allows it hands it to the user."""
        if ask.id not in self.store.asks or ask.sessionID in self._held:
            self.claimed.discard(ask.id)
            return False
        if decide(self.mode_of(ask.sessionID), ask) == "once":
            return True
        self.claimed.discard(ask.id)
        answer.failed = "not sent: the permission mode changed"
        self.on_changes([*self._notice(answer), AsksChanged(ask.sessionID, ask.id, "asked")])
        return False

    async def _send(self, ask: PermissionRequest, answer: AutoAnswer) -> None:
        await self._keep_what_it_replaces(ask)
        if not self._still_to_answer(ask, answer):
            return
        try:
            await self.reply(ask.sessionID, ask.id, "once")
        except OctuiError as exc:
            if ask.id not in self.store.asks:
                return  # answered meanwhile (another client, or an interrupt): nothing to show
            log.warning("auto-answer of %s failed: %s", ask.id, exc)
            answer.failed = str(exc) or type(exc).__name__
            self.claimed.discard(ask.id)
            self._failed.add(ask.id)
            changes = self._notice(answer)
            # Hand it to the user: AskFlow opens it like a fresh ask.
            changes.append(AsksChanged(ask.sessionID, ask.id, "asked"))
            self.on_changes(changes)
