"""Provides the subagent tree of a session: structure, status, times and cost roll-up.

Pure functions over a ``Store`` (no Textual). A child of session ``P`` is found two ways, and
either is enough:

* a session whose ``info.parentID`` is ``P`` (``session.created`` with ``parentID``);
* a ``subagent``/``task`` tool call in ``P``'s messages whose ``child_session_id`` is set
  (``session.tool.progress`` metadata ``{sessionID, status}``), even before the child's own
  ``session.created`` arrived.

When both disagree, ``info.parentID`` wins. Every walk guards against cycles and missing
parents, so a malformed store can never loop forever.

Navigation helpers for the main screen's keys: ``parent_of`` (go to parent), ``siblings`` /
``next_sibling`` / ``previous_sibling`` (sibling cycling), ``first_child`` (go down),
``root_of``, ``breadcrumb`` (path from the root) and ``descendants`` (stop a subtree).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from tui.protocol.models import TokenUsage
from tui.state.store import Store
from tui.state.transcript import SUBAGENT_TOOLS, Message, SessionState, ToolCall
from tui.text.sanitize import clean_text

NodeStatus = Literal["running", "completed", "error", "cancelled", "waiting"]

MAX_DEPTH = 64
"""Deeper nesting than this is treated as corrupt and cut off."""

_TERMINAL: frozenset[str] = frozenset({"completed", "error", "cancelled"})
_SUBAGENT_PREFIX = re.compile(r"^Subagent (?:failed|cancelled) \(sessionID: [^)]*\):?\s*")


@dataclass
class ToolLink:
    """The parent's tool call that spawned (or continued) a child session."""

    session_id: str
    """The parent session holding the call."""
    message_id: str
    """The parent's assistant message holding the call."""
    call_id: str
    """The tool call id inside that message."""
    call: ToolCall
    """The call itself (live object from the store)."""

    @property
    def background(self) -> bool:
        return self.call.input.get("background") is True or (
            self.call.status == "completed" and self.call.metadata.get("status") == "running")


