"""Reducers for events scoped to one session (steps, blocks, tools, inbox, revert ...).

Each handler takes the session state and the event and returns the changes it made. All of
them are idempotent: applying the same event twice leaves the same state.
"""

from __future__ import annotations

from collections.abc import Callable

from tui.protocol import events as ev
from tui.protocol.events import Event
from tui.protocol.models import CacheTokens, SessionRevert, StructuredError, TokenUsage
from tui.state.changes import (
    Change,
    CheckActive,
    MessageChanged,
    NeedMessage,
    TurnFailed,
    message_changed,
    part_changed,
    session_changed,
)
from tui.state.deltas import GAP
from tui.state.history import contents
from tui.state.transcript import (
    BlockKind,
    Message,
    MessageRole,
    SessionState,
    TextBlock,
    ToolCall,
)

Handler = Callable[[SessionState, Event], list[Change]]
HANDLERS: dict[type, Handler] = {}


def handles(*kinds: type) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        for kind in kinds:
            HANDLERS[kind] = fn
        return fn

    return register


def _touch(state: SessionState) -> Change:
    state.version += 1
    return session_changed(state.id)


def _assistant(state: SessionState, message_id: str, event: Event) -> tuple[Message, list[Change]]:
    msg = state.messages.get(message_id)
    if msg is not None:
        return msg, []
    msg = Message(id=message_id, role="assistant", session_id=state.id, time_created=event.created)
    state.messages[message_id] = msg
    changes: list[Change] = [message_changed(state.id, message_id)]
    if not isinstance(event.payload, ev.StepStarted):
        # We missed the step start (joined mid-turn): ask the app to fetch the real message.
        changes.append(NeedMessage(state.id, message_id))
    return msg, changes


def _set_busy(state: SessionState, busy: bool) -> list[Change]:
    if state.busy == busy:
        return []
    state.busy = busy
    if not busy:
        state.status_note = None
    return [_touch(state)]


# ------------------------------------------------------------------ lifecycle
@handles(ev.SessionStatus)
def _status(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.SessionStatus)
    status = payload.status
    if status.type == "idle":
        state.executing = False
    changes = _set_busy(state, status.type != "idle")
    note = None
    if status.type == "retry":
        note = f"retrying (attempt {status.attempt or '?'}): {status.message or ''}".strip()
    if note != state.status_note:
        state.status_note = note
        changes.append(_touch(state))
    if status.type == "idle":
        settle_open_parts(state, None)
    return changes


@handles(ev.SessionIdle, ev.ExecutionSucceeded, ev.ExecutionInterrupted)
def _idle(state: SessionState, event: Event) -> list[Change]:
    state.executing = False
    return _set_busy(state, False)


@handles(ev.ExecutionStarted)
def _execution_started(state: SessionState, event: Event) -> list[Change]:
    # 2.x runs several steps in one execution (a steer waits for the step to end, a retry starts
    # a new one): a step's end is not the turn's end while the execution runs.
    state.executing = True
    return _set_busy(state, True)


def _step_over(state: SessionState) -> list[Change]:
    """A step ended: idle now only where no execution frames the steps (1.18)."""
    return [] if state.executing else _set_busy(state, False)


@handles(ev.ExecutionFailed)
def _execution_failed(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.ExecutionFailed)
    state.executing = False
    changes = _set_busy(state, False)
    last = next((m for m in reversed(state.messages.values()) if m.role == "assistant"), None)
    if last is None or last.error is None:
        # No step failed first (2.x ``provider.no-route``): the turn never reached a model, so
        # the notice names the session's selected one.
        notice = _notice(state, event, payload.error.message or "execution failed", error=payload.error)
        for item in notice:
            assert isinstance(item, MessageChanged)  # a notice is one new message
            failed = state.messages[item.message_id]
            failed.model = state.info.model if state.info is not None else None
            changes += [item, TurnFailed(state.id, failed.id)]
    return changes


@handles(ev.RetryScheduled)
def _retry(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.RetryScheduled)
    state.status_note = f"retrying (attempt {payload.attempt}): {payload.error.message}"
    changes = [_touch(state)]
    failed = state.messages.get(payload.assistantMessageID)
    if failed is not None and failed.error is not None and not failed.metadata.get("retried"):
        failed.metadata = {**failed.metadata, "retried": True}  # its error is not the turn's end
        failed.version += 1
        changes.append(message_changed(state.id, failed.id))
    return changes


@handles(ev.UsageUpdated)
def _usage(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.UsageUpdated)
    state.cost = payload.cost
    state.tokens = payload.tokens
    state.usage_from_server = True
    return [_touch(state)]


# ------------------------------------------------------------------ steps
@handles(ev.StepStarted)
def _step_started(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.StepStarted)
    msg, changes = _assistant(state, payload.assistantMessageID, event)
    msg.agent = payload.agent or msg.agent
    msg.model = payload.model if payload.model.id else msg.model
    msg.finish = None  # a retried step reuses the id
    msg.error = None
    if "retried" in msg.metadata:
        msg.metadata = {k: v for k, v in msg.metadata.items() if k != "retried"}
    msg.time_completed = None
    msg.version += 1
    if state.status_note and state.status_note.startswith("retrying"):
        state.status_note = None  # the retry has begun
        changes.append(_touch(state))
    return changes + [message_changed(state.id, msg.id)] + _set_busy(state, True)


