"""Deterministic ids and the durable-event table shared by the demo server's parts."""

from __future__ import annotations

from collections import defaultdict

# Payload schema version of every durable event type (PROTOCOL.md §5.4, checked against
# openapi.json by tests/contract). Types absent here are live and carry no ``durable``.
DURABLE_VERSIONS: dict[str, int] = {
    "session.created": 1,
    "session.renamed": 1,
    "session.moved": 1,
    "session.deleted": 2,
    "session.forked": 2,
    "session.agent.selected": 1,
    "session.model.selected": 1,
    "session.inbox.enqueued": 1,
    "session.inbox.delivered": 1,
    "session.inbox.cancelled": 1,
    "session.inbox.delivery.changed": 1,
    "session.execution.started": 1,
    "session.execution.succeeded": 1,
    "session.execution.failed": 1,
    "session.execution.interrupted": 1,
    "session.instructions.updated": 2,
    "session.synthetic": 1,
    "session.skill.activated": 1,
    "session.shell.started": 1,
    "session.shell.ended": 1,
    "session.step.started": 1,
    "session.step.ended": 1,
    "session.step.failed": 1,
    "session.text.started": 1,
    "session.text.ended": 1,
    "session.reasoning.started": 1,
    "session.reasoning.ended": 1,
    "session.tool.input.started": 1,
    "session.tool.input.ended": 1,
    "session.tool.called": 1,
    "session.tool.success": 2,
    "session.tool.failed": 2,
    "session.retry.scheduled": 1,
    "session.compaction.started": 1,
    "session.compaction.ended": 1,
    "session.compaction.failed": 1,
    "session.revert.staged": 1,
    "session.revert.cleared": 1,
    "session.revert.committed": 1,
    "worktree.resolved": 1,
}

# The 2.0 preview's table (its own /openapi.json, checked by tests/contract): no inbox events and
# no worktree, but admitted/promoted inputs and admitted compactions.
PREVIEW_DURABLE_VERSIONS: dict[str, int] = {
    **{k: v for k, v in DURABLE_VERSIONS.items()
       if not k.startswith("session.inbox.") and k != "worktree.resolved"},
    "session.input.admitted": 1,
    "session.input.promoted": 1,
    "session.compaction.admitted": 1,
}

# kind -> (prefix, zero-padded width); events get more digits because there are many more.
_FORMATS: dict[str, tuple[str, int]] = {
    "ses": ("ses_demo", 4),
    "msg": ("msg_demo", 4),
    "evt": ("evt_demo", 6),
    "per": ("per_demo", 4),
    "que": ("que_demo", 4),
    "frm": ("frm_demo", 4),
}


class IdGenerator:
    """Counter-based ids (``ses_demo0001``, ``evt_demo000001``, ``call_1``): same run, same ids.

    ``run`` goes into session ids (``ses_demo7f3a_0001``): octui keeps settings and drafts per
    session id between runs, and ``--demo`` numbering its sessions from 1 every time gave a new
    run the last one's (a "full access" mode, a draft)."""

    def __init__(self, run: str = "") -> None:
        self._counters: defaultdict[str, int] = defaultdict(int)
        self._run = f"{run}_" if run else ""

    def __call__(self, kind: str) -> str:
        self._counters[kind] += 1
        n = self._counters[kind]
        if kind == "call":
            return f"call_{n}"
        prefix, width = _FORMATS.get(kind, (f"{kind}_demo", 4))
        if kind == "ses":
            prefix += self._run
        return f"{prefix}{n:0{width}d}"