@dataclass
class TreeNode:
    """One session in the subagent tree, with everything a row needs to render."""

    session_id: str
    title: str
    agent: str | None = None
    status: NodeStatus = "running"
    started: float | None = None
    """Epoch ms of the first known activity."""
    ended: float | None = None
    """Epoch ms of completion; ``None`` while running or waiting."""
    cost: float = 0.0
    tokens: TokenUsage = field(default_factory=TokenUsage)
    total_cost: float = 0.0
    """Own cost plus every descendant's."""
    total_tokens: float = 0.0
    """Own plus every descendant's token total."""
    context_tokens: float = 0.0
    """Tokens of the latest step (context window in use)."""
    pending_asks: int = 0
    error: str | None = None
    """Why the child failed or was cancelled, when known."""
    depth: int = 0
    children: list[TreeNode] = field(default_factory=list)
    link: ToolLink | None = None
    known: bool = True
    """False when the session itself was never seen (only the tool link names it)."""

    @property
    def background(self) -> bool:
        return self.link is not None and self.link.background

    @property
    def attention(self) -> bool:
        """This node or a descendant waits for the user."""
        return any(n.pending_asks for n in self.walk())

    @property
    def finished(self) -> bool:
        return self.status in _TERMINAL

    def elapsed_ms(self, now_ms: float) -> float | None:
        """Run time so far (running) or in total (finished); ``None`` when unknown."""
        if self.started is None:
            return None
        end = self.ended if self.ended is not None else now_ms
        return max(0.0, end - self.started)

    def walk(self) -> Iterator[TreeNode]:
        """This node, then its descendants, depth first (pre-order)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def find(self, session_id: str) -> TreeNode | None:
        return next((n for n in self.walk() if n.session_id == session_id), None)


# ------------------------------------------------------------------------------ indexes
def _tool_links(state: SessionState) -> list[ToolLink]:
    """Subagent tool calls of ``state`` that name a child, in transcript order."""
    links: list[ToolLink] = []
    for msg in state.messages.values():
        if msg.role != "assistant":
            continue
        for part in msg.parts:
            if not isinstance(part, ToolCall):
                continue
            child = part.child_session_id
            if child and child != state.id and (part.name in SUBAGENT_TOOLS or not part.name):
                links.append(ToolLink(state.id, msg.id, part.id, part))
    return links


def _synthetic_results(state: SessionState) -> dict[str, Message]:
    """``childID -> synthetic message`` for background results delivered to ``state``, or only
    admitted so far (the 2.0 preview announces a finished background child as a pending
    synthetic input that wakes the parent later)."""
    found: dict[str, Message] = {}
    for pending in state.inbox.values():
        if pending.kind == "synthetic" and pending.metadata.get("source") == "subagent":
            child = pending.metadata.get("childID")
            if isinstance(child, str) and child:
                found[child] = Message(id=pending.id, role="synthetic", session_id=state.id,
                                       text=pending.text, description=pending.description,
                                       metadata=pending.metadata, time_created=pending.time_created)
    for msg in state.messages.values():
        if msg.role == "synthetic" and msg.metadata.get("source") == "subagent":
            child = msg.metadata.get("childID")
            if isinstance(child, str) and child:
                found[child] = msg
    return found


def _info_parent(store: Store, session_id: str) -> str | None:
    state = store.sessions.get(session_id)
    parent = state.parent_id if state is not None else None
    return parent if parent and parent != session_id else None


class _Index:
    """Parent/child lookups over the whole store, computed once per query."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.by_parent: dict[str, list[str]] = {}
        for sid in store.sessions:
            parent = _info_parent(store, sid)
            if parent is not None:
                self.by_parent.setdefault(parent, []).append(sid)
        self._links: dict[str, list[ToolLink]] = {}
        self._results: dict[str, dict[str, Message]] = {}

    def links(self, session_id: str) -> list[ToolLink]:
        if session_id not in self._links:
            state = self.store.sessions.get(session_id)
            self._links[session_id] = _tool_links(state) if state is not None else []
        return self._links[session_id]

    def results(self, session_id: str) -> dict[str, Message]:
        if session_id not in self._results:
            state = self.store.sessions.get(session_id)
            self._results[session_id] = _synthetic_results(state) if state is not None else {}
        return self._results[session_id]

    def children(self, session_id: str) -> list[tuple[str, ToolLink | None]]:
        """Child ids of ``session_id`` with their latest link, ordered by creation."""
        order: list[str] = []
        linked: dict[str, ToolLink] = {}
        first_link: dict[str, ToolLink] = {}
        for link in self.links(session_id):
            child = link.call.child_session_id or ""
            info_parent = _info_parent(self.store, child)
            if info_parent is not None and info_parent != session_id:
                continue  # the child's own parentID says otherwise, and it wins
            if child not in linked:
                order.append(child)
                first_link[child] = link
            linked[child] = link  # a reused child: the latest call decides its status
        for child in self.by_parent.get(session_id, []):
            if child not in linked:
                order.append(child)

        def created(item: tuple[int, str]) -> tuple[float, int]:
            index, child = item
            state = self.store.sessions.get(child)
            stamp = state.info.time.created if state and state.info and state.info.time.created else None
            if stamp is None and child in first_link:
                stamp = first_link[child].call.time_created
            if stamp is None and state is not None:
                stamp = next((m.time_created for m in state.messages.values() if m.time_created), None)
            return (stamp if stamp is not None else math.inf, index)

        ranked = sorted(enumerate(order), key=created)
        return [(child, linked.get(child)) for _, child in ranked]

    def linking_parent(self, session_id: str) -> str | None:
        """The session whose tool call names ``session_id`` (full scan: navigation only)."""
        for sid in self.store.sessions:
            if sid != session_id and any(
                    link.call.child_session_id == session_id for link in self.links(sid)):
                return sid
        return None


# ------------------------------------------------------------------------------ status
def _link_state(link: ToolLink, results: dict[str, Message]) -> tuple[str, float | None, str | None]:
    """``(state, ended_ms, error)`` as the parent sees the child."""
    call, child = link.call, link.call.child_session_id or ""
    if call.status == "error":
        message = call.error.message if call.error else ""
        kind = call.error.type if call.error else ""
        lowered = message.lower()
        cancelled = "cancel" in lowered or "interrupt" in lowered or kind == "aborted"
        return ("cancelled" if cancelled else "error"), call.time_completed, message or None
    if call.status == "completed":
        meta = call.metadata.get("status")
        if meta == "running" or (call.input.get("background") is True and meta is None):
            return _synthetic_state(results.get(child))
        if meta in ("error", "failed"):
            return "error", call.time_completed, None
        if meta == "cancelled":
            return "cancelled", call.time_completed, None
        return "completed", call.time_completed, None
    progress = call.progress.get("status")
    if progress in _TERMINAL:
        return str(progress), call.time_completed, None
    return "running", None, None


def _synthetic_state(result: Message | None) -> tuple[str, float | None, str | None]:
    if result is None:
        return "running", None, None  # a background child: running until its result arrives
    state = result.metadata.get("state")
    state = state if state in _TERMINAL else "completed"
    return str(state), result.time_created, None


def _last_activity(state: SessionState | None) -> float | None:
    if state is None:
        return None
    stamps = [t for m in state.messages.values() for t in (m.time_created, m.time_completed) if t]
    return max(stamps) if stamps else None


def _own_state(state: SessionState | None) -> tuple[str, str | None]:
    """Status from the session alone (roots, and children with no tool link or result)."""
    if state is None:
        return "running", None
    if state.busy:
        return "running", None
    last = next((m for m in reversed(state.messages.values()) if m.role == "assistant"), None)
    if last is not None and last.error is not None:
        kind, message = last.error.type, last.error.message
        if kind == "aborted" or "interrupt" in message.lower() or "cancel" in message.lower():
            return "cancelled", message or None
        return "error", message or None
    return "completed", None