@handles(ev.StepEnded)
def _step_ended(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.StepEnded)
    msg, changes = _assistant(state, payload.assistantMessageID, event)
    msg.finish = payload.finish
    msg.cost = payload.cost
    msg.tokens = payload.tokens
    msg.time_completed = event.created or msg.time_completed or 0.0
    msg.version += 1
    changes.append(message_changed(state.id, msg.id))
    recount_usage(state)
    changes.append(_touch(state))
    if payload.finish != "tool-calls":
        changes += _step_over(state)
    return changes


@handles(ev.StepFailed)
def _step_failed(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.StepFailed)
    msg, changes = _assistant(state, payload.assistantMessageID, event)
    msg.error = payload.error
    msg.finish = "error"
    msg.time_completed = event.created or msg.time_completed or 0.0
    if payload.cost is not None:
        msg.cost = payload.cost
    if payload.tokens is not None:
        msg.tokens = payload.tokens
    changes += _settle_message(msg, payload.error)
    msg.version += 1
    changes.append(message_changed(state.id, msg.id))
    changes.append(TurnFailed(state.id, msg.id))  # the session service logs it (tui/text/failures.py)
    recount_usage(state)
    return changes + _step_over(state)


# ------------------------------------------------------------------ text / reasoning
def _block(state: SessionState, event: Event, kind: BlockKind) -> tuple[Message, TextBlock, list[Change]]:
    payload = event.payload
    assert isinstance(payload, (ev.BlockStarted, ev.BlockDelta, ev.BlockEnded))
    msg, changes = _assistant(state, payload.assistantMessageID, event)
    ordinal = payload.ordinal
    # msg.block(kind, ordinal) without formatting a key per part: this runs for every delta.
    for part in msg.parts:
        if isinstance(part, TextBlock) and part.ordinal == ordinal and part.kind == kind:
            return msg, part, changes
    # A block first heard of by a delta started before we were listening.
    block = TextBlock(kind=kind, ordinal=ordinal, streaming=True,
                      gap=isinstance(payload, ev.BlockDelta))
    msg.parts.append(block)
    msg.version += 1
    changes.append(message_changed(state.id, msg.id))
    return msg, block, changes


@handles(ev.TextStarted, ev.ReasoningStarted)
def _block_started(state: SessionState, event: Event) -> list[Change]:
    kind: BlockKind = "text" if isinstance(event.payload, ev.TextStarted) else "reasoning"
    _, _, changes = _block(state, event, kind)
    return changes


@handles(ev.TextDelta, ev.ReasoningDelta)
def _block_delta(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.BlockDelta)
    kind: BlockKind = "text" if isinstance(payload, ev.TextDelta) else "reasoning"
    msg, block, changes = _block(state, event, kind)
    if not block.streaming or not payload.delta:
        return changes  # the block already has its authoritative text
    block.text += (GAP + payload.delta) if block.gap else payload.delta
    block.gap = False
    block.version += 1
    changes.append(part_changed(state.id, msg.id, block.key))
    return changes


@handles(ev.TextEnded, ev.ReasoningEnded)
def _block_ended(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.BlockEnded)
    kind: BlockKind = "text" if isinstance(payload, ev.TextEnded) else "reasoning"
    msg, block, changes = _block(state, event, kind)
    if block.text == payload.text and not block.streaming:
        return changes
    block.text = payload.text
    block.streaming = False
    block.gap = False
    block.version += 1
    return changes + [part_changed(state.id, msg.id, block.key)]


# ------------------------------------------------------------------ tools
def _tool(state: SessionState, event: Event) -> tuple[Message, ToolCall, list[Change]]:
    payload = event.payload
    assert isinstance(payload, ev.ToolPayload)
    msg, changes = _assistant(state, payload.assistantMessageID, event)
    call_id = payload.id
    for part in msg.parts:  # msg.tool(call_id), minus a key string per part
        if isinstance(part, ToolCall) and part.id == call_id:
            return msg, part, changes
    call = ToolCall(id=call_id, session_id=state.id, message_id=msg.id, time_created=event.created)
    msg.parts.append(call)
    msg.version += 1
    changes.append(message_changed(state.id, msg.id))
    return msg, call, changes


def _tool_changed(state: SessionState, msg: Message, call: ToolCall) -> Change:
    call.version += 1
    return part_changed(state.id, msg.id, call.key)


@handles(ev.ToolInputStarted)
def _tool_input_started(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.ToolInputStarted)
    msg, call, changes = _tool(state, event)
    call.name = payload.name or call.name
    return changes + [_tool_changed(state, msg, call)]


@handles(ev.ToolInputDelta)
def _tool_input_delta(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.ToolInputDelta)
    msg, call, changes = _tool(state, event)
    if call.status != "streaming" or not payload.delta:
        return changes
    call.input_text += payload.delta
    return changes + [_tool_changed(state, msg, call)]


