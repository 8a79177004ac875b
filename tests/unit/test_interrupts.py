"""Turns a killed server never ended: what streamed is kept and marked, running tools stop."""

from __future__ import annotations

from typing import Any

from tui.app.session_actions import message_copy_text
from tui.export import export_json, export_markdown
from tui.state.interrupts import INTERRUPTED, TOOL_INTERRUPTED
from tui.state.store import Store
from tui.state.transcript import Message, TextBlock, ToolCall

SID, MID = "ses_1", "msg_2"


def user() -> dict[str, Any]:
    return {"id": "msg_1", "type": "user", "text": "go", "time": {"created": 1}}


def assistant(text: str = "", *, tool: str | None = "running", finish: str | None = None,
              reasoning: str | None = None) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reasoning is not None:
        content.append({"type": "reasoning", "id": "reasoning-0", "text": reasoning})
    content.append({"type": "text", "id": "text-0", "text": text})
    if tool is not None:
        content.append({"type": "tool", "id": "call_1", "name": "bash",
                        "state": {"status": tool, "input": {"command": "sleep 30"}},
                        "time": {"created": 1000, "ran": 1100}})
    time = {"created": 2, "completed": 9} if finish else {"created": 2}
    return {"id": MID, "type": "assistant", "time": time, "finish": finish, "content": content}


def streamed_store(text: str = "streamed before the kill") -> Store:
    """What the store holds after a turn streamed ``text`` live and a tool started."""
    store = Store()
    store.load_history(SID, [user(), assistant()])
    message = store.session(SID).messages[MID]
    block = message.block("text", 0)
    assert block is not None
    block.text, block.streaming = text, True
    return store


def message(store: Store) -> Message:
    return store.session(SID).messages[MID]


def text_of(store: Store) -> str:
    block = message(store).block("text", 0)
    assert block is not None
    return block.text


def test_a_reload_keeps_what_streamed_and_a_running_turn_goes_on_appending() -> None:
    store = streamed_store()
    store.load_history(SID, [user(), assistant("")])  # the server saved no text yet (1.18)
    assert text_of(store) == "streamed before the kill"
    assert store.apply_delta("text", SID, MID, 0, " and after") is not None
    assert text_of(store) == "streamed before the kill and after"


def test_an_abandoned_turn_is_marked_and_the_lost_text_kept_apart() -> None:
    store = streamed_store()
    store.load_history(SID, [user(), assistant("")])
    changes = store.mark_abandoned(SID)
    msg = message(store)
    assert [c.kind for c in changes] == ["message"]
    assert msg.interrupted == INTERRUPTED and not msg.streaming
    assert msg.lost_text == "streamed before the kill"
    assert text_of(store) == "", "the block holds what the server has"
    tool = msg.tool("call_1")
    assert isinstance(tool, ToolCall)
    assert tool.status == "error" and tool.finished
    assert tool.error is not None and tool.error.type == "interrupted"
    assert tool.error.message == TOOL_INTERRUPTED
    assert tool.time_completed is not None, "the timer stops"
    # Shown, copied and exported as text the server did not keep; the JSON stays the server's.
    assert "streamed before the kill" in message_copy_text(msg)
    markdown = export_markdown(store.session(SID))
    assert "did not keep it" in markdown and "> streamed before the kill" in markdown
    parts = export_json(store.session(SID))["messages"][1]["parts"]
    assert parts[0] == {"type": "text", "text": ""}
    assert store.mark_abandoned(SID) == [], "marked once"


def test_a_second_reconnect_keeps_the_marks() -> None:
    store = streamed_store()
    store.load_history(SID, [user(), assistant("")])
    store.mark_abandoned(SID)
    ended = message(store).tool("call_1")
    assert ended is not None
    stopped = ended.time_completed
    store.load_history(SID, [user(), assistant("")])  # the history still says "running"
    msg = message(store)
    tool = msg.tool("call_1")
    assert tool is not None and tool.status == "error" and tool.time_completed == stopped
    assert msg.interrupted == INTERRUPTED and msg.lost_text == "streamed before the kill"
    assert store.mark_abandoned(SID) == []