def _status(store: Store, sid: str, link: ToolLink | None,
            result: Message | None) -> tuple[NodeStatus, float | None, str | None]:
    state = store.sessions.get(sid)
    if link is not None:
        kind, ended, error = _link_state(link, {sid: result} if result is not None else {})
    elif result is not None:
        kind, ended, error = _synthetic_state(result)
    else:
        kind, error = _own_state(state)
        ended = None
    if kind in _TERMINAL and state is not None and state.busy:
        activity = _last_activity(state)
        if ended is None or (activity is not None and activity > ended):
            kind, ended = "running", None  # the child was prompted again after it finished
    if store.asks_for(sid) and kind not in ("error", "cancelled"):
        kind, ended = "waiting", None
    if kind in _TERMINAL and ended is None:
        ended = _last_activity(state)
    if kind not in _TERMINAL:
        ended = None
    return kind, ended, error  # type: ignore[return-value]


# ------------------------------------------------------------------------------ build
def _title(state: SessionState | None, link: ToolLink | None, sid: str) -> str:
    raw = state.info.title if state is not None and state.info is not None else None
    if not raw and link is not None:
        desc = link.call.input.get("description")
        raw = desc if isinstance(desc, str) else None
    return one_line(raw or sid)


def _agent(state: SessionState | None, link: ToolLink | None, result: Message | None) -> str | None:
    if state is not None and state.info is not None and state.info.agent:
        return one_line(state.info.agent)
    if link is not None:
        for key in ("agent", "subagent_type"):
            value = link.call.input.get(key)
            if isinstance(value, str) and value:
                return one_line(value)
    if result is not None and isinstance(result.metadata.get("agent"), str):
        return one_line(result.metadata["agent"])
    if state is not None:
        last = next((m.agent for m in reversed(state.messages.values()) if m.agent), None)
        return one_line(last) if last else None
    return None


def _started(state: SessionState | None, link: ToolLink | None) -> float | None:
    if state is not None:
        first = next((m.time_created for m in state.messages.values() if m.time_created), None)
        if first is not None:
            return first
        if state.info is not None and state.info.time.created:
            return state.info.time.created
    if link is not None:
        return link.call.time_ran or link.call.time_created
    return None


def _node(store: Store, index: _Index, sid: str, link: ToolLink | None, depth: int,
          path: set[str], placed: set[str]) -> TreeNode:
    state = store.sessions.get(sid)
    parent_sid = link.session_id if link is not None else _info_parent(store, sid)
    result = index.results(parent_sid).get(sid) if parent_sid is not None else None
    status, ended, error = _status(store, sid, link, result)
    node = TreeNode(
        session_id=sid,
        title=_title(state, link, sid),
        agent=_agent(state, link, result),
        status=status,
        started=_started(state, link),
        ended=ended,
        cost=state.cost if state is not None else 0.0,
        tokens=state.tokens.model_copy(deep=True) if state is not None else TokenUsage(),
        context_tokens=state.context_tokens if state is not None else 0.0,
        pending_asks=len(store.asks_for(sid)),
        error=_reason(error),
        depth=depth,
        link=link,
        known=state is not None,
    )
    placed.add(sid)
    if depth < MAX_DEPTH:
        path.add(sid)
        for child, child_link in index.children(sid):
            if child in path or child in placed:
                continue  # a cycle, or a child already shown elsewhere
            node.children.append(_node(store, index, child, child_link, depth + 1, path, placed))
        path.discard(sid)
    node.total_cost = node.cost + sum(c.total_cost for c in node.children)
    node.total_tokens = node.tokens.total + sum(c.total_tokens for c in node.children)
    return node


def build_tree(store: Store, root_id: str) -> TreeNode:
    """The tree of ``root_id`` and every descendant known to ``store``.

    ``root_id`` is shown as the root even if it has a parent; pass ``root_of(store, sid)`` to
    get the whole family of ``sid``.
    """
    index = _Index(store)
    link = None
    parent = _info_parent(store, root_id) or index.linking_parent(root_id)
    if parent is not None:
        link = next((lk for lk in index.links(parent) if lk.call.child_session_id == root_id), None)
    return _node(store, index, root_id, link, 0, set(), set())


def _reason(error: str | None) -> str | None:
    """``Subagent failed (sessionID: …): rate limited`` -> ``rate limited``."""
    if not error:
        return None
    return one_line(_SUBAGENT_PREFIX.sub("", error)) or None


# ------------------------------------------------------------------------------ navigation
def one_line(text: str) -> str:
    """Server text made safe and single-line for a label."""
    return " ".join(clean_text(text).split())


__all__ = ["MAX_DEPTH", "NodeStatus", "SUBAGENT_TOOLS", "ToolLink", "TreeNode", "build_tree", "one_line"]
