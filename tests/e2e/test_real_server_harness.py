"""Proof that the e2e harness works: the fake LLM on its own, then the real server over raw httpx.

No octui code is used here, so a failure points at the harness (or the server), not the client.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.fake_llm import FakeLLM, find_scenario, split_text
from tests.e2e.server import (
    SPEC_FETCH_TIMEOUT,
    ConfigShape,
    EventRecorder,
    RealServer,
    ServerStartError,
    config_effect,
    generation_of,
    guess_config_shape,
    needed_config_shape,
    opencode_config,
    read_config,
    served_generation,
    write_config,
)
from tests.e2e.wire import Generation

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


TOOLS_2X = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "traces-2.0" / "samples"
                       / "more_tools.json").read_text())  # what a real 2.x server offered its model


def _offered(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tools as a request carries them (OpenAI format)."""
    return [{"type": "function", "function": {"name": t["name"], "parameters": t["parameters"]}}
            for t in tools]


TOOLS_118 = _offered([  # names and argument names 1.18.33 offers (REAL-SERVER.md 05, skill.name)
    {"name": "bash", "parameters": {"type": "object", "properties": {"command": {}, "workdir": {}}}},
    {"name": "skill", "parameters": {"type": "object", "properties": {"name": {}}}},
    {"name": "read", "parameters": {"type": "object", "properties": {"path": {}}}},
    {"name": "apply_patch", "parameters": {"type": "object", "properties": {"patchText": {}}}},
])