def test_what_the_server_finished_is_the_truth() -> None:
    store = streamed_store("draft text")
    store.load_history(SID, [user(), assistant("the final text", tool="completed", finish="stop")])
    msg = message(store)
    assert text_of(store) == "the final text" and not msg.lost_text
    assert store.mark_abandoned(SID) == []


def test_text_that_is_not_a_continuation_is_not_carried() -> None:
    store = streamed_store("one version")
    store.load_history(SID, [user(), assistant("another version, saved")])
    assert text_of(store) == "another version, saved"
    store.mark_abandoned(SID)
    assert message(store).lost_text == ""


def test_a_block_the_server_never_saw_moves_to_the_lost_text() -> None:
    store = Store()
    store.load_history(SID, [user(), assistant(tool=None)])
    msg = message(store)
    msg.parts.append(TextBlock(kind="reasoning", ordinal=0, text="thinking hard", streaming=True))
    store.load_history(SID, [user(), assistant(tool=None)])
    assert message(store).block("reasoning", 0) is not None, "kept while the turn may run"
    store.mark_abandoned(SID)
    msg = message(store)
    assert msg.block("reasoning", 0) is None
    assert msg.lost_text == "(thinking) thinking hard"


def test_the_interrupted_note_shows_the_lost_text_as_data() -> None:
    """The lost text is the server's: markup stays text, hidden characters are styled tokens, and
    past ``LOST_SHOWN_CHARS`` the note says how much more copy and export hold."""
    from widgets.plain import content_runs
    from widgets.transcript.message_view import LOST_SHOWN_CHARS, interrupted_note

    lost = "[/b]x\x1b]0;t\x07 " + "y" * LOST_SHOWN_CHARS
    note = interrupted_note(Message(id="msg_i", role="assistant", interrupted=INTERRUPTED, lost_text=lost))
    lines = note.plain.splitlines()
    assert lines[0] == f"⚠ {INTERRUPTED}"
    assert f"({len(lost):,} characters;" in lines[1]
    assert lines[2].startswith("[/b]x␛]0;t␇ yyy")
    assert lines[2].endswith(f" … {len(lost) - LOST_SHOWN_CHARS:,} more characters not shown")
    assert [piece for piece, token in content_runs(note) if token] == ["␛", "␇"]


def test_lost_text_of_control_characters_only_is_shown_not_dropped() -> None:
    from widgets.transcript.message_view import interrupted_note

    def note(lost: str) -> str:
        return interrupted_note(Message(id="msg_i", role="assistant", interrupted=INTERRUPTED,
                                        lost_text=lost)).plain

    assert note("\x0b\x0c").endswith("␋␌")  # Python's str.strip() takes them for whitespace
    assert note(" \n ") == f"⚠ {INTERRUPTED}"


# -- a later restart must not erase an earlier turn's marks -------------------------------------

MID2 = "msg_4"


def second_turn(tool: str = "pending") -> list[dict[str, Any]]:
    """The session's next turn as 1.18.33 keeps it: its prompt and an open assistant message
    whose shell tool waits on a permission."""
    return [{"id": "msg_3", "type": "user", "text": "run it", "time": {"created": 10}},
            {"id": MID2, "type": "assistant", "time": {"created": 11},
             "content": [{"type": "text", "id": "text-0", "text": ""},
                         {"type": "tool", "id": "call_2", "name": "bash",
                          "state": {"status": tool, "input": {"command": "sleep 20"}},
                          "time": {"created": 12}}]}]


def closed_first_turn() -> dict[str, Any]:
    """The first turn once the next one started (1.18.33): closed, no finish, still no text."""
    raw = assistant("", tool=None)
    raw["time"] = {"created": 2, "completed": 9}
    return raw


