"""The single source of truth: ``Store.apply(event) -> [Change]``.

Durable events are applied at most once per session (by ``durable.seq``); every reducer is also
idempotent on its own, because after a reconnect the HTTP snapshot and the live stream overlap.
Deltas are hints: ``*.ended`` replaces accumulated text with the authoritative one.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import ValidationError

from tui.protocol import events as ev
from tui.protocol.events import Event
from tui.protocol.models import (
    FormInfo,
    PermissionRequest,
    QuestionRequest,
    SessionInfo,
    SessionRevert,
    StructuredError,
)
from tui.state import interrupts, session_entries, session_events
from tui.state.changes import (
    AsksChanged,
    CatalogChanged,
    Change,
    CheckActive,
    PromptAppended,
    ServerConnected,
    SessionChanged,
    SessionSelected,
    ToastShown,
    TranscriptChanged,
    message_changed,
    part_changed,
    session_changed,
    severity_of,
)
from tui.state.deltas import append_delta
from tui.state.history import carry_call_marks, message_from_wire
from tui.state.transcript import Ask, Message, PendingInput, SessionState, TextBlock, ToolCall, ask_call

Handler = Callable[["Store", SessionState, Event], list[Change]]
_REGISTERED = session_entries  # importing it registers the inbox/notice/shell/revert reducers
_SESSION_HANDLERS = session_events.HANDLERS  # filled in by both reducer modules


AskLists = tuple[list[PermissionRequest], list[QuestionRequest], list[FormInfo] | None]
SETTLED_KEPT = 512  # settled ask ids remembered (``Store.settled_since``)
ASK_CALL_ENDED = "its tool call ended"  # how an ask settles when its call ended first (AsksChanged)

class Store:
    """Sessions, their transcripts and every pending ask on the server."""

    def __init__(self) -> None:
        self.sessions: dict[str, SessionState] = {}
        self.asks: dict[str, Ask] = {}
        self.warnings: deque[str] = deque(maxlen=200)
        self.warned = 0  # warnings ever given (``warnings`` keeps the last 200)
        self._warned_types: set[str] = set()
        self.deleted: set[str] = set()
        self.shown_writes: dict[str, str] = {}  # ask id -> the diff its dialog showed (``show_write``)
        # Asks the stream settled, latest last (``settled_since``: a list read meanwhile is stale).
        self._settled: deque[str] = deque(maxlen=SETTLED_KEPT)
        self._settled_total = 0

    # ----------------------------------------------------------------- lookups
    def session(self, session_id: str) -> SessionState:
        state = self.sessions.get(session_id)
        if state is None:
            state = self.sessions[session_id] = SessionState(id=session_id)
        return state

    def children(self, session_id: str) -> list[SessionState]:
        return [s for s in self.sessions.values() if s.parent_id == session_id]

    def root_of(self, session_id: str) -> str:
        seen: set[str] = set()
        current = session_id
        while current not in seen:
            seen.add(current)
            parent = self.sessions.get(current)
            if parent is None or not parent.parent_id:
                return current
            current = parent.parent_id
        return current

    def asks_for(self, session_id: str) -> list[Ask]:
        return [a for a in self.asks.values() if a.sessionID == session_id]

    def tool_for_ask(self, ask: Ask) -> ToolCall | None:
        """The tool call an ask belongs to, joined on message id + call id (``ask_call``)."""
        message_id, call_id = ask_call(ask)
        state = self.sessions.get(ask.sessionID)
        message = state.messages.get(message_id) if state is not None else None
        return message.tool(call_id) if message is not None and call_id else None

    def show_write(self, ask_id: str, patch: str) -> None:
        """The diff a write's approval dialog showed (the server sent none): put on the call's
        row if the server confirms the write was allowed. Kept while the ask is pending only."""
        if ask_id in self.asks:
            self.shown_writes[ask_id] = patch

    def set_asks_read_live(self, lists: AskLists, known: set[str], mark: int) -> list[Change]:
        """``set_asks`` with lists read while the stream went on (``known``: the asks held when
        the read began, ``mark``: ``settled_count()`` then): what the stream said of an ask
        meanwhile wins, an ask that came is kept and one that settled stays settled."""
        permissions, questions, forms = lists
        settled = self.settled_since(mark)
        listed = {ask.id for ask in permissions} | {ask.id for ask in questions} | \
            {ask.id for ask in forms or []}
        came = [ask for ask_id, ask in self.asks.items() if ask_id not in known and ask_id not in listed]
        return self.set_asks(
            [ask for ask in permissions if ask.id not in settled]
            + [ask for ask in came if isinstance(ask, PermissionRequest)],
            [ask for ask in questions if ask.id not in settled]
            + [ask for ask in came if isinstance(ask, QuestionRequest)],
            None if forms is None else [ask for ask in forms if ask.id not in settled]
            + [ask for ask in came if isinstance(ask, FormInfo)],
        )

    def settled_count(self) -> int:
        """How many asks the stream has settled so far (a mark for ``settled_since``)."""
        return self._settled_total

    def settled_since(self, mark: int) -> set[str]:
        """The ids of the asks settled since ``settled_count()`` was ``mark`` (the latest
        ``SETTLED_KEPT`` of them)."""
        count = min(self._settled_total - mark, len(self._settled))
        return set(list(self._settled)[-count:]) if count > 0 else set()

    def note_settled(self, ask_id: str) -> None:
        """An ask left the store by the stream's word (answered, its call ended, its session gone)."""
        self.shown_writes.pop(ask_id, None)
        self._settled.append(ask_id)
        self._settled_total += 1

    def busy_ids(self) -> set[str]:
        return {sid for sid, s in self.sessions.items() if s.busy}

    def warn(self, text: str) -> None:
        self.warnings.append(text)
        self.warned += 1

    # ----------------------------------------------------------------- events
    def apply(self, event: Event) -> list[Change]:
        # Runs for every frame of the stream (issue #8): one type lookup per dispatch table.
        payload = event.payload
        kind = type(payload)
        handler = _GLOBAL.get(kind)
        if handler is not None:
            return handler(self, event)
        if isinstance(payload, ev.Unknown):
            if event.type not in self._warned_types:
                self._warned_types.add(event.type)
                problem = getattr(payload, "problem", "")
                self.warn(problem or f"ignored event {event.type}")
            return []
        sid = getattr(payload, "sessionID", None)
        if not isinstance(sid, str) or not sid or sid in self.deleted:
            return []  # a late or replayed event must not bring a deleted session back
        state = self.sessions.get(sid) or self.session(sid)
        durable = event.durable_seq
        if durable is not None and durable[0] == sid:
            if durable[1] <= state.last_seq:
                return []  # already applied: duplicate or replayed
            state.last_seq = durable[1]
        session_handler = _SESSION_HANDLERS.get(kind)
        if session_handler is None:
            return []
        changes = session_handler(state, event)
        if isinstance(payload, (ev.ToolSuccess, ev.ToolFailed)) and self.asks:
            changes += self._drop_asks_of_call(sid, payload.assistantMessageID, payload.id)
        return changes

    def _drop_asks_of_call(self, session_id: str, message_id: str, call_id: str) -> list[Change]:
        """A tool call ended: an ask it was waiting on is over too. 1.18.33 rejects the asks of
        an interrupted turn with no event for them; they stayed in the inbox as "waiting", and
        answering one got a 404 (QA, real server)."""
        gone = [ask.id for ask in self.asks.values()
                if ask.sessionID == session_id and ask_call(ask) == (message_id, call_id)]
        for ask_id in gone:
            del self.asks[ask_id]
            self.note_settled(ask_id)
        return [AsksChanged(session_id, ask_id, ASK_CALL_ENDED) for ask_id in gone]

    def apply_delta(self, kind: str, session_id: str, message_id: str, ref: int | str,
                    delta: str) -> list[Change] | None:
        """``apply`` of a plain delta (``frames.plain_delta``: no durable envelope) to a part the
        store has; None when it is not that simple, and the caller applies the parsed event."""
        state = self.sessions.get(session_id)
        if state is None or session_id in self.deleted:
            return None
        return append_delta(state, kind, message_id, ref, delta)

    def stream_gap(self) -> None:
        """A new stream connection: the stream has no replay, so every block still streaming
        may have missed deltas; the next one that arrives is joined with a gap mark."""
        for state in self.sessions.values():
            for msg in state.messages.values():
                if msg.role == "assistant" and msg.streaming:
                    for part in msg.parts:
                        if isinstance(part, TextBlock) and part.streaming:
                            part.gap = True

    # ----------------------------------------------------------- snapshots
    def upsert_info(self, info: SessionInfo) -> list[Change]:
        self.deleted.discard(info.id)  # the server says it exists: trust it over an old event
        state = self.session(info.id)
        state.info = info
        if info.cost and info.cost > state.cost:
            state.cost = info.cost
        state.version += 1
        return [session_changed(info.id)]

    def rename(self, session_id: str, title: str) -> list[Change]:
        """The server took a new title (its ``session.updated`` event confirms it)."""
        state = self.sessions.get(session_id)
        if state is None or state.info is None:
            return []
        state.info.title = title
        state.version += 1
        return [SessionChanged(session_id)]

    def append_shell_output(self, session_id: str, message_id: str, call_id: str, text: str,
                            keep: int) -> list[Change]:
        """Live output of a running shell (polled): kept to its last ``keep`` characters."""
        state = self.sessions.get(session_id)
        message = state.messages.get(message_id) if state else None
        call = message.tool(call_id) if message else None
        if call is None or not text:
            return []
        call.live_output = (call.live_output + text)[-keep:]
        call.version += 1
        return [part_changed(session_id, message_id, call.key)]

    def set_revert(self, session_id: str, revert: SessionRevert | None) -> list[Change]:
        """A staged revert (undo) or none (redo), mirrored at once; the revert event is idempotent."""
        state = self.sessions.get(session_id)
        if state is None or state.info is None:
            return []
        state.info.revert = revert
        marks = session_events.apply_revert_marks(state, revert)
        return [TranscriptChanged(session_id), *marks, SessionChanged(session_id)]

    def load_history(self, session_id: str, messages: Iterable[dict[str, Any]], *,
                     older: bool = False) -> list[Change]:
        """Replace the transcript with the server's (oldest first). Pending inbox items survive.

        ``older``: the server holds older messages than these (the newest page of a long session;
        ``prepend_history`` pages the rest in). When the store already holds this page's oldest
        message (a reload after a reconnect), only the page's span is replaced: the older messages
        paged in before stay.
        """
        state = self.session(session_id)
        rebuilt: dict[str, Message] = {}
        for raw in messages:
            msg = message_from_wire(raw, session_id)
            if msg is not None:
                rebuilt[msg.id] = msg
        if older and rebuilt and self.history_overlaps(session_id, next(iter(rebuilt))):
            kept: dict[str, Message] = {}
            first = next(iter(rebuilt))
            for mid, msg in state.messages.items():
                if mid == first:
                    break
                kept[mid] = msg
            rebuilt = {**kept, **rebuilt}
            older = state.older
        interrupts.carry_streamed(state.messages, rebuilt)  # what streamed is not dropped
        interrupts.restore_aside(state, rebuilt)  # nor the marks of turns interrupted before
        interrupts.set_aside(state, rebuilt, complete=not older)
        carry_call_marks(state.messages, rebuilt)  # nor what it knew of calls (a child, a refusal)
        if state.busy:
            _resume_open_blocks(state.messages, rebuilt)
        state.messages = rebuilt
        state.older = older
        for pending in list(state.inbox):
            if pending in rebuilt:
                del state.inbox[pending]
        session_events.recount_usage(state)
        session_events.apply_revert_marks(state, state.info.revert if state.info else None)
        state.loaded = True
        state.version += 1
        return [TranscriptChanged(session_id), SessionChanged(session_id)]

    def mark_abandoned(self, session_id: str) -> list[Change]:
        """The server runs no turn in this session: its open turns are over (interrupted)."""
        state = self.sessions.get(session_id)
        return interrupts.mark_abandoned(state) if state is not None else []

    def history_overlaps(self, session_id: str, message_id: str) -> bool:
        """Was the history loaded before and does it hold ``message_id`` (a newest page's oldest)?"""
        state = self.sessions.get(session_id)
        return state is not None and state.loaded and message_id in state.messages

    def prepend_history(self, session_id: str, messages: Iterable[dict[str, Any]], *,
                        older: bool) -> list[Change]:
        """Older messages (oldest first) paged in before the transcript's first one.

        A message the store already has is kept as it is (the live stream's copy is newer).
        ``older``: the server holds still older ones.
        """
        state = self.session(session_id)
        earlier: dict[str, Message] = {}
        for raw in messages:
            msg = message_from_wire(raw, session_id)
            if msg is not None and msg.id not in state.messages:
                earlier[msg.id] = msg
        state.older = older
        interrupts.restore_aside(state, earlier)  # a turn interrupted before: marked again
        if not older:
            state.marks_aside.clear()  # the oldest page: what did not come back is gone
        if earlier:
            state.messages = {**earlier, **state.messages}
            for pending in list(state.inbox):
                if pending in earlier:
                    del state.inbox[pending]
            session_events.recount_usage(state)
            session_events.apply_revert_marks(state, state.info.revert if state.info else None)
        state.version += 1
        return [TranscriptChanged(session_id, "older"), SessionChanged(session_id)]

    def upsert_message(self, session_id: str, raw: dict[str, Any]) -> list[Change]:
        state = self.session(session_id)
        msg = message_from_wire(raw, session_id)
        if msg is None:
            return []
        carry_call_marks(state.messages, {msg.id: msg})
        state.messages[msg.id] = msg
        state.inbox.pop(msg.id, None)
        session_events.recount_usage(state)
        return [message_changed(session_id, msg.id), SessionChanged(session_id)]

    def set_inbox(self, session_id: str, items: Iterable[dict[str, Any]]) -> list[Change]:
        """The pending-input list (``Session.Inbox.*`` items, whatever the generation's route),
        replacing what the stream told us."""
        state = self.session(session_id)
        fresh: dict[str, PendingInput] = {}
        for item in items:
            inbox_id = item.get("id")
            payload = item.get("payload")
            if not isinstance(inbox_id, str) or inbox_id in state.messages:
                continue
            created = item.get("timeCreated")
            stamp = float(created) if isinstance(created, (int, float)) and not isinstance(created, bool) \
                else None
            fresh[inbox_id] = session_entries.pending_input(
                inbox_id, str(item.get("type") or "user"), payload if isinstance(payload, dict) else {},
                str(item.get("delivery") or "steer"), stamp)
        if [(p.id, p.delivery) for p in fresh.values()] == \
                [(p.id, p.delivery) for p in state.inbox.values()]:
            return []
        state.inbox = fresh
        state.version += 1
        return [SessionChanged(session_id)]

    def set_active(self, active: dict[str, Any], known_only: bool = False) -> list[Change]:
        """``GET /api/session/active`` is the truth for busy state (1.18 has no idle event)."""
        changes: list[Change] = []
        ids = set(active)
        for sid in ids | self.busy_ids():
            if known_only and sid not in self.sessions:
                continue
            state = self.session(sid)
            busy = sid in ids
            if not busy:
                state.executing = False  # the server says idle: an execution end we missed
            if state.busy != busy:
                state.busy = busy
                if not busy:
                    state.status_note = None
                    session_events.settle_open_parts(state, None)
                state.version += 1
                changes.append(SessionChanged(sid))
        return changes

    def set_asks(
        self,
        permissions: Iterable[PermissionRequest],
        questions: Iterable[QuestionRequest],
        forms: Iterable[FormInfo] | None,
    ) -> list[Change]:
        """Replace pending asks with the server's lists (asks are not durable)."""
        fresh: dict[str, Ask] = {}
        for permission in permissions:
            fresh[permission.id] = permission
        for question in questions:
            fresh[question.id] = question
        if forms is None:  # this server has no forms: keep none
            forms = []
        for form in forms:
            fresh[form.id] = form
        self.shown_writes = {ask_id: patch for ask_id, patch in self.shown_writes.items() if ask_id in fresh}
        if set(fresh) == set(self.asks):
            self.asks = fresh
            return []
        self.asks = fresh
        return [AsksChanged()]


