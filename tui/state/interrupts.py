"""Turns the server no longer runs: streamed text it did not keep, tools left "running".

The stream has no replay, so after every (re)connect the transcript is rebuilt from the
server's history (``Store.load_history``). When the server was killed and restarted, its history
still holds the interrupted turn as it was last saved: the assistant message open, a tool
"running" for ever, and (1.18.33) every text block empty, because text is only saved when it
ends. Two steps keep that honest:

* ``carry_streamed``, while the history replaces the transcript: text that streamed into an open
  message but that the history lacks is carried over into the rebuilt block (nothing vanishes;
  a turn that still runs keeps appending to it), and the server's own length is remembered.
* ``mark_abandoned``, once the server says the session is not busy: each open message is
  marked interrupted, its tools that never ended are marked interrupted (their timer stops), and
  the carried-over text moves out of the blocks into ``Message.lost_text``, shown and exported as
  text the server did not keep. The blocks hold the server's text again, so the transcript
  equals the server's history plus those marks.

A message marked so keeps its marks at every later reload (``carry_streamed``), also once the
history shows it closed: 1.18.33 closes a killed turn's message (``time.completed``, no finish,
still no text) when the session's next turn starts. Only a history that holds more of the turn
than when it was marked (a normal end, longer text) drops them: the server ran it after all.
A reload whose newest page does not reach a marked message sets it aside (``set_aside``,
bounded) until the older page that brings it back (``restore_aside``).

Pure: no Textual, no I/O.
"""

from __future__ import annotations

import time

from tui.protocol.models import StructuredError
from tui.state.changes import Change, message_changed
from tui.state.transcript import Message, SessionState, TextBlock, ToolCall

__all__ = ["ENDED_BY_REJECT", "INTERRUPTED", "MARKS_ASIDE_MAX", "TOOL_INTERRUPTED", "carry_streamed",
           "mark_abandoned", "restore_aside", "set_aside"]

INTERRUPTED = "interrupted: the server no longer runs this turn (it was restarted or lost it)"
# 1.18.33 ends a turn whose permission was rejected (without a message) with no event at all:
# the turn is over because of that, not lost (QA: "restarted or lost it" after a reject).
ENDED_BY_REJECT = "the turn ended when a permission was rejected"
TOOL_INTERRUPTED = "interrupted: the server no longer runs it"
_NOT_ON_SERVER = -1  # a block the server's history does not have at all
MARKS_ASIDE_MAX = 64  # interrupted messages set aside per session (oldest dropped first)


def carry_streamed(old: dict[str, Message], new: dict[str, Message]) -> None:
    """Keep in ``new`` (the rebuilt transcript) what streamed into ``old``'s open messages and the
    history lacks, and the marks of messages interrupted before."""
    for mid, fresh in new.items():
        before = old.get(mid)
        if before is None or before is fresh or before.role != "assistant" or fresh.role != "assistant":
            continue
        if before.interrupted is not None:  # marked at an earlier reconnect: marked again
            # Whether or not the history still shows it open: 1.18.33 closes a killed turn's
            # message (``time.completed``, no finish, no text) when the session's next turn
            # starts, and that is no reason to forget what the server never kept.
            if not _server_went_on(before, fresh):
                _carry_marks(before, fresh)
            continue
        if not fresh.streaming:
            continue  # the server finished it: its text is the truth
        fresh.server_lengths = dict(before.server_lengths)
        for part in before.parts:
            if isinstance(part, TextBlock) and part.text:
                _carry_block(fresh, part)


def set_aside(state: SessionState, rebuilt: dict[str, Message], *, complete: bool) -> None:
    """Before ``rebuilt`` replaces ``state``'s transcript: the interrupted messages it lacks (a
    newest page that does not reach them) wait in ``state.marks_aside`` for the page that brings
    them back. At most ``MARKS_ASIDE_MAX`` wait, so memory stays bounded as before: the kept
    text of a bounded number of messages. ``complete``: ``rebuilt`` is the whole history, so
    what it lacks is gone from the server and nothing waits."""
    if complete:
        state.marks_aside.clear()
        return
    for mid, msg in state.messages.items():
        if msg.interrupted is not None and mid not in rebuilt:
            state.marks_aside[mid] = msg
    while len(state.marks_aside) > MARKS_ASIDE_MAX:
        del state.marks_aside[next(iter(state.marks_aside))]