def test_a_later_restart_keeps_an_earlier_turns_marks_and_kept_text() -> None:
    """Restart 1 marks turn 1; turn 2 starts (the server closes turn 1's message); restart 2
    mid turn 2: turn 1 keeps its note and kept text, turn 2 gets its own."""
    store = streamed_store()
    store.load_history(SID, [user(), assistant("", tool=None)])  # restart 1
    store.mark_abandoned(SID)
    store.load_history(SID, [user(), assistant("", tool=None)])  # an idle restart: kept too
    assert message(store).lost_text == "streamed before the kill"
    store.load_history(SID, [user(), closed_first_turn(), *second_turn()])  # turn 2 started
    live = store.session(SID).messages[MID2].block("text", 0)
    assert live is not None
    live.text, live.streaming = "checking first", True
    store.load_history(SID, [user(), closed_first_turn(), *second_turn()])  # restart 2
    store.mark_abandoned(SID)
    first = message(store)
    assert first.interrupted == INTERRUPTED and not first.streaming
    assert first.lost_text == "streamed before the kill"
    assert text_of(store) == ""
    second = store.session(SID).messages[MID2]
    assert second.interrupted == INTERRUPTED and second.lost_text == "checking first"
    assert "streamed before the kill" in export_markdown(store.session(SID))
    assert "streamed before the kill" in message_copy_text(first)
    store.load_history(SID, [user(), closed_first_turn(), *second_turn()])  # and again
    assert message(store).lost_text == "streamed before the kill"
    assert store.session(SID).messages[MID2].lost_text == "checking first"
    assert store.mark_abandoned(SID) == []


def test_a_marked_turn_the_server_went_on_with_loses_its_marks() -> None:
    """A history holding more of a marked turn than when it was marked is the truth."""
    for later in (assistant("streamed before the kill, and all the rest", tool="completed"),
                  assistant("", tool="completed", finish="stop")):
        store = streamed_store()
        store.load_history(SID, [user(), assistant("")])
        store.mark_abandoned(SID)
        store.load_history(SID, [user(), later])
        msg = message(store)
        assert msg.interrupted is None and msg.lost_text == ""
        tool = msg.tool("call_1")
        assert tool is not None and tool.status == "completed"


def test_marks_wait_for_the_page_that_brings_their_turn_back() -> None:
    """A reload whose newest page does not reach an interrupted turn (many messages came while
    away): its marks wait, bounded, and come back with the older page that holds it."""
    from tui.state.interrupts import MARKS_ASIDE_MAX

    store = streamed_store()
    store.load_history(SID, [user(), assistant("", tool=None)])
    store.mark_abandoned(SID)
    newer = [{"id": f"msg_9{i:03}", "type": "user", "text": f"p{i}", "time": {"created": 100 + i}}
             for i in range(3)]
    store.load_history(SID, newer, older=True)  # the newest page: no overlap, turn 1 not in it
    assert MID not in store.session(SID).messages
    store.prepend_history(SID, [user(), closed_first_turn()], older=False)
    msg = message(store)
    assert msg.interrupted == INTERRUPTED and msg.lost_text == "streamed before the kill"
    assert not store.session(SID).marks_aside
    # Bounded: only the newest MARKS_ASIDE_MAX wait.
    state = store.session(SID)
    state.messages = {f"m{i}": Message(id=f"m{i}", role="assistant", interrupted=INTERRUPTED, lost_text="x")
                      for i in range(MARKS_ASIDE_MAX + 5)}
    store.load_history(SID, newer, older=True)
    assert list(state.marks_aside) == [f"m{i}" for i in range(5, MARKS_ASIDE_MAX + 5)]
    store.load_history(SID, newer, older=False)  # the whole history: nothing else to wait for
    assert not state.marks_aside


def test_a_turn_that_ended_on_a_rejected_permission_says_so_not_lost() -> None:
    """QA: 1.18.33 ends a turn whose permission was rejected with no event; the turn read
    "the server no longer runs this turn (it was restarted or lost it)" once the session was
    opened again, though nothing was lost."""
    from tui.state.interrupts import ENDED_BY_REJECT

    store = Store()
    store.load_history(SID, [user(), assistant(tool="error")])
    [call] = [p for p in message(store).parts if isinstance(p, ToolCall)]
    call.rejected = True
    store.mark_abandoned(SID)
    assert message(store).interrupted == ENDED_BY_REJECT
    store = streamed_store()  # a tool that was running, not refused: lost with the server
    store.mark_abandoned(SID)
    assert message(store).interrupted == INTERRUPTED
