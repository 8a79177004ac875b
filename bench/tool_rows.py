"""Mount tool rows in the headless app (120x40, the app's styles) and paint them.

    python -m bench.tool_rows [--rows 300 --batch 20]

Each batch of rows (shell commands collapsed and expanded with their output, reads, an edit with
its diff, a search, an answered question, a subagent) replaces the last one in a scroll area and
is painted. Figures: CPU seconds of this process for all of it and per row, the widgets a row
mounts (``walk_children``, the row included), and the wall seconds. What a transcript pays for
every tool call it shows: opening a session, paging older history, a turn that runs tools.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from typing import Any

from bench.common import emit, ensure_repo_on_path

ensure_repo_on_path()

T0 = 1_800_000_000_000.0
PATCH = "@@ -1,3 +1,3 @@\n def main():\n-    print('hello')\n+    print('hello, world')\n     return 0\n"


def sample_calls(count: int) -> list[tuple[Any, bool]]:
    """``count`` tool calls of the usual kinds, each with whether its row is expanded."""
    from tui.protocol.models import ToolContent
    from tui.state.transcript import ToolCall

    def call(index: int, name: str, **fields: Any) -> Any:
        return ToolCall(id=f"call_{index}", name=name, session_id="ses_1", message_id="msg_1",
                        status="completed", time_created=T0, time_ran=T0, time_completed=T0 + 1200,
                        **fields)

    output = "\n".join(f"tests/unit/test_{n}.py ...... [{n}%]" for n in range(12))
    makers = [
        lambda i: (call(i, "bash", input={"command": "pytest -q tests/unit", "description": "Run the tests"},
                        metadata={"exit": 0}, content=[ToolContent(type="text", text=output)]), False),
        lambda i: (call(i, "bash", input={"command": "git status --short", "description": "Show changes"},
                        metadata={"exit": 1}, content=[ToolContent(type="text", text=output)]), True),
        lambda i: (call(i, "read", input={"filePath": f"src/app/module_{i}.py"}), False),
        lambda i: (call(i, "edit", input={"filePath": "src/app.py", "oldString": "a", "newString": "b"},
                        metadata={"files": [{"file": "src/app.py", "patch": PATCH, "additions": 1,
                                             "deletions": 1}]}), True),
        lambda i: (call(i, "grep", input={"pattern": "TODO", "path": "src"}), False),
        lambda i: (call(i, "question", input={"questions": [{"header": "Pick", "question": "Which one?",
                                                             "options": [{"label": "A"}]}]},
                        metadata={"answers": [["A"]]}), False),
        lambda i: (call(i, "task", input={"description": "Map the repository", "agent": "explore"},
                        content=[ToolContent(type="text", text="<subagent>done</subagent>")]), False),
    ]
    return [makers[index % len(makers)](index) for index in range(count)]


async def run(rows: int, batch: int) -> dict[str, Any]:
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll

    from tui.app import clock
    from tui.app.app import OctuiApp
    from widgets.tools.tool_row import ToolRow

    class Bench(App[None]):
        CSS_PATH = OctuiApp.CSS_PATH

        def compose(self) -> ComposeResult:
            yield VerticalScroll(id="area")

    calls = sample_calls(rows)
    clock.freeze(T0 / 1000 + 5)
    app = Bench()
    widgets_per_row: list[int] = []
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            area = app.query_one("#area", VerticalScroll)
            await pilot.pause()
            gc.collect()
            cpu0, wall0 = time.process_time(), time.perf_counter()
            for start in range(0, rows, batch):
                await area.remove_children()
                mounted = [ToolRow(call, expanded=expanded) for call, expanded in calls[start:start + batch]]
                await area.mount(*mounted)
                await pilot.pause()
                app.screen._compositor.render_strips()  # every row of the batch painted
                widgets_per_row += [1 + len(list(row.walk_children())) for row in mounted]
            cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    finally:
        clock.freeze(None)
    return {
        "benchmark": "tool_rows", "rows": rows, "batch": batch,
        "cpu_s": round(cpu, 3), "cpu_ms_per_row": round(1000 * cpu / rows, 2), "wall_s": round(wall, 3),
        "widgets_per_row_mean": round(sum(widgets_per_row) / len(widgets_per_row), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=300)
    parser.add_argument("--batch", type=int, default=20)
    args = parser.parse_args()
    emit(asyncio.run(run(args.rows, args.batch)))


if __name__ == "__main__":
    main()
