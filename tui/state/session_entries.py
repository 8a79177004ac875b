"""Reducers for session entries other than assistant steps: inbox, notices, shell, compaction,
revert. Registered into ``session_events.HANDLERS`` on import (``tui.state.store`` imports this).
"""

from __future__ import annotations

from typing import Any

from tui.protocol import events as ev
from tui.protocol.events import Event
from tui.state.changes import Change, NeedMessage, TranscriptChanged, message_changed
from tui.state.session_events import _notice, _set_busy, _touch, apply_revert_marks, handles
from tui.state.transcript import Message, MessageRole, PendingInput, SessionState


# ------------------------------------------------------------------ inbox
@handles(ev.InboxEnqueued)
def _inbox_enqueued(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.InboxEnqueued)
    if payload.inboxID in state.messages:
        return []
    state.inbox[payload.inboxID] = pending_input(payload.inboxID, payload.item.type,
                                                 payload.item.payload, payload.item.delivery,
                                                 event.created)
    return [_touch(state)]


def pending_input(inbox_id: str, kind: str, payload: dict[str, Any], delivery: str,
                  time_created: float | None = None) -> PendingInput:
    """A pending item from its (pinned) ``type``/``payload``/``delivery``."""
    text = payload.get("text")
    description = payload.get("description")
    metadata = payload.get("metadata")
    return PendingInput(id=inbox_id, text=text if isinstance(text, str) else "", delivery=delivery,
                        kind=kind, description=description if isinstance(description, str) else None,
                        metadata=metadata if isinstance(metadata, dict) else {},
                        time_created=time_created)


@handles(ev.InboxDelivered)
def _inbox_delivered(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.InboxDelivered)
    pending = state.inbox.pop(payload.inboxID, None)
    changes = [_touch(state)]
    if payload.inboxID in state.messages:
        return changes
    if pending is None:
        prompt = event.data.get("prompt")  # 1.18 repeats the prompt on delivery
        if isinstance(prompt, dict) and isinstance(prompt.get("text"), str):
            pending = PendingInput(id=payload.inboxID, text=prompt["text"])
    if pending is not None and pending.kind in ("user", "synthetic"):
        # A delivered prompt starts a turn: busy (and Esc interrupts it) from now, not from the
        # model's first token, which may be seconds away (a slow provider, retries). A server
        # that runs nothing after all is asked by the busy watchdog (tui/session/intake.py).
        changes += _set_busy(state, True)
        role: MessageRole = "user" if pending.kind == "user" else "synthetic"
        # The message id is the input id (TRACES.md §1): history and stream agree.
        state.messages[payload.inboxID] = Message(
            id=payload.inboxID, role=role, session_id=state.id, text=pending.text,
            time_created=event.created, description=pending.description,
            metadata=dict(pending.metadata))
        changes.append(message_changed(state.id, payload.inboxID))
    elif pending is None:
        changes.append(NeedMessage(state.id, payload.inboxID))
    return changes


@handles(ev.InboxCancelled)
def _inbox_cancelled(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.InboxCancelled)
    return [_touch(state)] if state.inbox.pop(payload.inboxID, None) else []


@handles(ev.InboxDeliveryChanged)
def _inbox_delivery(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.InboxDeliveryChanged)
    pending = state.inbox.get(payload.inboxID)
    if pending is None or pending.delivery == payload.delivery:
        return []
    pending.delivery = payload.delivery
    return [_touch(state)]



@handles(ev.Synthetic)
def _synthetic(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.Synthetic)
    changes = _notice(state, event, payload.text, role="synthetic")
    msg = state.messages.get(f"evt:{event.id or len(state.messages) - 1}")
    if msg is not None:
        msg.description = payload.description
        msg.metadata = payload.metadata or {}
    return changes


@handles(ev.SkillActivated)
def _skill(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.SkillActivated)
    return _notice(state, event, payload.name, role="skill")


@handles(ev.AgentSelected)
def _agent(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.AgentSelected)
    if state.info is not None:
        state.info.agent = payload.agent
    return [_touch(state)] + _notice(state, event, payload.agent, role="agent-switched")


@handles(ev.ModelSelected)
def _model(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.ModelSelected)
    if state.info is not None:
        state.info.model = payload.model
    return [_touch(state)] + _notice(state, event, payload.model.label, role="model-switched")


@handles(ev.SessionRenamed)
def _renamed(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.SessionRenamed)
    if state.info is not None:
        state.info.title = payload.title
    return [_touch(state)]


@handles(ev.SessionMoved)
def _moved(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.SessionMoved)
    if state.info is not None and payload.location is not None:
        state.info.location = payload.location
    return [_touch(state)]


@handles(ev.ShellStarted, ev.ShellEnded)
def _shell(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, (ev.ShellStarted, ev.ShellEnded))
    shell = payload.shell
    mid = shell.id or f"evt:{event.id}"
    msg = state.messages.get(mid)
    if msg is None:
        msg = state.messages[mid] = Message(id=mid, role="shell", session_id=state.id,
                                            text=shell.command, time_created=event.created)
    if shell.command:
        msg.text = shell.command
    if isinstance(payload, ev.ShellEnded):
        msg.metadata = {"output": payload.output.output, "exit": shell.exit,
                        "truncated": payload.output.truncated}
        msg.time_completed = event.created or 0.0
    msg.version += 1
    return [message_changed(state.id, mid)]


@handles(ev.CompactionStarted, ev.CompactionDelta, ev.CompactionEnded, ev.CompactionFailed)
def _compaction(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    changes: list[Change] = []
    input_id = getattr(payload, "inputID", None)
    if input_id and state.inbox.pop(input_id, None) is not None:
        changes.append(_touch(state))  # a compaction is never promoted: starting it ends the wait
    open_id = next((m.id for m in reversed(state.messages.values())
                    if m.role == "compaction" and m.time_completed is None), None)
    if open_id is None:
        if isinstance(payload, ev.CompactionDelta):
            return changes
        # Keyed by the admitted item's id when known: that is the history's message id.
        open_id = input_id if input_id and input_id not in state.messages else f"evt:{event.id}"
        state.messages[open_id] = Message(id=open_id, role="compaction", session_id=state.id,
                                          time_created=event.created)
    msg = state.messages[open_id]
    if isinstance(payload, ev.CompactionDelta):
        msg.text += payload.text
    elif isinstance(payload, ev.CompactionEnded):
        msg.text = payload.text
        msg.time_completed = event.created or 0.0
    elif isinstance(payload, ev.CompactionFailed):
        msg.error = payload.error
        msg.time_completed = event.created or 0.0
    msg.version += 1
    return changes + [message_changed(state.id, msg.id)]


@handles(ev.RevertStaged, ev.RevertCleared, ev.RevertCommitted)
def _revert(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    changes: list[Change] = []
    if isinstance(payload, ev.RevertStaged):
        if state.info is not None:
            state.info.revert = payload.revert
        changes = apply_revert_marks(state, payload.revert)
    elif isinstance(payload, ev.RevertCleared):
        if state.info is not None:
            state.info.revert = None
        changes = apply_revert_marks(state, None)
    elif isinstance(payload, ev.RevertCommitted):
        ids = list(state.messages)
        if payload.to in ids:
            # 2.x deletes the boundary message and everything after it; 1.18 keeps the boundary.
            for mid in ids[ids.index(payload.to) + (1 if payload.keepBoundary else 0):]:
                del state.messages[mid]
        if state.info is not None:
            state.info.revert = None
        changes = apply_revert_marks(state, None)
    return [TranscriptChanged(state.id), *changes, _touch(state)]
