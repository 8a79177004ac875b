"""Provides ``TreeApp`` (breadcrumb + subagent tree over a Store) and an event builder.

``Family`` writes hand-made v2 events through ``parse_event`` + ``Store.apply`` so unit tests and
snapshots share one vocabulary. Times are epoch ms from ``T0``; freeze ``tui.app.clock`` at
``NOW`` (seconds) to make elapsed times deterministic. Nothing touches the network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult

from tui.protocol.events import parse_event
from tui.state import tree, tree_nav
from tui.state.changes import Change
from tui.state.store import Store
from widgets.subagents.breadcrumb import Breadcrumb
from widgets.subagents.subagent_tree import SubagentTree

STYLES = Path(__file__).resolve().parents[2] / "styles"

T0 = 1_800_000_000_000.0
"""Epoch ms of the first event in every scenario."""

NOW = T0 / 1000 + 95
"""Frozen ``tui.app.clock`` (seconds): 95 s after ``T0``."""


class Family:
    """Builds v2 events for a session family and applies them to ``store``."""

    def __init__(self, store: Store | None = None) -> None:
        self.store = store or Store()
        self.t = T0
        self._n = 0

    # -- plumbing ---------------------------------------------------------------------------
    def emit(self, type: str, data: dict[str, Any]) -> list[Change]:
        self._n += 1
        frame = {"id": f"evt_{self._n:04d}", "type": type, "created": self.t, "data": data}
        return self.store.apply(parse_event(frame))

    def at(self, seconds: float) -> Family:
        """Move the event clock to ``T0 + seconds``."""
        self.t = T0 + seconds * 1000
        return self

    # -- sessions ---------------------------------------------------------------------------
    def session(self, sid: str, title: str | None = None, *, parent: str | None = None,
                agent: str = "build") -> None:
        data: dict[str, Any] = {"sessionID": sid, "agent": agent}
        if title is not None:
            data["title"] = title
        if parent is not None:
            data["parentID"] = parent
        self.emit("session.created", data)

    def busy(self, sid: str, busy: bool = True) -> None:
        self.emit("session.status", {"sessionID": sid, "status": {"type": "busy" if busy else "idle"}})

    def usage(self, sid: str, cost: float, tokens: float) -> None:
        self.emit("session.usage.updated", {"sessionID": sid, "cost": cost, "tokens": {
            "input": tokens * 0.8, "output": tokens * 0.2, "reasoning": 0,
            "cache": {"read": 0, "write": 0}}})

    def prompt(self, sid: str, mid: str, text: str = "go") -> None:
        self.emit("session.inbox.enqueued", {"sessionID": sid, "inboxID": mid,
                                             "item": {"type": "user", "payload": {"text": text}}})
        self.emit("session.inbox.delivered", {"sessionID": sid, "inboxID": mid})

    def step(self, sid: str, mid: str, agent: str = "build") -> None:
        self.emit("session.step.started", {"sessionID": sid, "assistantMessageID": mid,
                                           "agent": agent, "model": {"id": "m", "providerID": "p"}})

    def end_step(self, sid: str, mid: str, *, finish: str = "stop", cost: float = 0) -> None:
        self.emit("session.step.ended", {"sessionID": sid, "assistantMessageID": mid,
                                         "finish": finish, "cost": cost})

    def fail_step(self, sid: str, mid: str, message: str, kind: str = "provider") -> None:
        self.emit("session.step.failed", {"sessionID": sid, "assistantMessageID": mid,
                                          "error": {"type": kind, "message": message}})

    # -- subagent tool ----------------------------------------------------------------------
    def call(self, sid: str, mid: str, call: str, *, agent: str, description: str,
             background: bool = False, name: str = "subagent") -> None:
        base = {"sessionID": sid, "assistantMessageID": mid, "id": call}
        inp: dict[str, Any] = {"agent": agent, "description": description, "prompt": "do it"}
        if background:
            inp["background"] = True
        self.emit("session.tool.input.started", base | {"name": name})
        self.emit("session.tool.called", base | {"input": inp})

    def progress(self, sid: str, mid: str, call: str, child: str, status: str = "running") -> None:
        self.emit("session.tool.progress", {"sessionID": sid, "assistantMessageID": mid, "id": call,
                                            "metadata": {"sessionID": child, "status": status}})

    def succeed(self, sid: str, mid: str, call: str, child: str, status: str = "completed") -> None:
        text = f'<subagent sessionID="{child}" state="{status}">\ndone\n</subagent>'
        self.emit("session.tool.success", {
            "sessionID": sid, "assistantMessageID": mid, "id": call,
            "content": [{"type": "text", "text": text}],
            "metadata": {"sessionID": child, "status": status}})

    def fail(self, sid: str, mid: str, call: str, message: str, kind: str = "tool") -> None:
        self.emit("session.tool.failed", {"sessionID": sid, "assistantMessageID": mid, "id": call,
                                          "error": {"type": kind, "message": message}})

    def result(self, parent: str, child: str, state: str, *, description: str,
               agent: str = "general") -> None:
        """The synthetic message that reports a background child's end to its parent."""
        self.emit("session.synthetic", {
            "sessionID": parent, "description": description,
            "text": f'<subagent sessionID="{child}" state="{state}">\n…\n</subagent>',
            "metadata": {"source": "subagent", "childID": child, "agent": agent, "state": state}})

    def ask(self, sid: str, ask_id: str) -> None:
        self.emit("permission.asked", {"id": ask_id, "sessionID": sid, "action": "shell",
                                       "resources": ["rm -rf build"]})

    def spawn(self, parent: str, mid: str, call: str, child: str, *, agent: str, title: str,
              background: bool = False) -> None:
        """Tool call, child ``session.created``, progress link, child prompt and first step."""
        self.call(parent, mid, call, agent=agent, description=title, background=background)
        self.session(child, title, parent=parent, agent=agent)
        self.progress(parent, mid, call, child)
        if background:
            self.succeed(parent, mid, call, child, status="running")
        self.prompt(child, f"{child}_u")
        self.step(child, f"{child}_a", agent=agent)


