"""1.18 preview -> v2 mapping (DIALECTS.md §4) as implemented by ``tui.protocol.dialect``."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tui.protocol.dialect import (
    Dialect,
    Normaliser,
    detect_from_event_type,
    detect_from_health,
    message,
    prompt_body,
)
from tui.protocol.events import (
    BlockDelta,
    BlockEnded,
    BlockStarted,
    InboxDelivered,
    InboxEnqueued,
    PermissionAsked,
    QuestionAsked,
    SessionCreated,
    TextDelta,
    ToolCalled,
    ToolPayload,
    ToolProgress,
    ToolSuccess,
    Unknown,
    parse_event,
)

SES = "ses_dc987a9ecffebQRlPQdw2JSyZ9"
MSG = "msg_236785881001xLWECuOBqQHbyT"
USR = "msg_236785714001xGnRpzZl6BNj9U"
TS = 1796210186005


def frame(kind: str, data: dict[str, Any], **envelope: Any) -> dict[str, Any]:
    return {"id": "evt_236785715001vVGqKHGUrnH0GH", "type": kind, "data": data, **envelope}


def norm(obj: dict[str, Any], normaliser: Normaliser | None = None) -> dict[str, Any]:
    out = (normaliser or Normaliser()).event(copy.deepcopy(obj))
    assert out is not None
    return out


def block(kind: str, block_id: Any, message_id: str = MSG, **extra: Any) -> dict[str, Any]:
    key = "textID" if ".text." in kind else "reasoningID"
    return frame(kind, {"timestamp": TS, "sessionID": SES, "assistantMessageID": message_id,
                        key: block_id, **extra})


# --- detection ---------------------------------------------------------------------------------


def test_detect_from_health_preview_shape() -> None:
    assert detect_from_health({"healthy": True}) is Dialect.PREVIEW


def test_detect_from_health_v2_shape() -> None:
    assert detect_from_health({"healthy": True, "version": "2.0.0", "pid": 4242}) is Dialect.V2
    assert detect_from_health({"healthy": True, "pid": 1}) is Dialect.V2


def test_detect_from_health_garbage_is_preview() -> None:
    assert detect_from_health(None) is Dialect.PREVIEW
    assert detect_from_health(["version"]) is Dialect.PREVIEW


@pytest.mark.parametrize(("kind", "expected"), [
    ("session.next.text.delta", Dialect.PREVIEW),
    ("permission.v2.asked", Dialect.PREVIEW),
    ("question.v2.replied", Dialect.PREVIEW),
    ("session.text.delta", None),
    ("permission.asked", None),
])
def test_detect_from_event_type(kind: str, expected: Dialect | None) -> None:
    assert detect_from_event_type(kind) is expected


# --- inbox -------------------------------------------------------------------------------------


def test_prompt_admitted_becomes_inbox_enqueued_with_item_payload() -> None:
    prompt = {"text": "Please do it.", "files": [{"uri": "file:///a.py", "source": {"start": 0, "end": 5,
                                                                                    "text": "@a.py"}}]}
    out = norm(frame("session.next.prompt.admitted", {"timestamp": TS, "sessionID": SES, "messageID": USR,
                                                       "prompt": prompt, "delivery": "queue"}))
    assert out["type"] == "session.inbox.enqueued"
    assert out["data"] == {"sessionID": SES, "inboxID": USR,
                           "item": {"type": "user", "payload": prompt, "delivery": "queue"}}
    payload = parse_event(out).payload
    assert isinstance(payload, InboxEnqueued)
    assert payload.inboxID == USR and payload.item.payload["text"] == "Please do it."
    assert payload.item.delivery == "queue"


def test_prompted_becomes_inbox_delivered() -> None:
    out = norm(frame("session.next.prompted", {"timestamp": TS, "sessionID": SES, "messageID": USR,
                                                "prompt": {"text": "x"}, "delivery": "steer"}))
    assert out["type"] == "session.inbox.delivered"
    assert out["data"]["inboxID"] == USR and "messageID" not in out["data"]
    payload = parse_event(out).payload
    assert isinstance(payload, InboxDelivered) and payload.inboxID == USR


# --- envelope ----------------------------------------------------------------------------------


def test_data_timestamp_moves_to_envelope_created() -> None:
    out = norm(block("session.next.text.delta", "text-0", delta="Hi"))
    assert out["created"] == TS
    assert "timestamp" not in out["data"]
    assert parse_event(out).created == TS


def test_existing_created_is_not_overwritten() -> None:
    out = norm(frame("session.next.text.delta", {"timestamp": TS, "sessionID": SES, "assistantMessageID": MSG,
                                                  "textID": "text-0", "delta": "x"}, created=5))
    assert out["created"] == 5 and "timestamp" not in out["data"]


def test_normaliser_does_not_mutate_its_input() -> None:
    original = block("session.next.text.delta", "text-3", delta="x")
    snapshot = copy.deepcopy(original)
    Normaliser().event(original)
    assert original == snapshot


# --- text / reasoning ordinals -----------------------------------------------------------------


@pytest.mark.parametrize(("kind", "block_id", "ordinal"), [
    ("session.next.text.started", "text-0", 0),
    ("session.next.text.delta", "text-0", 0),
    ("session.next.text.ended", "text-2", 2),
    ("session.next.reasoning.started", "reasoning-0", 0),
    ("session.next.reasoning.ended", "reasoning-11", 11),
    ("session.next.text.delta", 4, 4),
])
def test_block_ids_become_ordinals(kind: str, block_id: Any, ordinal: int) -> None:
    out = norm(block(kind, block_id, delta="d", text="t"))
    assert out["type"] == kind.replace("session.next.", "session.")
    assert out["data"]["ordinal"] == ordinal and type(out["data"]["ordinal"]) is int
    assert "textID" not in out["data"] and "reasoningID" not in out["data"]
    event = parse_event(out)
    assert isinstance(event.payload, (BlockStarted, BlockDelta, BlockEnded))
    assert event.payload.ordinal == ordinal


def test_odd_block_ids_get_stable_distinct_ordinals() -> None:
    n = Normaliser()
    first = norm(block("session.next.text.started", "abc"), n)["data"]["ordinal"]
    second = norm(block("session.next.text.started", "xyz"), n)["data"]["ordinal"]
    again = norm(block("session.next.text.delta", "abc", delta="x"), n)["data"]["ordinal"]
    ended = norm(block("session.next.text.ended", "xyz", text="t"), n)["data"]["ordinal"]
    assert type(first) is int and type(second) is int
    assert first != second
    assert again == first and ended == second
    # They must not collide with the regular "text-N" ordinals of the same message.
    regular = {norm(block("session.next.text.started", f"text-{i}"), n)["data"]["ordinal"] for i in range(5)}
    assert first not in regular and second not in regular


def test_odd_text_and_reasoning_ids_do_not_collide() -> None:
    n = Normaliser()
    text = norm(block("session.next.text.started", "blk"), n)["data"]["ordinal"]
    reasoning = norm(block("session.next.reasoning.started", "blk"), n)["data"]["ordinal"]
    assert text != reasoning


def test_missing_block_id_is_invalid_not_silently_numbered() -> None:
    data = {"timestamp": TS, "sessionID": SES, "assistantMessageID": MSG, "delta": "x"}
    out = norm(frame("session.next.text.delta", data))
    assert "ordinal" not in out["data"]
    event = parse_event(out)
    assert isinstance(event.payload, Unknown) and "ordinal" in event.payload.problem


def test_text_delta_parses_to_model() -> None:
    event = parse_event(norm(block("session.next.text.delta", "text-1", delta="Hello")))
    assert isinstance(event.payload, TextDelta)
    assert (event.payload.ordinal, event.payload.delta) == (1, "Hello")


# --- tools -------------------------------------------------------------------------------------


def tool(kind: str, **data: Any) -> dict[str, Any]:
    return frame("session.next.tool." + kind, {"timestamp": TS, "sessionID": SES, "assistantMessageID": MSG,
                                               "callID": "call_472718533f", **data})


@pytest.mark.parametrize("kind", ["input.started", "input.delta", "input.ended", "called", "progress",
                                  "success", "failed"])
def test_call_id_becomes_id(kind: str) -> None:
    out = norm(tool(kind, name="bash", delta="{", text="{}", input={}, tool="bash", structured={},
                    content=[{"type": "text", "text": "ok"}], error={"type": "x", "message": "y"}))
    assert out["type"] == "session.tool." + kind
    assert out["data"]["id"] == "call_472718533f" and "callID" not in out["data"]
    event = parse_event(out)
    assert not event.is_unknown, getattr(event.payload, "problem", "")
    assert isinstance(event.payload, ToolPayload) and event.payload.id == "call_472718533f"


@pytest.mark.parametrize("executed", [True, False])
def test_tool_called_maps_tool_to_name_and_provider_executed(executed: bool) -> None:
    out = norm(tool("called", tool="bash", input={"command": "ls"},
                    provider={"executed": executed, "metadata": {"x": 1}}))
    data = out["data"]
    assert data["name"] == "bash" and "tool" not in data
    assert data["executed"] is executed and "provider" not in data
    payload = parse_event(out).payload
    assert isinstance(payload, ToolCalled)
    assert payload.name == "bash" and payload.executed is executed and payload.input == {"command": "ls"}


def test_tool_structured_becomes_metadata() -> None:
    progress = norm(tool("progress", structured={"output": "partial"}, content=[]))
    assert progress["data"]["metadata"] == {"output": "partial"} and "structured" not in progress["data"]
    payload = parse_event(progress).payload
    assert isinstance(payload, ToolProgress) and payload.metadata == {"output": "partial"}

    success = norm(tool("success", structured={"exit": 0}, content=[{"type": "text", "text": "ok"}],
                        outputPaths=["/srv/out/x"], provider={"executed": False}, result={"raw": 1}))
    done = parse_event(success).payload
    assert isinstance(done, ToolSuccess)
    # the file where 1.18 saved the whole output it cut is kept (the row shows it), in ``metadata``
    assert done.metadata == {"exit": 0, "outputPaths": ["/srv/out/x"]}
    assert done.content[0].text == "ok" and done.executed is False
    assert "outputPaths" not in success["data"] and "result" not in success["data"]


def test_tool_output_paths_kept_only_when_there_are_some() -> None:
    def meta(**data: object) -> object:
        payload = parse_event(norm(tool("success", content=[], **data))).payload
        assert isinstance(payload, ToolSuccess)
        return payload.metadata

    assert meta(structured={"exit": 0}, outputPaths=[]) == {"exit": 0}
    assert meta(structured={"exit": 0}, outputPaths=[3, "", None]) == {"exit": 0}
    assert meta(structured={"exit": 0}, outputPaths="/not/a/list") == {"exit": 0}
    assert meta(outputPaths=["/srv/out/y"]) == {"outputPaths": ["/srv/out/y"]}


# --- dialogs -----------------------------------------------------------------------------------


def test_permission_v2_asked_maps_source_call_id() -> None:
    data = {"id": "per_1", "sessionID": SES, "action": "bash", "resources": ["ls"],
            "source": {"type": "tool", "messageID": MSG, "callID": "call_1"}}
    out = norm(frame("permission.v2.asked", data))
    assert out["type"] == "permission.asked"
    assert out["data"]["source"] == {"type": "tool", "messageID": MSG, "id": "call_1"}
    payload = parse_event(out).payload
    assert isinstance(payload, PermissionAsked)
    assert payload.source is not None and payload.source.id == "call_1"
    assert payload.action == "bash" and payload.resources == ["ls"]


def test_permission_v2_replied_renamed() -> None:
    out = norm(frame("permission.v2.replied", {"sessionID": SES, "requestID": "per_1", "reply": "always"}))
    assert out["type"] == "permission.replied"
    assert not parse_event(out).is_unknown


@pytest.mark.parametrize("suffix", ["asked", "replied", "rejected"])
def test_question_v2_events_renamed(suffix: str) -> None:
    data: dict[str, Any] = {"sessionID": SES, "requestID": "que_1", "answers": [["a"]]}
    if suffix == "asked":
        data = {"id": "que_1", "sessionID": SES,
                "questions": [{"question": "Q?", "header": "H", "options": []}],
                "tool": {"messageID": MSG, "callID": "call_2"}}
    out = norm(frame("question.v2." + suffix, data))
    assert out["type"] == "question." + suffix
    event = parse_event(out)
    assert not event.is_unknown, getattr(event.payload, "problem", "")
    if suffix == "asked":
        assert out["data"]["tool"] == {"messageID": MSG, "id": "call_2"}
        assert isinstance(event.payload, QuestionAsked)
        assert event.payload.tool is not None and event.payload.tool.id == "call_2"


def test_legacy_v1_permission_asked_is_dropped() -> None:
    legacy = {"id": "per_1", "sessionID": SES, "permission": "bash", "patterns": ["ls *"], "metadata": {},
              "always": ["ls *"], "tool": {"messageID": MSG, "callID": "call_1"}}
    assert Normaliser().event(frame("permission.asked", legacy)) is None
    legacy_reply = {"sessionID": SES, "permissionID": "per_1", "response": "once"}
    assert Normaliser().event(frame("permission.replied", legacy_reply)) is None


def test_v2_permission_asked_is_kept() -> None:
    v2 = {"id": "per_1", "sessionID": SES, "action": "bash", "resources": []}
    assert norm(frame("permission.asked", v2))["data"] == v2


# --- sessions ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["session.created", "session.updated"])
def test_session_info_is_flattened_with_directory_to_location(kind: str) -> None:
    info = {"id": SES, "slug": "hidden-squid", "projectID": "9390768", "directory": "/home/dev/proj",
            "path": "pkg/app", "cost": 0, "title": "New session", "version": "1.18.33",
            "time": {"created": 1, "updated": 2}}
    out = norm(frame(kind, {"sessionID": SES, "info": info}))
    data = out["data"]
    assert "info" not in data and "directory" not in data and "path" not in data
    assert data["location"] == {"directory": "/home/dev/proj"}
    assert data["subpath"] == "pkg/app"
    assert data["sessionID"] == SES and data["slug"] == "hidden-squid" and data["title"] == "New session"
    payload = parse_event(out).payload
    assert isinstance(payload, SessionCreated)  # SessionUpdated subclasses it
    assert payload.location is not None and payload.location.directory == "/home/dev/proj"
    assert payload.subpath == "pkg/app" and payload.version == "1.18.33"


def test_session_created_empty_path_gives_no_subpath_and_id_fallback() -> None:
    info = {"id": SES, "projectID": "p", "directory": "/d", "path": ""}
    data = norm(frame("session.created", {"info": info}))["data"]
    assert data["sessionID"] == SES and "subpath" not in data


def test_session_deleted_drops_info() -> None:
    out = norm(frame("session.deleted", {"sessionID": SES, "info": {"id": SES, "directory": "/d"}}))
    assert out["data"] == {"sessionID": SES}


@pytest.mark.parametrize(("old", "new"), [
    ("session.next.agent.switched", "session.agent.selected"),
    ("session.next.model.switched", "session.model.selected"),
    ("session.next.retried", "session.retry.scheduled"),
    ("session.next.synthetic", "session.synthetic"),
    ("session.next.step.started", "session.step.started"),
    ("session.next.compaction.delta", "session.compaction.delta"),
])
def test_renamed_session_next_events(old: str, new: str) -> None:
    data = {"timestamp": TS, "sessionID": SES, "messageID": USR, "assistantMessageID": MSG, "agent": "plan",
            "model": {"id": "m", "providerID": "p"}, "attempt": 1, "text": "t",
            "error": {"type": "x", "message": "y"}}
    out = norm(frame(old, data))
    assert out["type"] == new
    event = parse_event(out)
    assert not event.is_unknown, getattr(event.payload, "problem", "")


def test_revert_committed_message_id_becomes_to() -> None:
    out = norm(frame("session.next.revert.committed", {"timestamp": TS, "sessionID": SES, "messageID": USR}))
    assert out["type"] == "session.revert.committed" and out["data"]["to"] == USR


def test_moved_subdirectory_becomes_subpath() -> None:
    data = {"timestamp": TS, "sessionID": SES, "location": {"directory": "/d"}, "subdirectory": "pkg/app"}
    out = norm(frame("session.next.moved", data))
    assert out["type"] == "session.moved"
    assert out["data"] == {"sessionID": SES, "location": {"directory": "/d"}, "subpath": "pkg/app"}
    event = parse_event(out)
    assert not event.is_unknown and event.data["subpath"] == "pkg/app"


def test_shell_events_are_wrapped() -> None:
    started = norm(frame("session.next.shell.started", {"timestamp": TS, "sessionID": SES, "messageID": USR,
                                                         "callID": "sh_1", "command": "ls"}))
    assert started["data"]["shell"] == {"id": "sh_1", "command": "ls", "status": "running"}
    ended = norm(frame("session.next.shell.ended", {"timestamp": TS, "sessionID": SES, "callID": "sh_1",
                                                     "output": "a\nb\n"}))
    assert ended["data"]["output"] == {"output": "a\nb\n"} and ended["data"]["shell"]["id"] == "sh_1"
    assert not parse_event(started).is_unknown and not parse_event(ended).is_unknown


# --- prompt bodies -----------------------------------------------------------------------------

BODY: dict[str, Any] = {
    "id": USR,
    "text": "Look at @a.py with @explore",
    "files": [{"uri": "file:///a.py", "name": "a.py", "mention": {"start": 8, "end": 13, "text": "@a.py"}}],
    "agents": [{"name": "explore", "mention": {"start": 19, "end": 27, "text": "@explore"}}],
    "delivery": "queue",
}


def test_prompt_body_v2_is_flat_and_unchanged() -> None:
    assert prompt_body(Dialect.V2, copy.deepcopy(BODY)) == BODY


def test_prompt_body_preview_is_nested_and_mention_becomes_source() -> None:
    body = copy.deepcopy(BODY)
    out = prompt_body(Dialect.PREVIEW, body)
    assert body == BODY, "input must not be mutated"
    assert set(out) == {"prompt", "id", "delivery"}
    assert out["id"] == USR and out["delivery"] == "queue"
    prompt = out["prompt"]
    assert prompt["text"] == BODY["text"]
    assert prompt["files"] == [{"uri": "file:///a.py", "name": "a.py",
                                "source": {"start": 8, "end": 13, "text": "@a.py"}}]
    assert prompt["agents"] == [{"name": "explore", "source": {"start": 19, "end": 27, "text": "@explore"}}]


def test_prompt_body_preview_minimal() -> None:
    assert prompt_body(Dialect.PREVIEW, {"text": "hi"}) == {"prompt": {"text": "hi"}}


# --- history messages --------------------------------------------------------------------------


def test_message_normalises_tool_part_structured_to_metadata() -> None:
    info = {"id": MSG, "type": "assistant", "content": [
        {"type": "text", "id": "text-0", "text": "Running it"},
        {"type": "tool", "id": "call_1", "name": "bash", "provider": {"executed": True},
         "state": {"status": "completed", "input": {"command": "ls"}, "content": [],
                   "structured": {"exit": 0}}},
    ]}
    snapshot = copy.deepcopy(info)
    out = message(info)
    assert info == snapshot, "input must not be mutated"
    text, part = out["content"]
    assert text == info["content"][0]
    assert part["executed"] is True and "provider" not in part
    assert part["state"]["metadata"] == {"exit": 0} and "structured" not in part["state"]
    assert part["state"]["input"] == {"command": "ls"}


def test_message_keeps_a_tool_part_s_output_paths_in_metadata() -> None:
    info = {"id": MSG, "type": "assistant", "content": [
        {"type": "tool", "id": "call_1", "name": "bash",
         "state": {"status": "completed", "input": {"command": "seq 1 20000"}, "content": [],
                   "structured": {"exit": 0, "truncated": True}, "outputPaths": ["/srv/out/x"]}},
    ]}
    snapshot = copy.deepcopy(info)
    (part,) = message(info)["content"]
    assert info == snapshot, "input must not be mutated"
    assert part["state"]["metadata"] == {"exit": 0, "truncated": True, "outputPaths": ["/srv/out/x"]}
    assert "outputPaths" not in part["state"]


def test_message_leaves_non_assistant_messages_alone() -> None:
    user = {"id": USR, "type": "user", "text": "hi"}
    assert message(user) == user