def _resume_open_blocks(before: dict[str, Message], rebuilt: dict[str, Message]) -> None:
    """A running session's unfinished assistant message, reloaded: the server shows its open
    blocks as "" until they end (TRACES.md §11). Keep them streaming so the next deltas show,
    keep what the old stream had shown of them, and mark the gap the stream could not replay."""
    for mid, msg in rebuilt.items():
        if msg.role != "assistant" or not msg.streaming:
            continue
        old = before.get(mid)
        for part in msg.parts:
            if not isinstance(part, TextBlock):
                continue
            seen = old.block(part.kind, part.ordinal) if old is not None else None
            if seen is not None and seen.gap:
                part.gap = True  # carried over by interrupts.carry_streamed: the gap stays marked
            if part.text:
                continue
            part.streaming = True
            if seen is not None and seen.text:
                part.text, part.gap = seen.text, seen.gap  # what the stream showed, gap marked
            else:
                part.gap = True


def _on_session_created(store: Store, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.SessionCreated)
    data = dict(event.data)
    data.setdefault("id", payload.sessionID)
    data.pop("sessionID", None)
    try:
        info = SessionInfo.model_validate(data)
    except ValidationError:
        info = SessionInfo(id=payload.sessionID, parentID=payload.parentID, title=payload.title)
    if payload.sessionID in store.deleted:
        return []
    state = store.session(payload.sessionID)
    durable = event.durable_seq
    if durable is not None and durable[0] == payload.sessionID:
        if durable[1] <= state.last_seq:
            return []
        state.last_seq = durable[1]
    if state.info is not None:
        # keep what a snapshot told us; take the event's newer values
        fresh = {k: v for k, v in info.model_dump().items() if v not in (None, "", 0, {}, [])}
        info = SessionInfo.model_validate({**state.info.model_dump(), **fresh})
    return store.upsert_info(info)