def restore_aside(state: SessionState, fresh: dict[str, Message]) -> None:
    """Messages from the history (``fresh``) that were set aside take their marks back."""
    if not state.marks_aside:
        return
    back = {mid: state.marks_aside.pop(mid) for mid in fresh if mid in state.marks_aside}
    if back:
        carry_streamed(back, fresh)


def _server_went_on(marked: Message, fresh: Message) -> bool:
    """Does the history hold more of a turn marked interrupted than when it was marked: a normal
    end, or text the marked message's blocks (the server's text then) lack? Then the server ran
    it after all, and its history is the truth: the marks go."""
    if fresh.finish is not None and fresh.finish != "error":
        return True
    for part in fresh.parts:
        if isinstance(part, TextBlock) and part.text:
            then = marked.block(part.kind, part.ordinal)
            if then is None or len(part.text) > len(then.text):
                return True
    return False


def _carry_marks(marked: Message, fresh: Message) -> None:
    """The marks of a turn interrupted before, on its copy from the history: the note, the text
    the server did not keep, and the interrupted state of the tools the history leaves open."""
    fresh.interrupted, fresh.lost_text = marked.interrupted, marked.lost_text
    fresh.server_lengths = {}
    ended = {p.id: p for p in marked.parts if isinstance(p, ToolCall) and p.finished}
    for part in fresh.parts:
        if isinstance(part, ToolCall) and not part.finished and part.id in ended:
            old_call = ended[part.id]
            part.status, part.error = old_call.status, old_call.error
            part.time_completed = old_call.time_completed


def _carry_block(fresh: Message, streamed: TextBlock) -> None:
    kept = fresh.block(streamed.kind, streamed.ordinal)
    if kept is None:  # the server has no such block: keep it, and note that
        fresh.parts.append(TextBlock(kind=streamed.kind, ordinal=streamed.ordinal, text=streamed.text,
                                     streaming=streamed.streaming))
        fresh.server_lengths.setdefault(streamed.key, _NOT_ON_SERVER)
        return
    if len(streamed.text) > len(kept.text) and streamed.text.startswith(kept.text):
        fresh.server_lengths.setdefault(kept.key, len(kept.text))
        kept.text = streamed.text
        kept.streaming = streamed.streaming  # a turn that still runs goes on appending to it
        kept.version += 1


def mark_abandoned(state: SessionState, now_ms: float | None = None) -> list[Change]:
    """The server says ``state``'s session is not busy: every open turn in it is over."""
    changes: list[Change] = []
    now = time.time() * 1000 if now_ms is None else now_ms
    for msg in state.messages.values():
        if msg.role != "assistant" or not msg.streaming:
            continue
        _mark(msg, now)
        changes.append(message_changed(state.id, msg.id))
    if changes:
        state.version += 1
    return changes


def _mark(msg: Message, now: float) -> None:
    rejected = any(isinstance(part, ToolCall) and part.rejected for part in msg.parts)
    msg.interrupted = ENDED_BY_REJECT if rejected else INTERRUPTED
    lost: list[str] = [msg.lost_text] if msg.lost_text else []
    kept: list[TextBlock | ToolCall] = []
    for part in msg.parts:
        if isinstance(part, ToolCall):
            if not part.finished:
                part.status = "error"
                part.error = StructuredError(type="interrupted", message=TOOL_INTERRUPTED)
                part.time_completed = part.time_completed or now  # the timer stops
                part.version += 1
            kept.append(part)
            continue
        length = msg.server_lengths.get(part.key)
        if length is not None:
            extra = part.text[max(0, length):]
            if extra.strip():
                lost.append(extra if part.kind == "text" else f"(thinking) {extra}")
            if length == _NOT_ON_SERVER:
                continue  # only ever on this side: its text is in lost_text now
            part.text = part.text[:length]
        if part.streaming or length is not None:
            part.streaming = False
            part.version += 1
        kept.append(part)
    msg.parts = kept
    msg.lost_text = "\n\n".join(lost)
    msg.server_lengths = {}
    msg.version += 1
