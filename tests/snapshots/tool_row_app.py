"""Provides ``ToolRowApp`` (mounts ToolRows from given calls) and deterministic sample calls."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from tui.protocol.models import StructuredError, ToolContent
from tui.state.transcript import ToolCall
from widgets.tools.tool_row import ToolRow

STYLES = Path(__file__).resolve().parents[2] / "styles"

T0 = 1_800_000_000_000.0
"""A fixed epoch (ms) for every sample call; tests freeze ``tui.app.clock`` near it."""


class ToolRowApp(App[None]):
    """Mounts one ToolRow per ``(call, expanded)``; nothing else on screen."""

    CSS_PATH = [STYLES / "tool_row.tcss", STYLES / "diff_view.tcss", STYLES / "terminal_output.tcss"]

    def __init__(self, rows: Sequence[tuple[ToolCall, bool | None]]) -> None:
        super().__init__()
        self.rows = list(rows)
        self.animation_level = "none"

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="transcript"):
            for index, (call, expanded) in enumerate(self.rows):
                yield ToolRow(call, expanded=expanded, id=f"row-{index}")

    def on_mount(self) -> None:
        rows = self.query(ToolRow)
        if rows:
            rows.first().focus(scroll_visible=False)


def text(*texts: str) -> list[ToolContent]:
    return [ToolContent(type="text", text=t) for t in texts]


def call(
    name: str,
    *,
    status: str = "completed",
    input: dict[str, object] | None = None,
    metadata: dict[str, object] | None = None,
    content: list[ToolContent] | None = None,
    error: str | None = None,
    seconds: float = 1.2,
    input_text: str = "",
    progress: dict[str, object] | None = None,
) -> ToolCall:
    finished = status in ("completed", "error")
    return ToolCall(
        id=f"call_{name}",
        name=name,
        status=status,  # type: ignore[arg-type]
        input_text=input_text,
        input=dict(input or {}),
        metadata=dict(metadata or {}),
        progress=dict(progress or {}),
        content=list(content or []),
        error=StructuredError(message=error) if error else None,
        time_created=T0,
        time_ran=T0,
        time_completed=T0 + seconds * 1000 if finished else None,
        version=1,
    )


GREEN, RED, BOLD, RESET = "\x1b[32m", "\x1b[31m", "\x1b[1m", "\x1b[0m"

BASH_OK = call(
    "bash",
    input={"command": "pytest -q tests/unit"},
    metadata={"exit": 0, "truncated": False},
    content=text(
        f"{BOLD}collected 3 items{RESET}\n\ntests/unit/test_a.py {GREEN}...{RESET}\n\n"
        f"{GREEN}3 passed{RESET} in 0.12s\n",
        "Command exited with code 0.",
    ),
)

BASH_FAIL = call(
    "bash",
    input={"command": "make check"},
    metadata={"exit": 1, "truncated": False},
    content=text(
        f"ruff check .\n{RED}error{RESET}: widgets/x.py:3:1 F401 unused import\n"
        f"downloading 10%\rdownloading 55%\rdownloading 100%\n{RED}{BOLD}make: *** [check] Error 1{RESET}\n",
        "Command exited with code 1.",
    ),
    seconds=3.4,
)

LONG_OUTPUT = call(
    "bash",
    input={"command": "seq 1 450"},
    metadata={"exit": 0, "truncated": True},
    content=text("\n".join(f"line {n}" for n in range(1, 451)), "Command exited with code 0."),
)

EDIT_PATCH = (
    "Index: src/app.py\n"
    "===================================================================\n"
    "--- src/app.py\n+++ src/app.py\n"
    "@@ -1,6 +1,7 @@\n"
    " import os\n"
    "-import sys\n"
    "+import sys  # argv\n"
    "+import json\n"
    " \n"
    " \n"
    " def main() -> int:\n"
    "@@ -20,5 +21,5 @@ def main() -> int:\n"
    "     args = sys.argv[1:]\n"
    "-    print(\"hello\", args)\n"
    "+    print(json.dumps({\"hello\": args}))\n"
    "     return 0\n"
    " \n"
)

EDIT = call(
    "edit",
    input={"path": "src/app.py", "oldString": "import sys", "newString": "import sys  # argv"},
    metadata={
        "files": [{"file": "src/app.py", "patch": EDIT_PATCH, "additions": 3, "deletions": 2,
                   "status": "modified"}],
        "replacements": 1,
    },
    content=text("Edited file successfully: src/app.py"),
)

MULTI_PATCH = call(
    "apply_patch",
    input={"patchText": "*** Begin Patch ..."},
    metadata={
        "applied": [{"type": "add", "resource": "hello.py"}, {"type": "update", "resource": "notes.txt"}],
        "files": [
            {"file": "hello.py", "status": "added", "additions": 2, "deletions": 0,
             "patch": "--- hello.py\n+++ hello.py\n@@ -0,0 +1,2 @@\n+def hello():\n+    print('hello')\n"},
            {"file": "notes.txt", "status": "modified", "additions": 1, "deletions": 1,
             "patch": "Index: notes.txt\n--- notes.txt\n+++ notes.txt\n@@ -1,2 +1,2 @@\n line one\n"
                      "-line 2 (edited)\n+line two again\n"},
        ],
    },
    content=text("Applied patch sequentially:\nA hello.py\nM notes.txt"),
)

WRITE = call(
    "write",
    input={"path": "notes.txt", "content": "line one\nline two\n"},
    metadata={"operation": "write", "target": "/proj/notes.txt", "resource": "notes.txt", "existed": False},
    content=text("Created file successfully: notes.txt"),
)

RUNNING = call(
    "bash", status="running", input={"command": "npm run build"}, seconds=0,
)

STREAMING = call(
    "write", status="streaming", input_text='{"path": "docs/guide.md", "content": "# Gui', seconds=0,
)

UNKNOWN = call(
    "mcp_github_search",
    input={"query": "textual diff", "limit": 5, "filters": {"lang": ["py"], "stars": None}},
    metadata={"weird": [1, {"x": None}], "exit": "not-a-number", "files": "nope"},
    content=text("3 repositories found:\nTextualize/textual\nbatrachianai/toad"),
)

HOSTILE = call(
    "bash",
    input={"command": "cat evil.txt\x1b]0;pwned title\x07"},
    metadata={"exit": 0},
    content=text(
        "safe start\n"
        "\x1b]0;set window title\x07title gone\n"
        "\x1b]52;c;cm0gLXJmIH4=\x07clipboard gone\n"
        "\x1b]8;;https://evil.example/\x1b\\link text\x1b]8;;\x1b\\ (link gone)\n"
        "\x1b[2Jclear gone \x1b[10;5Hcursor gone \x1b[3Aup gone\n"
        "\x1bP1$tmalicious dcs\x1b\\dcs gone\n"
        "\x9b31mC1 csi gone\n"
        "bidi: \u202eevil.exe\u202c done\n"
        f"{RED}still red{RESET} ok\n",
        "Command exited with code 0.",
    ),
)

QUESTION = call(
    "question",
    input={"questions": [
        {"header": "Colour", "question": "Which colour?", "options": [{"label": "Blue"}, {"label": "Red"}]},
        {"header": "Extras", "question": "What else?", "options": [{"label": "Tests"}, {"label": "Docs"}],
         "multiple": True},
    ]},
    metadata={"answers": [["Blue"], ["Tests", "Docs"]]},
    content=text("User answered"),
)

SUBAGENT = call(
    "subagent",
    input={"agent": "general", "description": "Survey the test suite", "prompt": "Look"},
    metadata={"sessionID": "ses_child123", "status": "completed"},
    content=text(
        '<subagent sessionID="ses_child123" state="completed">\nFound 42 tests, all green.\n</subagent>'
    ),
    seconds=75,
)

READ = call(
    "read",
    input={"path": "README.md"},
    metadata={"uri": "file:///proj/README.md", "content": "# octui\n\nA client.\n", "mime": "text/markdown"},
)

FAILED = call(
    "read", status="error", input={"path": "/etc/shadow"}, error="Unable to read /etc/shadow",
)