def _on_session_deleted(store: Store, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.SessionDeleted)
    store.sessions.pop(payload.sessionID, None)
    store.deleted.add(payload.sessionID)
    for ask_id in [a.id for a in store.asks.values() if a.sessionID == payload.sessionID]:
        del store.asks[ask_id]
        store.note_settled(ask_id)
    return [AsksChanged(), SessionChanged(payload.sessionID)]


def _on_ask(store: Store, event: Event) -> list[Change]:
    payload = event.payload
    ask: Ask
    # The payload was validated from ``event.data`` with the very same fields: validating that
    # again as the plain REST model gives equal values without a dump/validate round trip.
    if isinstance(payload, ev.PermissionAsked):
        ask = PermissionRequest.model_validate(event.data)
    elif isinstance(payload, ev.QuestionAsked):
        ask = QuestionRequest.model_validate(event.data)
    elif isinstance(payload, ev.FormCreated):
        ask = payload.form  # already a FormInfo, owned by nobody else
    else:
        return []
    if ask.sessionID in store.deleted:
        return []
    store.asks[ask.id] = ask
    store.session(ask.sessionID)
    return [AsksChanged(ask.sessionID, ask.id, "asked")]


def _on_ask_settled(store: Store, event: Event) -> list[Change]:
    payload = event.payload
    if isinstance(payload, (ev.PermissionReplied, ev.QuestionReplied, ev.QuestionRejected)):
        ask_id = payload.requestID
    elif isinstance(payload, (ev.FormReplied, ev.FormCancelled)):
        ask_id = payload.id
    else:
        return []
    detail = getattr(payload, "reply", None) or event.type.rsplit(".", 1)[-1]
    shown = store.shown_writes.get(ask_id, "")
    ask = store.asks.pop(ask_id, None)
    store.note_settled(ask_id)  # (also one the store never had: a list being read may hold it)
    if ask is None:
        return []
    changes: list[Change] = [AsksChanged(payload.sessionID, ask_id, str(detail))]
    if isinstance(payload, ev.PermissionReplied) and (payload.reply == "reject" or shown):
        changes += _mark_answered_call(store, ask, rejected=payload.reply == "reject", patch=shown)
    if isinstance(payload, (ev.PermissionReplied, ev.QuestionRejected)):
        # 1.18 ends a turn after a reject with no event at all: ask the server.
        if isinstance(payload, ev.QuestionRejected) or payload.reply == "reject":
            changes.append(CheckActive(payload.sessionID))
    return changes


