"""octui itself (the Textual app, headless) against the real ``opencode serve`` and the fake LLM.

Each test drives the app with keys, like a person would, and checks both the store (what octui
understood) and the rendered screen (what the person sees). The CLI's exit codes and
``octui export`` are checked through ``tui.app.cli.main``.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.app_driver import AppDriver, running_app, session_text, tools_of
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import EventRecorder, RealServer
from tui.screens.main import MainScreen
from tui.screens.permission import PermissionScreen
from tui.screens.sessions import SessionsScreen
from tui.state.titles import is_default_title, title_from_prompt
from tui.state.transcript import Message, TextBlock
from tui.text.sanitize import one_line
from widgets.sessions.session_list import SessionList
from widgets.status.status_bar import StatusBar
from widgets.tools.tool_row import ToolRow
from widgets.transcript.reasoning_block import ReasoningView

pytestmark = pytest.mark.e2e


def unique(prefix: str) -> str:
    """A scenario name (and a token for texts) no other test uses."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _sid(session_id: str) -> Any:
    return lambda data: data.get("sessionID") == session_id


def _assistant_with(text: str) -> Any:
    def match(message: Message) -> bool:
        return message.role == "assistant" and message.finish == "stop" and any(
            getattr(part, "text", None) == text for part in message.parts
        )

    return match


def _user_messages(driver: AppDriver) -> list[str]:
    return [m.text for m in driver.messages() if m.role == "user"]


async def _server_messages(server: RealServer, session_id: str) -> list[dict[str, Any]]:
    """The session's messages over raw HTTP, oldest first (off the app's event loop)."""

    def get() -> list[dict[str, Any]]:
        with server.client() as http:
            response = http.get(f"/api/session/{session_id}/message", params={"order": "asc"})
            response.raise_for_status()
            data: list[dict[str, Any]] = response.json()["data"]
            return data

    return await asyncio.to_thread(get)


# --------------------------------------------------------------------------------------------
# Sessions, prompts, streaming
# --------------------------------------------------------------------------------------------