def _sent(llm: FakeLLM, tools: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    reply = httpx.post(f"{llm.base_url}/chat/completions",
                       json={"messages": [{"role": "user", "content": llm.tag(name)}], "tools": tools})
    calls = reply.json()["choices"][0]["message"]["tool_calls"]
    return [{"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}
            for c in calls]


def test_fake_llm_fits_tool_names_and_arguments_to_what_the_server_offers(llm: FakeLLM) -> None:
    assert {t["name"] for t in TOOLS_2X} >= {"shell", "subagent", "skill", "read"}  # the recording
    llm.add_scenario("fit", [{"tool_calls": [
        {"name": "bash", "arguments": {"command": "echo hi", "description": "greets"}},
        {"name": "task", "arguments": {"description": "Look", "prompt": "Go", "subagent_type": "general"}},
        {"name": "skill", "arguments": {"name": "demo-skill"}},
        {"name": "read", "arguments": {"filePath": "notes.txt"}},
        {"name": "apply_patch", "arguments": {"patchText": "x"}},
        {"name": "bash", "arguments": {"command": "echo exact"}, "exact": True},
    ]}])
    on_2x = _sent(llm, _offered(TOOLS_2X), "fit")
    assert on_2x == [
        {"name": "shell", "arguments": {"command": "echo hi"}},  # strict schema: no description
        {"name": "subagent", "arguments": {"description": "Look", "prompt": "Go", "agent": "general"}},
        {"name": "skill", "arguments": {"id": "demo-skill"}},
        {"name": "read", "arguments": {"path": "notes.txt"}},
        {"name": "apply_patch", "arguments": {"patchText": "x"}},  # 2.x has none: sent as written
        {"name": "bash", "arguments": {"command": "echo exact"}},
    ]
    assert llm.requests[-1]["offered_tools"] == sorted(t["name"] for t in TOOLS_2X)
    assert llm.requests[-1]["sent_calls"] == on_2x
    on_118 = _sent(llm, TOOLS_118, "fit")
    assert [c["name"] for c in on_118] == ["bash", "task", "skill", "read", "apply_patch", "bash"]
    assert on_118[0]["arguments"] == {"command": "echo hi", "description": "greets"}  # not strict
    assert on_118[2]["arguments"] == {"name": "demo-skill"}
    assert on_118[3]["arguments"] == {"path": "notes.txt"}
    assert llm.sent_calls("fit") == on_2x + on_118
    # Scripts written in 2.x names fit a 1.18 server the same way.
    llm.add_scenario("fit_back", [{"tool_calls": [{"name": "shell", "arguments": {"command": "ls"}},
                                                  {"name": "skill", "arguments": {"id": "s"}}]}])
    assert _sent(llm, TOOLS_118, "fit_back") == [{"name": "bash", "arguments": {"command": "ls"}},
                                                {"name": "skill", "arguments": {"name": "s"}}]


SHARED = Path(__file__).resolve().parents[2].parent / "shared"


def test_2x_config_shape_is_the_one_the_traces_were_recorded_with() -> None:
    readme = SHARED / "opencode-v2" / "traces-2.0" / "README.md"
    if not readme.is_file():
        pytest.skip("../shared/opencode-v2/traces-2.0/README.md not found (outside the repo)")
    block = readme.read_text().split("```json", 1)[1].split("```", 1)[0]
    recorded = json.loads(block.replace("<llm-port>", "4321"))
    assert opencode_config("http://127.0.0.1:4321/v1", ConfigShape.V2) == recorded


def test_config_shapes_round_trip(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    (tmp_path / "opencode").mkdir()
    for shape in ConfigShape:
        write_config(env, "http://127.0.0.1:9/v1", shape)
        assert read_config(env) == (shape, "http://127.0.0.1:9/v1")
    legacy = opencode_config("u", ConfigShape.PREVIEW_118)
    assert legacy["permission"] == {"bash": "ask", "edit": "ask"} and "providers" not in legacy


def test_config_shape_guess_from_serve_help(tmp_path: Path) -> None:
    def fake(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(f"#!/bin/sh\ncat <<'EOF'\n{text}\nEOF\n")
        path.chmod(0o755)
        return path

    env = {"PATH": "/usr/bin:/bin"}
    v2 = fake("v2", "USAGE\n  opencode serve [flags]\nFLAGS\n  --service  register as the background service")
    preview = fake("preview", "opencode serve\n  --mdns  enable mDNS service discovery\n  --port  port")
    assert guess_config_shape(v2, env) is ConfigShape.V2
    assert guess_config_shape(preview, env) is ConfigShape.PREVIEW_118
    assert guess_config_shape(tmp_path / "missing", env) is ConfigShape.PREVIEW_118


def test_config_effect_allow_in_both_shapes(tmp_path: Path) -> None:
    """``effect="allow"`` (a test with nobody to answer asks) lets the shell and edits run, in the
    shape each generation reads; ``RealServer`` keeps it when it rewrites the shape."""
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    (tmp_path / "opencode").mkdir()
    for shape in ConfigShape:
        write_config(env, "http://127.0.0.1:9/v1", shape)
        assert config_effect(env) == "ask"
        write_config(env, "http://127.0.0.1:9/v1", shape, effect="allow")
        assert config_effect(env) == "allow" and read_config(env) == (shape, "http://127.0.0.1:9/v1")
    assert opencode_config("u", ConfigShape.PREVIEW_118, "allow")["permission"] == {"bash": "allow",
                                                                                    "edit": "allow"}
    assert opencode_config("u", ConfigShape.V2, "allow")["permissions"] == [
        {"action": "shell", "resource": "*", "effect": "allow"},
        {"action": "edit", "resource": "*", "effect": "allow"},
    ]


def test_needed_config_shape_guesses_from_serve_help(tmp_path: Path) -> None:
    binary = tmp_path / "opencode"
    binary.write_text("#!/bin/sh\necho '  --service  register as the background service'\n")
    binary.chmod(0o755)
    assert needed_config_shape(binary, {"PATH": "/usr/bin:/bin"}) is ConfigShape.V2


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
HTML = "<!doctype html><html><body>opencode</body></html>"


def _spec_server(routes: dict[str, httpx.Response]) -> httpx.MockTransport:
    """A server answering only ``routes`` (unknown paths: 404 with an empty body, as both do)."""
    return httpx.MockTransport(lambda request: routes.get(request.url.path, httpx.Response(404)))


def test_generation_of_the_recorded_servers() -> None:
    """2.x serves its own spec at /openapi.json (traces-2.0 more_server_openapi.json); 1.18.33
    answers that path with its web app's page and serves its spec at /doc."""
    v2_spec = json.loads((FIXTURES / "traces-2.0" / "samples" / "more_server_openapi.json").read_text())
    preview_spec = json.loads((FIXTURES / "specs" / "openapi-1.18.json").read_text())
    v2 = _spec_server({"/openapi.json": httpx.Response(200, json=v2_spec)})
    page = httpx.Response(200, text=HTML, headers={"content-type": "text/html"})
    preview = _spec_server({"/openapi.json": page, "/doc": httpx.Response(200, json=preview_spec)})
    with httpx.Client(transport=v2, base_url="http://s") as http:
        found = generation_of(http)
    assert found is not None and found[0] is Generation.V2
    assert "get" in found[1]["/api/session/{}/pending"] and "/api/session/{}/inbox" not in found[1]
    with httpx.Client(transport=preview, base_url="http://s") as http:
        found = generation_of(http)
    assert found is not None and found[0] is Generation.PREVIEW_118
    assert "post" in found[1]["/api/session/{}/prompt"] and "/api/session/{}/pending" not in found[1]
    with httpx.Client(transport=_spec_server({}), base_url="http://s") as http:
        assert generation_of(http) is None


def test_served_generation_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that serves no spec: a clear error after the timeout, not a guess."""
    real_client = httpx.Client

    def client(**kwargs: Any) -> httpx.Client:
        return real_client(transport=_spec_server({}), **kwargs)

    monkeypatch.setattr(httpx, "Client", client)
    started = time.monotonic()
    with pytest.raises(ServerStartError, match="generation unknown"):
        served_generation("http://s", ("u", "p"), timeout=0.3)
    assert time.monotonic() - started < 5


def test_served_generation_is_bounded_by_its_timeout_when_the_server_never_answers() -> None:
    """Review: each fetch of a spec may take SPEC_FETCH_TIMEOUT (60 s), and a server that took a
    connection and never answered held the caller that long, past its own timeout."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    taken: list[socket.socket] = []

    def accept() -> None:
        with contextlib.suppress(OSError):  # (closed at the end)
            while True:
                taken.append(listener.accept()[0])  # and never a byte back

    threading.Thread(target=accept, daemon=True).start()
    started = time.monotonic()
    try:
        with pytest.raises(ServerStartError, match="generation unknown"):
            served_generation(f"http://127.0.0.1:{listener.getsockname()[1]}", ("u", "p"), timeout=1.0)
        assert time.monotonic() - started < 10
    finally:
        listener.close()
        for connection in taken:
            connection.close()


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
def test_generation_is_known_from_behaviour(live_server: RealServer) -> None:
    """The start-up line was seen and the served spec document names the generation."""
    assert live_server.url in live_server.startup_line and "listening on" in live_server.startup_line
    assert live_server.serves("POST", "/api/session/{sessionID}/prompt")
    assert live_server.serves("GET", "/api/session/{id}/permission")
    with live_server.client(timeout=SPEC_FETCH_TIMEOUT) as http:
        openapi = http.get("/openapi.json")
        doc = http.get("/doc")
    if live_server.wire.v2:
        assert openapi.headers["content-type"].startswith("application/json")
        assert "paths" in openapi.json()
        # ROUTES.md: this generation lists pending inputs at /pending; /inbox is an unknown route.
        assert live_server.serves("GET", "/api/session/{sessionID}/pending")
        assert not live_server.serves("GET", "/api/session/{sessionID}/inbox")
    else:
        assert openapi.headers["content-type"].startswith("text/html")  # the web app, not a spec
        assert doc.headers["content-type"].startswith("application/json") and "paths" in doc.json()
        assert not live_server.serves("GET", "/api/session/{sessionID}/pending")


@pytest.mark.e2e
def test_health_and_basic_auth(live_server: RealServer) -> None:
    with live_server.client() as http:
        health = http.get("/api/health")
        assert health.status_code == 200
        assert health.json()["healthy"] is True
        unknown = http.get("/api/no-such-route")
    wrong = httpx.get(f"{live_server.url}/api/health", auth=("opencode", "not-the-password"), timeout=5)
    assert wrong.status_code == 401
    assert wrong.headers["www-authenticate"].startswith("Basic")
    assert httpx.get(f"{live_server.url}/api/health", timeout=5).status_code == 401
    if live_server.wire.v2:
        # traces-2.0: health carries version and pid; 401 and an unknown route have empty bodies.
        body = health.json()
        assert isinstance(body["version"], str) and body["version"]
        assert isinstance(body["pid"], int) and body["pid"] > 0
        assert wrong.content == b""
        assert unknown.status_code == 404 and unknown.content == b""
    else:
        # REAL-SERVER.md: 1.18 health is only {healthy}; a 401 names its error; unknown paths fall
        # through to the web app.
        assert set(health.json()) == {"healthy"}
        assert wrong.json()["_tag"] == "UnauthorizedError"
        assert unknown.status_code == 200 and unknown.headers["content-type"].startswith("text/html")


@pytest.mark.e2e
def test_local_server_starts_this_binary_and_keeps_its_start_up_line(
    live_server: RealServer, opencode_bin: Path
) -> None:
    """octui's own LocalServer against the same real binary: both start-up lines are understood."""
    import asyncio

    from tui.client.local import LocalServer

    env = {k: v for k, v in live_server.env.items() if k != "OPENCODE_SERVER_PASSWORD"}

    async def run() -> tuple[str, str | None, int]:
        server = LocalServer(opencode_bin, env=env)
        info = await server.start(live_server.project_dir)
        try:
            async with httpx.AsyncClient(auth=(info.username, info.password), timeout=10) as http:
                health = await http.get(f"{info.url}/api/health")
            return info.url, server.startup_line, health.status_code
        finally:
            await server.stop()

    url, line, status = asyncio.run(run())
    assert status == 200
    assert line is not None and url in line and "listening on" in line
    if live_server.wire.v2:
        assert not line.startswith("opencode ")  # 2.x: "server listening on <url>"
    else:
        assert line.startswith("opencode server listening on ")


@pytest.mark.e2e
def test_text_and_reasoning_turn(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder, new_session: dict[str, Any]
) -> None:
    w = live_server.wire
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
    ended = events.wait_for(w.ev("step.ended"), _sid(sid))
    assert ended["data"]["finish"] == "stop"
    assert ended["data"]["tokens"]["input"] == 123 and ended["data"]["tokens"]["output"] == 45
    reasoning = [e["data"]["delta"] for e in events.of_type(w.ev("reasoning.delta"), _sid(sid))]
    assert "".join(reasoning) == "Let me think about a greeting."
    text = events.wait_for(w.ev("text.ended"), _sid(sid), timeout=1)
    assert text["data"]["text"] == "Hello! I am a scripted fake LLM."
    assert len(events.of_type(w.ev("text.delta"), _sid(sid))) > 1
    (request,) = fake_llm.requests_for("harness_text")
    assert request["stream"] is True and request["step"] == 0
    if w.v2:
        # TRACES.md 01: the prompt is admitted and promoted, the execution starts and succeeds.
        types = events.types()
        for kind in ("session.input.admitted", "session.execution.started", "session.input.promoted",
                     "session.execution.succeeded"):
            assert kind in types, kind
        assert types.index("session.input.promoted") < types.index(w.ev("step.started"))


@pytest.mark.e2e
def test_bash_permission_once_then_success(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder, new_session: dict[str, Any]
) -> None:
    w = live_server.wire
    sid = new_session["id"]
    command = "echo hello; echo world"
    tag = fake_llm.add_scenario(
        "harness_bash",
        [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "All done."}],
    )
    live_server.prompt(sid, f"Run it. {tag}")
    asked = events.wait_for(w.ev("permission.asked"), _sid(sid))["data"]
    assert asked["action"] == w.shell_tool and asked["resources"] == w.shell_resources(command)
    assert fake_llm.sent_calls("harness_bash")[0]["name"] == w.shell_tool
    called = events.wait_for(w.ev("tool.called"), _sid(sid))["data"]
    assert w.call_id(called) == w.source_call_id(asked) and called["input"] == {"command": command}

    with live_server.client() as http:
        pending = http.get(f"/api/session/{sid}/permission").json()["data"]
        assert [p["id"] for p in pending] == [asked["id"]]
        reply = http.post(f"/api/session/{sid}/permission/{asked['id']}/reply", json={"reply": "once"})
        assert reply.status_code == 204

    replied = events.wait_for(w.ev("permission.replied"), _sid(sid))["data"]
    assert replied["requestID"] == asked["id"] and replied["reply"] == "once"
    success = events.wait_for(w.ev("tool.success"), _sid(sid))["data"]
    assert w.call_id(success) == w.source_call_id(asked)
    assert w.tool_result(success)["exit"] == 0
    assert success["content"][0]["text"] == "hello\nworld\n"
    final = events.wait_for(w.ev("step.ended"), lambda d: _sid(sid)(d) and d["finish"] == "stop")
    assert final["data"]["finish"] == "stop"
    text = events.wait_for(w.ev("text.ended"), _sid(sid), timeout=2)["data"]["text"]
    assert text == "All done."
    # The second LLM call carried the tool result back.
    second = fake_llm.requests_for("harness_bash")[1]
    tool_messages = [m for m in second["body"]["messages"] if m.get("role") == "tool"]
    assert "hello" in json.dumps(tool_messages)
    if w.v2:
        # TRACES.md 02/08: the shell runs as a server shell (created, progress with its id, exited).
        assert events.of_type("shell.created") and events.of_type("shell.exited")


@pytest.mark.e2e
def test_provider_500_is_step_failed(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder, new_session: dict[str, Any]
) -> None:
    w = live_server.wire
    sid = new_session["id"]
    tag = fake_llm.add_scenario("harness_500", [{"error": {"status": 500}}])
    live_server.prompt(sid, f"Fail please. {tag}")
    if w.v2:
        # 2.x retries visibly (TRACES.md 07a, m09): a retry.scheduled per failed attempt, numbered
        # from 2, each naming the HTTP 500; then the turn fails with that error.
        failed = events.wait_for((w.ev("step.failed"), "session.execution.failed"),
                                 lambda d: _sid(sid)(d) and "HTTP 500" in json.dumps(d), timeout=120)["data"]
        retries = events.of_type("session.retry.scheduled", _sid(sid))
        assert [r["data"]["attempt"] for r in retries] == list(range(2, 2 + len(retries)))
        assert retries and all("HTTP 500" in r["data"]["error"]["message"] for r in retries)
        assert len(fake_llm.requests_for("harness_500")) == 1 + len(retries)
    else:
        failed = events.wait_for(w.ev("step.failed"), _sid(sid))["data"]
        assert len(fake_llm.requests_for("harness_500")) == 3  # retried invisibly (REAL-SERVER.md)
    assert "HTTP 500" in failed["error"]["message"]
    assert "fake error 500" in failed["error"]["message"]
    requests = fake_llm.requests_for("harness_500")
    assert {r["status"] for r in requests} == {500}
    assert not events.of_type(w.ev("text.ended"), _sid(sid))
    live_server.wait_idle(sid)


@pytest.mark.e2e
def test_provider_500_once_then_recovers(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder, new_session: dict[str, Any]
) -> None:
    w = live_server.wire
    sid = new_session["id"]
    tag = fake_llm.add_scenario(
        "harness_500_once", [{"error": {"status": 500, "times": 1}, "text": "Recovered."}]
    )
    live_server.prompt(sid, f"Flaky. {tag}")
    assert events.wait_for(w.ev("text.ended"), _sid(sid), timeout=30)["data"]["text"] == "Recovered."
    assert events.wait_for(w.ev("step.ended"), _sid(sid))["data"]["finish"] == "stop"
    assert [r["status"] for r in fake_llm.requests_for("harness_500_once")] == [500, 200]
    assert not events.of_type(w.ev("step.failed"), _sid(sid))
    if w.v2:
        # TRACES.md 07a: one retry.scheduled (attempt 2) on the same assistant message.
        (retry,) = events.of_type("session.retry.scheduled", _sid(sid))
        assert retry["data"]["attempt"] == 2 and "HTTP 500" in retry["data"]["error"]["message"]
        started = events.of_type(w.ev("step.started"), _sid(sid))
        assert {e["data"]["assistantMessageID"] for e in started} == {retry["data"]["assistantMessageID"]}


@pytest.mark.e2e
def test_interrupt_long_stream(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder, new_session: dict[str, Any]
) -> None:
    w = live_server.wire
    sid = new_session["id"]
    tag = fake_llm.add_scenario("harness_interrupt", [{"repeat_text": ["tick ", 400, 0.05]}])
    live_server.prompt(sid, f"Talk a lot. {tag}")
    events.wait_for_count(w.ev("text.delta"), 5, _sid(sid))
    with live_server.client() as http:
        assert http.post(f"/api/session/{sid}/interrupt").status_code == 204
    failed = events.wait_for(w.ev("step.failed"), _sid(sid), timeout=5)["data"]
    assert "interrupted" in failed["error"]["message"].lower()
    partial = events.wait_for(w.ev("text.ended"), _sid(sid), timeout=1)["data"]["text"]
    assert partial.startswith("tick ") and len(partial) < 400 * len("tick ")
    if w.v2:
        # TRACES.md 06: the aborted step, then the execution ends as interrupted by the user.
        assert failed["error"]["type"] == "aborted"
        ended = events.wait_for("session.execution.interrupted", _sid(sid), timeout=5)["data"]
        assert ended["reason"] == "user"
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
    # The restart took the generation and route table from the first start of this binary
    # (its spec is costly to serve): still what the server serves.
    with live_server.client() as http:
        assert generation_of(http) == (live_server.generation, live_server.spec_paths)


@pytest.mark.e2e
def test_subagent_is_a_child_session_or_an_unknown_tool(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder, new_session: dict[str, Any]
) -> None:
    """1.18.33 offers no subagent tool on /api (REAL-SERVER.md 05: "Unknown tool: task"); 2.x runs
    one in a child session (TRACES.md 05_subagent, m02): created with parentID, its id in the
    parent's tool.progress at metadata.metadata.sessionID, flat in tool.success."""
    w = live_server.wire
    sid = new_session["id"]
    child_tag = fake_llm.add_scenario("harness_child", [{"reasoning": "child thinking",
                                                         "text": "Child result: README.md only."}])
    tag = fake_llm.add_scenario("harness_subagent", [
        {"text": "Delegating.", "tool_calls": [{"name": "task", "arguments": {
            "description": "Inspect repo", "prompt": f"List the files {child_tag}",
            "subagent_type": "general"}}]},
        {"text": "The subagent says: README.md only."},
    ])
    live_server.prompt(sid, f"Delegate. {tag}")
    final = events.wait_for(w.ev("text.ended"), lambda d: _sid(sid)(d) and "subagent says" in d["text"],
                            timeout=60)["data"]
    assert final["text"] == "The subagent says: README.md only."
    (sent,) = fake_llm.sent_calls("harness_subagent")
    assert sent["name"] == w.subagent_tool
    if not w.v2:
        failed = events.wait_for(w.ev("tool.failed"), _sid(sid))["data"]
        assert "Unknown tool: task" in failed["error"]["message"]
        assert not fake_llm.requests_for("harness_child")  # no child ever ran
        assert not events.of_type("session.created", lambda d: d.get("info", d).get("parentID") == sid)
        return
    assert sent["arguments"] == {"description": "Inspect repo", "prompt": f"List the files {child_tag}",
                                 "agent": "general"}
    created = events.wait_for("session.created", lambda d: d.get("parentID") == sid)["data"]
    child = created["sessionID"]
    assert created["title"] == "Inspect repo" and created["agent"] == "general"
    progress = events.wait_for("session.tool.progress", _sid(sid))["data"]
    assert progress["metadata"]["metadata"]["sessionID"] == child
    success = events.wait_for(w.ev("tool.success"), _sid(sid))["data"]
    assert success["metadata"]["sessionID"] == child
    assert success["content"][0]["text"] == "Child result: README.md only."
    child_text = events.wait_for(w.ev("text.ended"), _sid(child))["data"]["text"]
    assert child_text == "Child result: README.md only."
    (child_request,) = fake_llm.requests_for("harness_child")
    offered = child_request["offered_tools"]
    assert "subagent" not in offered and "question" not in offered  # children cannot nest (m02)
    with live_server.client() as http:
        children = http.get("/api/session", params={"parentID": sid}).json()["data"]
    assert [c["id"] for c in children] == [child]
    live_server.wait_idle(sid)