def _mark_answered_call(store: Store, ask: Ask, *, rejected: bool, patch: str) -> list[Change]:
    """What an answer tells of the asking tool call and the server's events do not: that it was
    refused (its row: "rejected", not the server's "Tool execution interrupted"), and the diff
    its dialog showed for a write the server sent none for (QA: after an overwrite the row
    showed only the new content; a refused one, "not applied +2 −0")."""
    call = store.tool_for_ask(ask)
    if call is None:
        return []
    call.rejected = call.rejected or rejected
    call.shown_patch = patch or call.shown_patch
    call.version += 1
    return [part_changed(ask.sessionID, ask_call(ask)[0], call.key)]


def _on_ui(store: Store, event: Event) -> list[Change]:
    payload = event.payload
    if isinstance(payload, ev.ToastShow):
        return [ToastShown(payload.message, severity_of(payload.variant))]
    if isinstance(payload, ev.PromptAppend):
        return [PromptAppended(payload.text)]
    if isinstance(payload, ev.CommandExecute):
        return []  # octui runs no command the server asks a TUI to run: nothing changes
    if isinstance(payload, ev.SessionSelect):
        return [SessionSelected(payload.sessionID)]
    if isinstance(payload, ev.Refetch):
        return [CatalogChanged(event.type)]
    if isinstance(payload, ev.ServerConnected):
        return [ServerConnected()]
    return []


_GLOBAL: dict[type, Callable[[Store, Event], list[Change]]] = {
    ev.SessionCreated: _on_session_created,
    ev.SessionUpdated: _on_session_created,
    ev.SessionDeleted: _on_session_deleted,
    ev.PermissionAsked: _on_ask,
    ev.QuestionAsked: _on_ask,
    ev.FormCreated: _on_ask,
    ev.PermissionReplied: _on_ask_settled,
    ev.QuestionReplied: _on_ask_settled,
    ev.QuestionRejected: _on_ask_settled,
    ev.FormReplied: _on_ask_settled,
    ev.FormCancelled: _on_ask_settled,
    ev.ToastShow: _on_ui,
    ev.PromptAppend: _on_ui,
    ev.CommandExecute: _on_ui,
    ev.SessionSelect: _on_ui,
    ev.Refetch: _on_ui,
    ev.ServerConnected: _on_ui,
}

__all__ = ["Store", "StructuredError"]