async def test_session_browser_lists_and_opens_a_session(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    name = unique("browse")
    answer = f"Answer for the browser test {name}."
    tag = fake_llm.add_scenario(name, [{"text": answer}])
    w = live_server.wire
    sid = live_server.create_session()["id"]
    title = f"Browser e2e {name}"
    renames = live_server.serves("POST", "/api/session/{sessionID}/rename")  # its own spec says
    if not renames:
        with live_server.client() as http:  # 1.18 /api has no rename; the legacy route sets the title
            assert http.patch(f"/session/{sid}", json={"title": title}).status_code == 200
    live_server.prompt(sid, f"Say something. {tag}")
    events.wait_for(w.ev("step.ended"), _sid(sid))
    if w.v2:
        # 2.x titles a new session itself after its first step (TRACES.md: session.renamed with the
        # title agent's answer, the fake LLM's tool-less reply); then octui's own rename route wins.
        auto = events.wait_for("session.renamed", _sid(sid), timeout=20)["data"]
        assert auto["title"] == "Fake title"
    if renames:
        with live_server.client() as http:
            assert http.post(f"/api/session/{sid}/rename", json={"title": title}).status_code == 204
        events.wait_for("session.renamed", lambda d: _sid(sid)(d) and d.get("title") == title)

    async with running_app(live_server) as driver:
        assert driver.session_id is None
        await driver.pilot.press("ctrl+s")
        browser = await driver.wait_for_screen(SessionsScreen)
        listing = browser.query_one(SessionList)
        ids: list[str] = await driver.wait_until(
            lambda: [s.id for s in listing.sessions if s.id == sid] and [s.id for s in listing.sessions],
            "the raw-HTTP session in the browser",
        )
        await driver.wait_for_text(title)
        for _ in range(ids.index(sid)):
            await driver.pilot.press("down")
        assert listing.highlighted_session_id == sid
        await driver.pilot.press("enter")
        await driver.wait_until(lambda: driver.session_id == sid, "the chosen session to open")
        assert isinstance(driver.app.screen, MainScreen)
        assert driver.main.sub_title == title
        assert _user_messages(driver) == [f"Say something. {tag}"]
        await driver.wait_for_text(answer)


async def test_first_prompt_creates_session_and_streams_reasoning_and_text(
    live_server: RealServer, fake_llm: FakeLLM
) -> None:
    name = unique("stream")
    reasoning = "Considering how best to greet this particular user politely."
    answer = f"Hello from the scripted model, streamed in several small pieces ({name})."
    # Word-sized chunks well apart: the partial state must stay observable on a loaded machine.
    words = answer.split(" ")
    chunks = [word + (" " if i < len(words) - 1 else "") for i, word in enumerate(words)]
    tag = fake_llm.add_scenario(name, [{"reasoning": reasoning, "chunks": chunks, "chunk_delay": 0.2}])
    prompt = f"Greet me. {tag}"

    async with running_app(live_server) as driver:
        assert "No session open." in driver.screen_text()
        await driver.type_prompt(prompt, by_keys=True)
        sid = await driver.wait_for_session()
        # Streamed: at some point the store holds a strict, still-streaming prefix of the answer.
        await driver.wait_until(
            lambda: any(
                part.streaming and 0 < len(part.text) < len(answer) and answer.startswith(part.text)
                for m in driver.messages()
                for part in m.parts
                if isinstance(part, TextBlock) and part.kind == "text"
            ),
            "a partly streamed answer",
        )
        await driver.wait_for_message(_assistant_with(answer), "the finished answer")
        state = driver.state
        assert session_text(state) == answer
        assert session_text(state, "reasoning") == reasoning
        assert _user_messages(driver) == [prompt]
        await driver.wait_idle()

        screen = await driver.wait_for_text(answer)
        assert prompt in screen
        (thinking,) = driver.main.query(ReasoningView)
        assert thinking.collapsed
        assert f"Thought ({len(reasoning.split())} words)" in screen
        assert reasoning not in screen  # collapsed: the heading only
        assert driver.main.composer_text() == ""  # a sent prompt leaves the box
        # Titled once its first turn is over (QA: every session octui made read "New session -
        # 2026-…" in the list): by the server (2.x) or, left untitled (1.18), by its prompt.
        await driver.wait_until(lambda: not is_default_title(driver.state.title), "a session title")
        if not live_server.wire.v2:
            assert driver.state.title == title_from_prompt(prompt)

    server_messages = await _server_messages(live_server, sid)
    assert [m["type"] for m in server_messages] == ["user", "assistant"]
    assert server_messages[0]["text"] == prompt
    with live_server.client() as http:
        info = http.get(f"/api/session/{sid}").json()["data"]
    directory = info.get("directory") or (info.get("location") or {}).get("directory")
    assert directory and Path(directory).resolve() == live_server.project_dir.resolve(), info
    assert [r["step"] for r in fake_llm.requests_for(name)] == [0]


async def test_escape_interrupts_a_long_stream(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    w = live_server.wire
    name = unique("interrupt")
    tag = fake_llm.add_scenario(name, [{"repeat_text": ["tick ", 400, 0.05]}])
    async with running_app(live_server) as driver:
        await driver.type_prompt(f"Talk for a long time. {tag}")
        sid = await driver.wait_for_session()
        await driver.wait_until(
            lambda: driver.state.busy and session_text(driver.state).count("tick") >= 5,
            "the long stream to be under way",
        )
        await driver.pilot.press("escape")
        # The step's error as the server words it (1.18 "Provider turn interrupted", the 2.0
        # preview "Step interrupted"): read from its own step.failed, never a literal.
        step = await events.await_for(w.ev("step.failed"), _sid(sid))
        cause = step["data"]["error"]
        assert cause.get("type") == "aborted" or "interrupt" in cause["message"].lower(), cause
        interrupted = cause["message"]
        failed = await driver.wait_for_message(
            lambda m: m.role == "assistant" and m.error is not None, "the step to fail"
        )
        assert failed.error is not None and failed.error.message == interrupted
        await driver.wait_idle()
        partial = session_text(driver.state)
        assert partial.startswith("tick ") and len(partial) < 400 * len("tick ")
        await driver.wait_for_text(interrupted)
        await driver.wait_until(lambda: not driver.main.query_one(StatusBar).info.busy, "status bar idle")
        status_line = next(line for line in driver.screen_text().splitlines() if "connected" in line)
        assert "idle" in status_line and "busy" not in status_line
    request = fake_llm.requests_for(name)[0]
    await asyncio.sleep(0)  # the disconnect is seen by the fake's own thread
    for _ in range(100):
        if request["disconnected"]:
            break
        await asyncio.sleep(0.05)
        request = fake_llm.requests_for(name)[0]
    assert request["disconnected"], "the interrupt did not reach the provider stream"


async def test_provider_http_500_is_an_error_row(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    w = live_server.wire
    name = unique("http500")
    tag = fake_llm.add_scenario(name, [{"error": {"status": 500}}])
    # 1.18 retries twice without a word; 2.x retries visibly, with back-off (TRACES.md 07a).
    timeout = 120 if w.v2 else 15
    # The turn is over when the server says so: 1.18 a failed step, 2.x a failed execution.
    turn_end = "session.execution.failed" if w.v2 else w.ev("step.failed")
    async with running_app(live_server) as driver:
        await driver.type_prompt(f"Fail, please. {tag}")
        sid = await driver.wait_for_session()
        ended = await events.await_for(turn_end, _sid(sid), timeout=timeout)
        cause = ended["data"]["error"]["message"]  # the server's words, naming the provider's 500
        assert "500" in cause, ended
        failed = await driver.wait_for_message(
            lambda m: m.role == "assistant" and m.error is not None and m.error.message == cause,
            "the provider error as the server gave it", timeout=15,
        )
        assert failed.error is not None
        await driver.wait_idle()
        screen = await driver.wait_for_text(one_line(cause, 400)[:60])
        assert "✗" in screen
        assert session_text(driver.state) == ""
    assert {r["status"] for r in fake_llm.requests_for(name)} == {500}


async def test_steered_and_queued_prompts_are_delivered_in_order(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    first, steer, queue = unique("first"), unique("steer"), unique("queue")
    # Turn 1 must outlast typing and admitting two prompts: 5 s, not 2 s, for a loaded machine.
    fake_llm.add_scenario(first, [{"repeat_text": ["tick ", 100, 0.05]}])
    fake_llm.add_scenario(steer, [{"text": f"Steered answer {steer}."}])
    fake_llm.add_scenario(queue, [{"text": f"Queued answer {queue}."}])
    prompts = [f"Start. {fake_llm.tag(first)}", f"Also this. {fake_llm.tag(steer)}",
               f"Later. {fake_llm.tag(queue)}"]

    async with running_app(live_server) as driver:
        await driver.type_prompt(prompts[0])
        sid = await driver.wait_for_session()
        await driver.wait_until(lambda: driver.state.busy and session_text(driver.state), "turn 1 running")
        await driver.type_prompt(prompts[1])  # Enter while busy: steer
        await driver.type_prompt(prompts[2], key="alt+enter")  # queue
        pending = await driver.wait_until(
            lambda: [(p.text, p.delivery) for p in driver.state.inbox.values()]
            if len(driver.state.inbox) == 2 else None,
            "both prompts admitted and pending",
        )
        assert pending == [(prompts[1], "steer"), (prompts[2], "queue")]
        screen = await driver.wait_for_text("⏸ queued")
        assert "⇥ steer" in screen
        assert driver.state.busy  # both were admitted while turn 1 still ran

        await driver.wait_for_message(_assistant_with(f"Queued answer {queue}."), "the queued answer")
        await driver.wait_idle()
        assert _user_messages(driver) == prompts
        order = [
            m.text if m.role == "user" else session_text_of(m)
            for m in driver.messages()
            if m.role in ("user", "assistant")
        ]
        assert order[2:] == [prompts[1], f"Steered answer {steer}.", prompts[2], f"Queued answer {queue}."]
        assert not driver.state.inbox
        await driver.wait_for_text(f"Queued answer {queue}.")

    w = live_server.wire
    admitted = events.of_type(w.ev("prompt.admitted"), _sid(sid))
    if w.v2:  # TRACES.md 1: input.admitted {inputID, input: {type, data: {text}, delivery}}
        got = [(e["data"]["input"]["data"]["text"], e["data"]["input"]["delivery"]) for e in admitted]
        # History follows promotion order and the user message id is the input id.
        promoted = [e["data"]["inputID"] for e in events.of_type("session.input.promoted", _sid(sid))]
        assert promoted == [e["data"]["inputID"] for e in admitted]
        server_ids = [m["id"] for m in await _server_messages(live_server, sid) if m["type"] == "user"]
        assert server_ids == promoted
    else:
        got = [(e["data"]["prompt"]["text"], e["data"]["delivery"]) for e in admitted]
    assert got == [(prompts[0], "steer"), (prompts[1], "steer"), (prompts[2], "queue")]
    assert [r["scenario"] for r in fake_llm.requests if r["scenario"] in (first, steer, queue)] == [
        first, steer, queue
    ]


def session_text_of(message: Message) -> str:
    return "".join(getattr(part, "text", "") for part in message.parts if getattr(part, "kind", "") == "text")


# --------------------------------------------------------------------------------------------
# Permission dialog
# --------------------------------------------------------------------------------------------


async def test_permission_allow_once_runs_the_tool(live_server: RealServer, fake_llm: FakeLLM) -> None:
    name = unique("perm-once")
    command = f"echo allowed-{name}"
    tag = fake_llm.add_scenario(
        name,
        [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "The command ran."}],
    )
    async with running_app(live_server) as driver:
        await driver.type_prompt(f"Run it. {tag}")
        await driver.wait_for_session()
        dialog = await driver.wait_for_screen(PermissionScreen)
        w = live_server.wire
        shell = w.shell_tool
        assert dialog.ask.action == shell and dialog.ask.resources == w.shell_resources(command)
        screen = await driver.wait_for_text("Allow once [o]")
        assert command in screen
        await driver.pilot.press("o")
        await driver.wait_until(lambda: isinstance(driver.app.screen, MainScreen), "the dialog to close")
        (tool,) = await driver.wait_until(
            lambda: [t for t in tools_of(driver.state) if t.status == "completed"], "the tool to complete"
        )
        assert tool.name == shell and f"allowed-{name}" in tool.output_text
        await driver.wait_for_message(_assistant_with("The command ran."), "the final answer")
        (row,) = driver.main.query(ToolRow)
        await driver.wait_until(lambda: row.has_class("-completed"), "the tool row styled as completed")
        await driver.wait_for_text("The command ran.")
        assert not driver.app.store.asks


async def test_permission_reject_fails_the_tool(live_server: RealServer, fake_llm: FakeLLM) -> None:
    name = unique("perm-reject")
    marker = f"rejected-{name}.txt"
    tag = fake_llm.add_scenario(
        name, [{"tool_calls": [{"name": "bash", "arguments": {"command": f"touch {marker}"}}]}, {"text": "x"}]
    )
    async with running_app(live_server) as driver:
        await driver.type_prompt(f"Touch it. {tag}")
        await driver.wait_for_session()
        await driver.wait_for_screen(PermissionScreen)
        await driver.pilot.press("r")
        await driver.wait_until(lambda: isinstance(driver.app.screen, MainScreen), "the dialog to close")
        (tool,) = await driver.wait_until(
            lambda: [t for t in tools_of(driver.state) if t.status == "error"], "the tool to fail"
        )
        assert tool.error is not None and tool.error.message
        await driver.wait_until(lambda: driver.main.query(ToolRow), "the tool row")
        (row,) = driver.main.query(ToolRow)
        await driver.wait_until(lambda: row.has_class("-error"), "the tool row in error")
        await driver.wait_idle()
        assert not driver.app.store.asks
    assert not (live_server.project_dir / marker).exists()


# --------------------------------------------------------------------------------------------
# Subagents
# --------------------------------------------------------------------------------------------


async def test_subagent_child_in_the_tree_or_the_unknown_tool_row(
    live_server: RealServer, fake_llm: FakeLLM
) -> None:
    """2.x runs a subagent in a child session: octui shows it in the tree and Alt+Down opens it
    (TRACES.md 05_subagent). 1.18.33 has no subagent tool on /api: the row fails, no child."""
    from tui.state.tree import TreeNode, build_tree

    w = live_server.wire
    name, child_name = unique("subagent"), unique("child")
    child_answer = f"Child result {child_name}."
    child_tag = fake_llm.add_scenario(child_name, [{"text": child_answer}])
    tag = fake_llm.add_scenario(name, [
        {"tool_calls": [{"name": "task", "arguments": {"description": "Inspect repo",
                                                       "prompt": f"Look around {child_tag}",
                                                       "subagent_type": "general"}}]},
        {"text": f"Parent done {name}."},
    ])
    async with running_app(live_server) as driver:
        await driver.type_prompt(f"Delegate it. {tag}")
        sid = await driver.wait_for_session()
        await driver.wait_for_message(_assistant_with(f"Parent done {name}."), "the parent's answer", 60)
        (call,) = [t for t in tools_of(driver.state) if t.name == w.subagent_tool]
        if not w.v2:
            assert call.status == "error" and call.error is not None
            assert "Unknown tool: task" in call.error.message
            assert build_tree(driver.app.store, sid).children == []
            assert not fake_llm.requests_for(child_name)
            return
        assert call.status == "completed"
        def first_child() -> TreeNode | None:
            children = build_tree(driver.app.store, sid).children
            return children[0] if children else None

        node: TreeNode = await driver.wait_until(first_child, "the child in the subagent tree", 20)
        assert node.title == "Inspect repo" and node.known
        child = node.session_id
        await driver.wait_until(lambda: build_tree(driver.app.store, sid).children[0].finished,
                                "the child to be finished in the tree", 20)
        await driver.pilot.press("alt+down")
        await driver.wait_until(lambda: driver.session_id == child, "Alt+Down to open the child")
        assert driver.state.parent_id == sid
        await driver.wait_for_text(child_answer)
        await driver.pilot.press("alt+up")
        await driver.wait_until(lambda: driver.session_id == sid, "Alt+Up back to the parent")
