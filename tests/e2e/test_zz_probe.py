from __future__ import annotations
import pytest
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import RealServer
from tests.e2e.ui_helpers import *
from tui.screens.permission import PermissionScreen

@pytest.mark.e2e
async def test_probe(live_server: RealServer, fake_llm: FakeLLM) -> None:
    sid = live_server.create_session()["id"]
    (live_server.project_dir / "probe_notes.txt").write_text("line one\nline two\nline three\n")
    patch = "*** Begin Patch\n*** Add File: probe_new.py\n+print('hello')\n+print('bye')\n*** Update File: probe_notes.txt\n@@\n line one\n-line two\n+line 2\n*** End Patch"
    tag = fake_llm.add_scenario("probe_edit", [
        {"tool_calls": [{"name": "edit", "arguments": {"path": "probe_notes.txt", "oldString": "line two", "newString": "line 2 (edited)\nline 2b"}}]},
        {"tool_calls": [{"name": "apply_patch", "arguments": {"patchText": patch}}]},
        {"text": "Probe done."}])
    import time
    t0 = time.monotonic()
    async with running_app(live_server, sid) as (app, pilot):
        await submit_prompt(pilot, f"Edit it {tag}")
        dlg = await wait_for_screen(pilot, PermissionScreen)
        print(screen_text(dlg))
        await pilot.press("o")
        call = await wait_until(pilot, lambda: (c := tool_call(app, sid, "edit")) and c.finished and c, "edit done")
        print("done", time.monotonic() - t0, call.status, call.metadata, call.content)
        dlg = await wait_for_screen(pilot, PermissionScreen)
        print(screen_text(dlg))
        await pilot.press("o")
        call2 = await wait_until(pilot, lambda: (c := tool_call(app, sid, "apply_patch")) and c.finished and c, "patch done")
        print("done", time.monotonic() - t0, call2.status, call2.metadata, call2.content)
        await wait_until(pilot, lambda: "Probe done." in session_texts(app, sid), "text")
        for c in (call, call2):
            row = await wait_until(pilot, lambda: tool_row(app, c.id), "row")
            await show_widget(pilot, row)
            print(row.classes)
            print(widget_text(row))
            for s in widget_strips(row):
                segs = list(s)
                print(repr(s.text[:40]), [(seg.text[:10], seg.style.bgcolor.triplet if seg.style and seg.style.bgcolor else None) for seg in segs][:6])
