"""``tui.state.tree``: structure, status, times, roll-up and navigation over a real Store.

Events are hand-made v2 frames applied through ``parse_event`` + ``Store.apply`` (``Family`` in
``tests/snapshots/tree_app.py``); one test replays the demo server's ``subagents`` script.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.snapshots.tree_app import T0, Family, finished, mid_run, with_failures
from tui.state import tree, tree_nav
from tui.state.tree import TreeNode, build_tree


def shape(node: TreeNode) -> list[tuple[int, str, str]]:
    return [(n.depth, n.session_id, n.status) for n in node.walk()]


def root_family() -> Family:
    f = Family()
    f.session("ses_root", "Root")
    f.prompt("ses_root", "u1")
    f.step("ses_root", "a1")
    return f


# ------------------------------------------------------------------------------ status
def test_foreground_child_completes() -> None:
    f = root_family()
    f.at(2).spawn("ses_root", "a1", "c1", "ses_kid", agent="explore", title="Look around")
    running = build_tree(f.store, "ses_root")
    kid = running.children[0]
    assert (kid.session_id, kid.status, kid.title, kid.agent) == ("ses_kid", "running", "Look around",
                                                                   "explore")
    assert kid.ended is None and kid.started == T0 + 2000
    assert kid.link is not None
    assert (kid.link.session_id, kid.link.message_id, kid.link.call_id) == ("ses_root", "a1", "c1")
    f.at(9).end_step("ses_kid", "ses_kid_a")
    f.succeed("ses_root", "a1", "c1", "ses_kid")
    kid = build_tree(f.store, "ses_root").children[0]
    assert kid.status == "completed"
    assert kid.ended == T0 + 9000 and kid.elapsed_ms(0) == 7000


def test_background_child_runs_until_the_synthetic_result() -> None:
    f = root_family()
    f.at(1).spawn("ses_root", "a1", "c1", "ses_bg", agent="general", title="Summarise", background=True)
    f.at(4).end_step("ses_bg", "ses_bg_a")  # the child is idle, but its result is not delivered yet
    node = build_tree(f.store, "ses_root").children[0]
    assert node.background and node.status == "running" and node.ended is None
    f.at(5).result("ses_root", "ses_bg", "completed", description="Summarise")
    node = build_tree(f.store, "ses_root").children[0]
    assert node.status == "completed" and node.ended == T0 + 5000


@pytest.mark.parametrize("state", ["error", "cancelled"])
def test_background_child_failure_comes_from_the_result(state: str) -> None:
    f = root_family()
    f.spawn("ses_root", "a1", "c1", "ses_bg", agent="general", title="Summarise", background=True)
    f.result("ses_root", "ses_bg", state, description="Summarise")
    f.busy("ses_bg", False)
    assert build_tree(f.store, "ses_root").children[0].status == state


def test_failed_and_cancelled_children() -> None:
    node = build_tree(with_failures().store, "ses_root")
    by_id = {n.session_id: n for n in node.walk()}
    assert by_id["ses_test"].status == "error"
    assert by_id["ses_test"].error == "Provider request failed with HTTP 429: rate limited"
    assert by_id["ses_test"].ended == T0 + 9000
    assert by_id["ses_bisect"].status == "cancelled" and by_id["ses_bisect"].error is None
    assert by_id["ses_logs"].status == "completed"


def test_cancel_message_without_aborted_type_is_still_cancelled() -> None:
    f = root_family()
    f.spawn("ses_root", "a1", "c1", "ses_kid", agent="general", title="Kid")
    f.fail("ses_root", "a1", "c1", "Subagent cancelled (sessionID: ses_kid)")
    assert build_tree(f.store, "ses_root").children[0].status == "cancelled"


def test_child_asking_for_permission_is_waiting() -> None:
    node = build_tree(mid_run().store, "ses_root")
    clean = node.find("ses_clean")
    assert clean is not None and clean.status == "waiting" and clean.pending_asks == 1
    assert node.status == "running" and node.pending_asks == 0
    assert node.attention  # the root shows that something below waits
    assert not node.children[0].attention


def test_waiting_ends_when_the_ask_is_answered() -> None:
    f = mid_run()
    f.emit("permission.replied", {"sessionID": "ses_clean", "requestID": "per_1", "reply": "once"})
    clean = build_tree(f.store, "ses_root").find("ses_clean")
    assert clean is not None and clean.status == "running"


def test_child_prompted_again_after_finishing_runs_again() -> None:
    f = root_family()
    f.at(1).spawn("ses_root", "a1", "c1", "ses_kid", agent="general", title="Kid")
    f.at(3).end_step("ses_kid", "ses_kid_a")
    f.succeed("ses_root", "a1", "c1", "ses_kid")
    f.at(10).prompt("ses_kid", "again")
    f.step("ses_kid", "ses_kid_b")
    assert build_tree(f.store, "ses_root").children[0].status == "running"


def test_root_status_follows_its_own_session() -> None:
    f = root_family()
    assert build_tree(f.store, "ses_root").status == "running"
    f.end_step("ses_root", "a1")
    assert build_tree(f.store, "ses_root").status == "completed"


# ------------------------------------------------------------------------------ structure
def test_nested_grandchild_and_ordering() -> None:
    node = build_tree(finished().store, "ses_root")
    assert [(d, sid) for d, sid, _ in shape(node)] == [
        (0, "ses_root"), (1, "ses_map"), (2, "ses_readme"), (1, "ses_test"), (1, "ses_log"),
        (1, "ses_clean")]
    assert all(status == "completed" for _, _, status in shape(node))


def test_cost_and_tokens_roll_up() -> None:
    node = build_tree(finished().store, "ses_root")
    mapping = node.children[0]
    assert mapping.cost == pytest.approx(0.0024)
    assert mapping.total_cost == pytest.approx(0.0024 + 0.0012)
    assert mapping.total_tokens == pytest.approx(4_440 + 2_220)
    assert node.total_cost == pytest.approx(0.0410 + 0.0036 + 0.0150 + 0.0044 + 0.0031)


def test_child_events_before_the_link_and_before_session_created() -> None:
    f = root_family()
    f.call("ses_root", "a1", "c1", agent="general", description="Early bird")
    f.prompt("ses_kid", "ses_kid_u")  # the child's own events come first
    f.step("ses_kid", "ses_kid_a", agent="general")
    assert build_tree(f.store, "ses_root").children == []  # nothing links it yet
    f.progress("ses_root", "a1", "c1", "ses_kid")  # link before session.created
    kid = build_tree(f.store, "ses_root").children[0]
    assert (kid.session_id, kid.title, kid.status, kid.agent) == ("ses_kid", "Early bird", "running",
                                                                   "general")
    f.session("ses_kid", "Early bird (server title)", parent="ses_root", agent="general")
    node = build_tree(f.store, "ses_root")
    assert [c.session_id for c in node.children] == ["ses_kid"]
    assert node.children[0].title == "Early bird (server title)"


def test_session_created_before_the_link() -> None:
    f = root_family()
    f.session("ses_kid", "Kid", parent="ses_root", agent="explore")
    kid = build_tree(f.store, "ses_root").children[0]
    assert kid.link is None and kid.agent == "explore"
    f.call("ses_root", "a1", "c1", agent="explore", description="Kid")
    f.progress("ses_root", "a1", "c1", "ses_kid")
    kid = build_tree(f.store, "ses_root").children[0]
    assert kid.link is not None and kid.link.call_id == "c1"


def test_child_seen_only_through_the_tool_link() -> None:
    f = root_family()
    f.call("ses_root", "a1", "c1", agent="general", description="Ghost")
    f.progress("ses_root", "a1", "c1", "ses_ghost")
    kid = build_tree(f.store, "ses_root").children[0]
    assert (kid.session_id, kid.title, kid.known, kid.status) == ("ses_ghost", "Ghost", False, "running")
    assert kid.started == T0  # from the tool call


def test_parent_id_wins_over_a_stray_link() -> None:
    f = root_family()
    f.session("ses_other", "Other root")
    f.session("ses_kid", "Kid", parent="ses_other")
    f.call("ses_root", "a1", "c1", agent="general", description="Kid")
    f.progress("ses_root", "a1", "c1", "ses_kid")
    assert build_tree(f.store, "ses_root").children == []
    assert [c.session_id for c in build_tree(f.store, "ses_other").children] == ["ses_kid"]


def test_reused_child_appears_once_with_the_latest_call() -> None:
    f = root_family()
    f.spawn("ses_root", "a1", "c1", "ses_kid", agent="general", title="Kid")
    f.succeed("ses_root", "a1", "c1", "ses_kid")
    f.call("ses_root", "a1", "c2", agent="general", description="Kid again")
    f.progress("ses_root", "a1", "c2", "ses_kid")
    node = build_tree(f.store, "ses_root")
    assert [c.session_id for c in node.children] == ["ses_kid"]
    assert node.children[0].link is not None and node.children[0].link.call_id == "c2"
    assert node.children[0].status == "running"


def test_untrusted_titles_are_single_line_and_visible() -> None:
    f = root_family()
    f.session("ses_kid", "evil\x1b]0;pwned\x07 title\nsecond line", parent="ses_root")
    assert build_tree(f.store, "ses_root").children[0].title == "evil␛]0;pwned␇ title second line"


# ------------------------------------------------------------------------------ navigation
def test_navigation_helpers() -> None:
    store = finished().store
    assert tree_nav.parent_of(store, "ses_readme") == "ses_map"
    assert tree_nav.parent_of(store, "ses_root") is None
    assert tree_nav.root_of(store, "ses_readme") == "ses_root"
    assert tree_nav.siblings(store, "ses_test") == ["ses_map", "ses_test", "ses_log", "ses_clean"]
    assert tree_nav.siblings(store, "ses_root") == ["ses_root"]
    assert tree_nav.next_sibling(store, "ses_test") == "ses_log"
    assert tree_nav.next_sibling(store, "ses_clean") == "ses_map"  # wraps
    assert tree_nav.previous_sibling(store, "ses_map") == "ses_clean"
    assert tree_nav.next_sibling(store, "ses_readme") is None  # an only child
    assert tree_nav.first_child(store, "ses_root") == "ses_map"
    assert tree_nav.first_child(store, "ses_readme") is None
    assert tree_nav.children_of(store, "ses_map") == ["ses_readme"]
    assert tree_nav.breadcrumb(store, "ses_readme") == [
        ("ses_root", "Refactor the auth middleware"), ("ses_map", "Map the repository"),
        ("ses_readme", "Read the README")]
    assert tree_nav.descendants(store, "ses_root") == [
        "ses_map", "ses_readme", "ses_test", "ses_log", "ses_clean"]
    assert tree_nav.descendants(store, "ses_map") == ["ses_readme"]


def test_navigation_through_a_link_only_child() -> None:
    f = root_family()
    f.call("ses_root", "a1", "c1", agent="general", description="Ghost")
    f.progress("ses_root", "a1", "c1", "ses_ghost")
    assert tree_nav.parent_of(f.store, "ses_ghost") == "ses_root"
    assert tree_nav.breadcrumb(f.store, "ses_ghost") == [("ses_root", "Root"), ("ses_ghost", "Ghost")]
    assert tree_nav.root_of(f.store, "ses_ghost") == "ses_root"


def test_missing_parent_is_a_root() -> None:
    f = Family()
    f.session("ses_orphan", "Orphan", parent="ses_gone")
    assert tree_nav.root_of(f.store, "ses_orphan") == "ses_orphan"
    assert tree_nav.parent_of(f.store, "ses_orphan") == "ses_gone"  # the app may fetch it
    assert tree_nav.breadcrumb(f.store, "ses_orphan") == [("ses_orphan", "Orphan")]
    assert build_tree(f.store, "ses_gone").children[0].session_id == "ses_orphan"


def test_cycles_terminate() -> None:
    f = Family()
    f.session("ses_a", "A", parent="ses_b")
    f.session("ses_b", "B", parent="ses_a")
    f.session("ses_self", "Self", parent="ses_self")
    node = build_tree(f.store, "ses_a")
    assert [n.session_id for n in node.walk()] == ["ses_a", "ses_b"]
    assert tree_nav.root_of(f.store, "ses_a") in ("ses_a", "ses_b")
    assert [sid for sid, _ in tree_nav.breadcrumb(f.store, "ses_a")] == ["ses_b", "ses_a"]
    assert tree_nav.descendants(f.store, "ses_b") == ["ses_a"]
    assert tree_nav.parent_of(f.store, "ses_self") is None
    assert build_tree(f.store, "ses_self").children == []
    # a cycle made of tool links only
    g = Family()
    for sid, kid in (("ses_x", "ses_y"), ("ses_y", "ses_x")):
        g.prompt(sid, f"{sid}_u")
        g.step(sid, f"{sid}_a")
        g.call(sid, f"{sid}_a", "c1", agent="general", description=kid)
        g.progress(sid, f"{sid}_a", "c1", kid)
    assert [n.session_id for n in build_tree(g.store, "ses_x").walk()] == ["ses_x", "ses_y"]
    assert len(tree_nav.breadcrumb(g.store, "ses_x")) == 2
    assert tree_nav.siblings(g.store, "ses_x") == ["ses_x"]


def test_deep_chain_is_cut_off() -> None:
    f = Family()
    f.session("ses_0", "0")
    for n in range(1, tree.MAX_DEPTH + 10):
        f.session(f"ses_{n}", str(n), parent=f"ses_{n - 1}")
    depth = max(n.depth for n in build_tree(f.store, "ses_0").walk())
    assert depth == tree.MAX_DEPTH
    assert len(tree_nav.breadcrumb(f.store, f"ses_{tree.MAX_DEPTH + 9}")) <= tree.MAX_DEPTH + 1


# ------------------------------------------------------------------------------ demo + hygiene
async def test_demo_subagents_script() -> None:
    server_mod = pytest.importorskip("tui.demo.server")
    from tui.protocol.events import parse_event
    from tui.state.store import Store

    server = server_mod.DemoServer(speed=0)
    try:
        root = server.create_session(title="Root")["id"]
        server.run_script(root, "subagents")
        await server.idle()
        store = Store()
        for event in server.emitted:
            store.apply(parse_event(event))
        node = build_tree(store, root)
        statuses = sorted(c.status for c in node.children)
        assert len(node.children) >= 3
        assert "error" in statuses and "waiting" in statuses
        assert any(c.children for c in node.children)  # a nested grandchild
        assert node.attention
    finally:
        await server.aclose()


def test_tree_module_does_not_import_textual() -> None:
    code = "import sys, tui.state.tree; sys.exit(1 if 'textual' in sys.modules else 0)"
    root = Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, "-c", code], check=False, cwd=root).returncode == 0
