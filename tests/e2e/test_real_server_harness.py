"""Proof that the e2e harness works: the fake LLM on its own, then the real server over raw httpx.

No octui code is used here, so a failure points at the harness (or the server), not the client.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.fake_llm import FakeLLM, find_scenario, split_text
from tests.e2e.server import EventRecorder, RealServer

TOOLS = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]


def _sid(session_id: str) -> Any:
    return lambda data: data.get("sessionID") == session_id


# --------------------------------------------------------------------------------------------
# The fake LLM alone (fast, no binary needed)
# --------------------------------------------------------------------------------------------


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


def _chat(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"model": "fake-model", "messages": messages, "tools": TOOLS, **extra}


def _stream(llm: FakeLLM, body: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """The parsed chunks of a streamed reply, and whether it ended with ``[DONE]``."""
    chunks: list[dict[str, Any]] = []
    done = False
    with httpx.stream(
        "POST", f"{llm.base_url}/chat/completions", json={**body, "stream": True}, timeout=5
    ) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if line == "data: [DONE]":
                done = True
            elif line.startswith("data: "):
                chunks.append(json.loads(line[6:]))
    return chunks, done


def _deltas(chunks: list[dict[str, Any]], key: str) -> list[str]:
    return [c["choices"][0]["delta"][key] for c in chunks if c["choices"] and key in c["choices"][0]["delta"]]


def test_fake_llm_scenario_step_selection(llm: FakeLLM) -> None:
    tag = llm.add_scenario(
        "pick",
        [
            {"reasoning": "Thinking about it now.", "text": "First answer, in several words."},
            {"text": "Second answer.", "usage": {"prompt_tokens": 7, "completion_tokens": 3}},
        ],
    )
    first, done = _stream(llm, _chat([{"role": "user", "content": f"Go {tag}"}]))
    assert done
    assert "".join(_deltas(first, "reasoning_content")) == "Thinking about it now."
    text = _deltas(first, "content")
    assert "".join(text) == "First answer, in several words." and len([t for t in text if t]) > 2
    assert first[-2]["choices"][0]["finish_reason"] == "stop"
    assert first[-1]["usage"] == {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}

    # One assistant message after the tagged user message (content as a part list) -> step 1.
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "You are helpful. [[scenario:not-a-user-message]]"},
        {"role": "user", "content": [{"type": "text", "text": f"Go {tag}"}]},
        {"role": "assistant", "content": "First answer."},
    ]
    second, _ = _stream(llm, _chat(history))
    assert "".join(_deltas(second, "content")) == "Second answer."
    assert second[-1]["usage"]["total_tokens"] == 10

    # Past the last step: plain text, finish "stop", never tool calls.
    past, _ = _stream(llm, _chat([*history, {"role": "assistant", "content": "Second answer."}]))
    assert past[-2]["choices"][0]["finish_reason"] == "stop"
    assert not any("tool_calls" in c["choices"][0]["delta"] for c in past if c["choices"])
    assert [(r["scenario"], r["step"], r["kind"]) for r in llm.requests] == [
        ("pick", 0, "scenario"),
        ("pick", 1, "scenario"),
        ("pick", 2, "past_end"),
    ]


def test_fake_llm_tool_calls_and_plain_json(llm: FakeLLM) -> None:
    tag = llm.add_scenario(
        "tools", [{"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}, "id": "call_x1"}]}]
    )
    chunks, _ = _stream(llm, _chat([{"role": "user", "content": tag}]))
    calls = [
        c["choices"][0]["delta"]["tool_calls"][0]
        for c in chunks
        if c["choices"] and "tool_calls" in c["choices"][0]["delta"]
    ]
    assert calls[0]["id"] == "call_x1" and calls[0]["function"]["name"] == "bash"
    assert len(calls) >= 3  # name first, then the arguments over several chunks
    assert json.loads("".join(c["function"]["arguments"] for c in calls)) == {"command": "echo hi"}
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"

    reply = httpx.post(f"{llm.base_url}/chat/completions", json=_chat([{"role": "user", "content": tag}]))
    choice = reply.json()["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert json.loads(choice["message"]["tool_calls"][0]["function"]["arguments"]) == {"command": "echo hi"}

    # No tag, or no tools (a title request): short plain answers.
    untagged = httpx.post(f"{llm.base_url}/chat/completions", json=_chat([{"role": "user", "content": "hi"}]))
    assert untagged.json()["choices"][0]["message"]["content"]
    no_tools = httpx.post(
        f"{llm.base_url}/chat/completions", json={"messages": [{"role": "user", "content": tag}]}
    )
    assert "tool_calls" not in no_tools.json()["choices"][0]["message"]
    assert [r["kind"] for r in llm.requests][-2:] == ["default", "no_tools"]
    assert httpx.get(f"{llm.base_url}/models").json()["data"][0]["id"] == "fake-model"
    assert httpx.get(llm.base_url.removesuffix("/v1") + "/health").status_code == 200


def test_fake_llm_error_times_then_ok(llm: FakeLLM, tmp_path: Path) -> None:
    scenario_file = tmp_path / "s.json"
    scenario_file.write_text(
        json.dumps(
            {"scenarios": {"flaky": {"steps": [{"error": {"status": 503, "times": 2}, "text": "Up."}]}}}
        )
    )
    llm.load(scenario_file)
    body = _chat([{"role": "user", "content": llm.tag("flaky")}])
    statuses = [httpx.post(f"{llm.base_url}/chat/completions", json=body).status_code for _ in range(3)]
    assert statuses == [503, 503, 200]
    # A different tagged message has its own counter.
    other = _chat([{"role": "user", "content": "again " + llm.tag("flaky")}])
    assert httpx.post(f"{llm.base_url}/chat/completions", json=other).status_code == 503


def test_fake_llm_survives_client_disconnect(llm: FakeLLM) -> None:
    tag = llm.add_scenario("long", [{"repeat_text": ["tick ", 2000, 0.01]}])
    with httpx.stream(
        "POST",
        f"{llm.base_url}/chat/completions",
        json={**_chat([{"role": "user", "content": tag}]), "stream": True},
    ) as response:
        lines = response.iter_lines()
        assert sum(1 for _, line in zip(range(6), lines, strict=False) if line.startswith("data:")) >= 3
    deadline = time.monotonic() + 5
    while not llm.requests_for("long")[0]["disconnected"]:
        assert time.monotonic() < deadline, "fake LLM never noticed the disconnect"
        time.sleep(0.02)
    assert httpx.get(llm.base_url.removesuffix("/v1") + "/health").status_code == 200


def test_fake_llm_stop_ends_running_streams() -> None:
    llm = FakeLLM().start()
    tag = llm.add_scenario("endless", [{"repeat_text": ["x", 10_000, 0.01]}])
    errors: list[BaseException] = []

    def consume() -> None:
        try:
            _stream(llm, _chat([{"role": "user", "content": tag}]))
        except httpx.HTTPError as exc:
            errors.append(exc)

    reader = threading.Thread(target=consume, daemon=True)
    reader.start()
    llm.wait_for_requests("endless", 1, timeout=5)
    started = time.monotonic()
    llm.stop()
    reader.join(5)
    assert not reader.is_alive()
    assert time.monotonic() - started < 3


def test_find_scenario_and_split_text() -> None:
    messages = [
        {"role": "user", "content": "old [[scenario:a]]"},
        {"role": "assistant", "content": "x"},
        {"role": "user", "content": "new [[scenario:b]]"},
        {"role": "assistant", "content": "y"},
        {"role": "tool", "content": "z"},
        {"role": "assistant", "content": "w"},
        {"role": "user", "content": "untagged follow-up"},
    ]
    assert find_scenario(messages) == ("b", 2, "new [[scenario:b]]")
    assert find_scenario([{"role": "user", "content": "none"}]) is None
    assert "".join(split_text("Hello there, general Kenobi!", 3)) == "Hello there, general Kenobi!"
    assert len(split_text("Hello there, general Kenobi!", 3)) == 2


# --------------------------------------------------------------------------------------------
# The real server (e2e)
# --------------------------------------------------------------------------------------------


@pytest.mark.e2e
def test_health_and_basic_auth(live_server: RealServer) -> None:
    with live_server.client() as http:
        health = http.get("/api/health")
        assert health.status_code == 200
        assert health.json()["healthy"] is True
    wrong = httpx.get(f"{live_server.url}/api/health", auth=("opencode", "not-the-password"), timeout=5)
    assert wrong.status_code == 401
    assert wrong.headers["www-authenticate"].startswith("Basic")
    assert httpx.get(f"{live_server.url}/api/health", timeout=5).status_code == 401


@pytest.mark.e2e
def test_text_and_reasoning_turn(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder, new_session: dict[str, Any]
) -> None:
    sid = new_session["id"]
    tag = fake_llm.add_scenario(
        "harness_text",
        [
            {
                "reasoning": "Let me think about a greeting.",
                "text": "Hello! I am a scripted fake LLM.",
                "usage": {"prompt_tokens": 123, "completion_tokens": 45},
            }
        ],
    )
    live_server.prompt(sid, f"Please greet. {tag}")
    ended = events.wait_for("session.next.step.ended", _sid(sid))
    assert ended["data"]["finish"] == "stop"
    assert ended["data"]["tokens"]["input"] == 123 and ended["data"]["tokens"]["output"] == 45
    reasoning = [e["data"]["delta"] for e in events.of_type("session.next.reasoning.delta", _sid(sid))]
    assert "".join(reasoning) == "Let me think about a greeting."
    text = events.wait_for("session.next.text.ended", _sid(sid), timeout=1)
    assert text["data"]["text"] == "Hello! I am a scripted fake LLM."
    assert len(events.of_type("session.next.text.delta", _sid(sid))) > 1
    (request,) = fake_llm.requests_for("harness_text")
    assert request["stream"] is True and request["step"] == 0


@pytest.mark.e2e
def test_bash_permission_once_then_success(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder, new_session: dict[str, Any]
) -> None:
    sid = new_session["id"]
    command = "echo hello; echo world"
    tag = fake_llm.add_scenario(
        "harness_bash",
        [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "All done."}],
    )
    live_server.prompt(sid, f"Run it. {tag}")
    asked = events.wait_for("permission.v2.asked", _sid(sid))["data"]
    assert asked["action"] == "bash" and asked["resources"] == [command]
    called = events.wait_for("session.next.tool.called", _sid(sid))["data"]
    assert called["callID"] == asked["source"]["callID"] and called["input"] == {"command": command}

    with live_server.client() as http:
        pending = http.get(f"/api/session/{sid}/permission").json()["data"]
        assert [p["id"] for p in pending] == [asked["id"]]
        reply = http.post(f"/api/session/{sid}/permission/{asked['id']}/reply", json={"reply": "once"})
        assert reply.status_code == 204

    replied = events.wait_for("permission.v2.replied", _sid(sid))["data"]
    assert replied["requestID"] == asked["id"] and replied["reply"] == "once"
    success = events.wait_for("session.next.tool.success", _sid(sid))["data"]
    assert success["callID"] == asked["source"]["callID"]
    assert success["structured"]["exit"] == 0
    assert success["content"][0]["text"] == "hello\nworld\n"
    final = events.wait_for("session.next.step.ended", lambda d: _sid(sid)(d) and d["finish"] == "stop")
    assert final["data"]["finish"] == "stop"
    text = events.wait_for("session.next.text.ended", _sid(sid), timeout=2)["data"]["text"]
    assert text == "All done."
    # The second LLM call carried the tool result back.
    second = fake_llm.requests_for("harness_bash")[1]
    tool_messages = [m for m in second["body"]["messages"] if m.get("role") == "tool"]
    assert "hello" in json.dumps(tool_messages)


@pytest.mark.e2e
def test_provider_500_is_step_failed(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder, new_session: dict[str, Any]
) -> None:
    sid = new_session["id"]
    tag = fake_llm.add_scenario("harness_500", [{"error": {"status": 500}}])
    live_server.prompt(sid, f"Fail please. {tag}")
    failed = events.wait_for("session.next.step.failed", _sid(sid))["data"]
    assert "HTTP 500" in failed["error"]["message"]
    assert "fake error 500" in failed["error"]["message"]
    requests = fake_llm.requests_for("harness_500")
    assert len(requests) == 3  # the server retries 5xx invisibly (REAL-SERVER.md)
    assert {r["status"] for r in requests} == {500}
    assert not events.of_type("session.next.text.ended", _sid(sid))
    live_server.wait_idle(sid)


@pytest.mark.e2e
def test_provider_500_once_then_recovers(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder, new_session: dict[str, Any]
) -> None:
    sid = new_session["id"]
    tag = fake_llm.add_scenario(
        "harness_500_once", [{"error": {"status": 500, "times": 1}, "text": "Recovered."}]
    )
    live_server.prompt(sid, f"Flaky. {tag}")
    assert events.wait_for("session.next.text.ended", _sid(sid))["data"]["text"] == "Recovered."
    assert events.wait_for("session.next.step.ended", _sid(sid))["data"]["finish"] == "stop"
    assert [r["status"] for r in fake_llm.requests_for("harness_500_once")] == [500, 200]
    assert not events.of_type("session.next.step.failed", _sid(sid))


@pytest.mark.e2e
def test_interrupt_long_stream(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder, new_session: dict[str, Any]
) -> None:
    sid = new_session["id"]
    tag = fake_llm.add_scenario("harness_interrupt", [{"repeat_text": ["tick ", 400, 0.05]}])
    live_server.prompt(sid, f"Talk a lot. {tag}")
    events.wait_for_count("session.next.text.delta", 5, _sid(sid))
    with live_server.client() as http:
        assert http.post(f"/api/session/{sid}/interrupt").status_code == 204
    failed = events.wait_for("session.next.step.failed", _sid(sid), timeout=5)["data"]
    assert "interrupted" in failed["error"]["message"].lower()
    partial = events.wait_for("session.next.text.ended", _sid(sid), timeout=1)["data"]["text"]
    assert partial.startswith("tick ") and len(partial) < 400 * len("tick ")
    deadline = time.monotonic() + 5
    while not fake_llm.requests_for("harness_interrupt")[0]["disconnected"]:
        assert time.monotonic() < deadline, "the fake LLM did not see the interrupt's disconnect"
        time.sleep(0.05)
    live_server.wait_idle(sid)


@pytest.mark.e2e
def test_restart_keeps_port_and_sessions(live_server: RealServer, new_session: dict[str, Any]) -> None:
    old_pid, old_url = live_server.pid, live_server.url
    live_server.restart()
    assert live_server.pid != old_pid
    assert live_server.url == old_url
    with live_server.client() as http:
        again = http.get(f"/api/session/{new_session['id']}")
    assert again.status_code == 200
    assert again.json()["data"]["id"] == new_session["id"]