@handles(ev.ToolInputEnded)
def _tool_input_ended(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.ToolInputEnded)
    msg, call, changes = _tool(state, event)
    call.input_text = payload.text
    return changes + [_tool_changed(state, msg, call)]


@handles(ev.ToolCalled)
def _tool_called(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.ToolCalled)
    msg, call, changes = _tool(state, event)
    call.input = payload.input
    call.name = payload.name or call.name
    if not call.finished:
        call.status = "running"
        call.time_ran = event.created or call.time_ran
    return changes + [_tool_changed(state, msg, call)]


@handles(ev.ToolProgress)
def _tool_progress(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.ToolProgress)
    msg, call, changes = _tool(state, event)
    call.progress = payload.metadata  # complete current metadata: replace, don't merge
    if call.status == "streaming":
        call.status = "running"
    return changes + [_tool_changed(state, msg, call)]


@handles(ev.ToolSuccess)
def _tool_success(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.ToolSuccess)
    msg, call, changes = _tool(state, event)
    call.status = "completed"
    call.content = payload.content
    if payload.metadata is not None:
        call.metadata = payload.metadata
    call.error = None
    call.time_completed = event.created or call.time_completed
    return changes + [_tool_changed(state, msg, call)]


@handles(ev.ToolFailed)
def _tool_failed(state: SessionState, event: Event) -> list[Change]:
    payload = event.payload
    assert isinstance(payload, ev.ToolFailed)
    msg, call, changes = _tool(state, event)
    call.status = "error"
    call.error = payload.error
    if payload.content is not None:
        call.content = payload.content
    if payload.metadata is not None:
        call.metadata = payload.metadata
    call.time_completed = event.created or call.time_completed
    changes.append(_tool_changed(state, msg, call))
    if payload.error.message == "Tool execution interrupted":
        changes.append(CheckActive(state.id))  # 1.18: the turn may have ended silently
    return changes


# ------------------------------------------------------------------ other entries
def _notice(state: SessionState, event: Event, text: str, *, role: MessageRole = "notice",
            error: StructuredError | None = None, key: str | None = None) -> list[Change]:
    mid = key or f"evt:{event.id or len(state.messages)}"
    if mid in state.messages:
        return []
    state.messages[mid] = Message(id=mid, role=role, session_id=state.id, text=text,
                                  time_created=event.created, error=error)
    return [message_changed(state.id, mid)]


# ------------------------------------------------------------------ helpers
def apply_revert_marks(state: SessionState, revert: SessionRevert | None) -> list[Change]:
    """Mark the messages a staged revert takes back (staged, not final): the boundary message and
    everything after it, or only what follows it when the server keeps the boundary (1.18).

    ``revert``: the staged revert (``state.info.revert`` once it is the session's), ``None`` for
    none. Returns the changes of the messages whose mark moved (their views show it).
    """
    boundary = revert.messageID if revert is not None else ""
    keep = revert is not None and revert.keepBoundary
    reverting = False
    changes: list[Change] = []
    for msg in state.messages.values():
        at_boundary = bool(boundary) and msg.id == boundary
        reverting = reverting or (at_boundary and not keep)
        if msg.reverted != reverting:
            msg.reverted = reverting
            msg.version += 1
            changes.append(message_changed(state.id, msg.id))
        reverting = reverting or at_boundary
    return changes


def settle_open_parts(state: SessionState, error: StructuredError | None) -> None:
    """When a turn is over, nothing may keep streaming or spinning."""
    for msg in state.messages.values():
        if msg.role == "assistant" and msg.time_completed is None and (msg.finish or error or not state.busy):
            _settle_message(msg, error)


def _settle_message(msg: Message, error: StructuredError | None) -> list[Change]:
    changes: list[Change] = []
    for part in msg.parts:
        if isinstance(part, TextBlock) and part.streaming:
            part.streaming = False
            part.version += 1
            changes.append(part_changed(msg.session_id, msg.id, part.key))
        elif isinstance(part, ToolCall) and not part.finished:
            part.status = "error"
            part.error = error or StructuredError(message="interrupted")
            part.version += 1
            changes.append(part_changed(msg.session_id, msg.id, part.key))
    return changes


def recount_usage(state: SessionState) -> None:
    """1.18 leaves session cost/tokens at 0: sum the assistant messages instead."""
    if state.usage_from_server:
        return
    assistants = [m for m in state.messages.values() if m.role == "assistant"]
    state.cost = max(sum((m.cost for m in assistants), 0.0), state.info.cost if state.info else 0.0)
    used = [m.tokens for m in assistants if m.tokens is not None]
    # One model from plain sums: a pydantic setattr per field and message costs far more.
    state.tokens = TokenUsage(
        input=sum(t.input for t in used), output=sum(t.output for t in used),
        reasoning=sum(t.reasoning for t in used),
        cache=CacheTokens(read=sum(t.cache.read for t in used), write=sum(t.cache.write for t in used)),
    ) if used else TokenUsage()


__all__ = ["HANDLERS", "contents"]