def mid_run() -> Family:
    """Root delegating four children: one done (with a grandchild), one running, one in the
    background and one waiting for a permission."""
    f = Family()
    f.session("ses_root", "Refactor the auth middleware")
    f.prompt("ses_root", "u1")
    f.step("ses_root", "a1")
    f.at(5).spawn("ses_root", "a1", "c1", "ses_map", agent="explore", title="Map the repository")
    f.at(8).spawn("ses_map", "ses_map_a", "g1", "ses_readme", agent="explore", title="Read the README")
    f.at(14).end_step("ses_readme", "ses_readme_a")
    f.usage("ses_readme", 0.0012, 2_220)
    f.succeed("ses_map", "ses_map_a", "g1", "ses_readme")
    f.at(20).end_step("ses_map", "ses_map_a")
    f.usage("ses_map", 0.0024, 4_440)
    f.succeed("ses_root", "a1", "c1", "ses_map")
    f.at(22).spawn("ses_root", "a1", "c2", "ses_test", agent="general", title="Run the flaky test")
    f.usage("ses_test", 0.0150, 12_300)
    f.at(30).spawn("ses_root", "a1", "c3", "ses_log", agent="general", title="Summarise the changelog",
                   background=True)
    f.at(41).spawn("ses_root", "a1", "c4", "ses_clean", agent="general", title="Clean build artefacts")
    f.at(50).ask("ses_clean", "per_1")
    f.usage("ses_root", 0.0410, 31_000)
    return f


def finished() -> Family:
    """``mid_run`` carried to the end: everything answered, the background result delivered."""
    f = mid_run()
    f.at(60).emit("permission.replied", {"sessionID": "ses_clean", "requestID": "per_1", "reply": "once"})
    f.at(62).end_step("ses_clean", "ses_clean_a")
    f.usage("ses_clean", 0.0031, 3_900)
    f.succeed("ses_root", "a1", "c4", "ses_clean")
    f.at(70).end_step("ses_test", "ses_test_a")
    f.succeed("ses_root", "a1", "c2", "ses_test")
    f.at(75).end_step("ses_log", "ses_log_a")
    f.usage("ses_log", 0.0044, 6_100)
    f.result("ses_root", "ses_log", "completed", description="Summarise the changelog")
    f.at(80).end_step("ses_root", "a1", finish="tool-calls")
    f.step("ses_root", "a2")
    f.at(84).end_step("ses_root", "a2")
    return f


def with_failures() -> Family:
    """One child failed (rate limited), one cancelled, one completed."""
    f = Family()
    f.session("ses_root", "Fix the flaky SSE reconnect test")
    f.prompt("ses_root", "u1")
    f.step("ses_root", "a1")
    f.at(3).spawn("ses_root", "a1", "c1", "ses_test", agent="general", title="Run the flaky test")
    f.at(9).fail_step("ses_test", "ses_test_a", "Provider request failed with HTTP 429: rate limited")
    f.fail("ses_root", "a1", "c1", "Subagent failed (sessionID: ses_test): Provider request failed "
           "with HTTP 429: rate limited")
    f.at(10).spawn("ses_root", "a1", "c2", "ses_bisect", agent="general", title="Bisect the regression")
    f.at(31).busy("ses_bisect", False)
    f.fail("ses_root", "a1", "c2", "Subagent cancelled (sessionID: ses_bisect)", kind="aborted")
    f.at(32).spawn("ses_root", "a1", "c3", "ses_logs", agent="explore", title="Collect CI logs")
    f.at(40).end_step("ses_logs", "ses_logs_a")
    f.usage("ses_logs", 0.0009, 1_800)
    f.succeed("ses_root", "a1", "c3", "ses_logs")
    f.at(44).end_step("ses_root", "a1")
    f.usage("ses_root", 0.0123, 9_000)
    return f


class TreeApp(App[None]):
    """A breadcrumb over a subagent tree, both fed from ``family.store``; records messages."""

    CSS_PATH = [STYLES / "subagent_tree.tcss"]

    def __init__(self, family: Family, current: str, root: str | None = None) -> None:
        super().__init__()
        self.family = family
        self.current = current
        self.root_id = root
        self.opened: list[str] = []
        self.stopped: list[str] = []
        self.navigated: list[str] = []
        self.animation_level = "none"

    def compose(self) -> ComposeResult:
        yield Breadcrumb()
        yield SubagentTree()

    def on_mount(self) -> None:
        self.refresh_views()
        self.query_one(SubagentTree).focus()

    def refresh_views(self) -> None:
        store = self.family.store
        root = self.root_id or tree_nav.root_of(store, self.current)
        self.query_one(SubagentTree).show_tree(tree.build_tree(store, root), self.current)
        self.query_one(Breadcrumb).show_path(tree_nav.breadcrumb(store, self.current))

    def on_subagent_tree_open_session(self, message: SubagentTree.OpenSession) -> None:
        self.opened.append(message.session_id)

    def on_subagent_tree_stop_session(self, message: SubagentTree.StopSession) -> None:
        self.stopped.append(message.session_id)

    def on_breadcrumb_navigate(self, message: Breadcrumb.Navigate) -> None:
        self.navigated.append(message.session_id)
