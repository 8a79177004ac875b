"""Script vocabulary (frozen dataclasses) and the named demo scripts.

A ``Script`` is the assistant's side of one turn: a list of ``Step``s, each one provider call
(reasoning → text → tool calls). ``tui.demo.runner`` turns them into v2 events.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]


@dataclass(frozen=True)
class PermissionAsk:
    """``permission.asked`` before the tool runs; ``source`` is filled in by the runner."""

    action: str
    resources: tuple[str, ...]
    save: tuple[str, ...] = ()
    metadata: Json | None = None


@dataclass(frozen=True)
class QuestionAsk:
    """A plain ``question.asked`` (the older question mechanism)."""

    questions: tuple[Json, ...]


@dataclass(frozen=True)
class FormAsk:
    """The question tool as v2 asks it: a ``form.created`` titled "Questions" (PROTOCOL §4.9)."""

    questions: tuple[Json, ...]


@dataclass(frozen=True)
class Subagent:
    """The child session's script; ``background`` completes the tool at once (PROTOCOL §7)."""

    script: Script
    background: bool = False


@dataclass(frozen=True)
class Tool:
    name: str
    input: Json
    ask: PermissionAsk | QuestionAsk | FormAsk | None = None
    output: tuple[str, ...] = ("ok",)  # one text content item each
    metadata: Json | None = None
    progress: tuple[Json, ...] = ()
    error: str | None = None  # the tool fails with this message
    subagent: Subagent | None = None


@dataclass(frozen=True)
class Step:
    reasoning: str = ""
    text: str = ""
    tools: tuple[Tool, ...] = ()
    error: Json | None = None  # StructuredError: the step fails after streaming
    cost: float = 0.0012
    tokens: Json = field(default_factory=lambda: {
        "input": 1200, "output": 180, "reasoning": 40, "cache": {"read": 800, "write": 0}})


@dataclass(frozen=True)
class Script:
    name: str
    prompt: str  # what the user "typed" when run_script starts it
    steps: tuple[Step, ...]
    agent: str = "build"


# -- content -----------------------------------------------------------------------------------

_B, _G, _R = "\x1b[1;34m", "\x1b[32m", "\x1b[0m"
LS_OUTPUT = (
    "total 24\n"
    f"drwxr-xr-x 4 demo demo 4096 Jan  2 10:00 {_B}.{_R}\n"
    f"drwxr-xr-x 8 demo demo 4096 Jan  2 09:58 {_B}..{_R}\n"
    "-rw-r--r-- 1 demo demo  412 Jan  2 10:00 greet.py\n"
    "-rw-r--r-- 1 demo demo 1030 Jan  2 10:00 main.py\n"
    f"-rwxr-xr-x 1 demo demo  220 Jan  2 10:00 {_G}run.sh{_R}\n"
    f"drwxr-xr-x 2 demo demo 4096 Jan  2 10:00 {_B}tests{_R}\n"
)

GREET_PATCH = (
    "Index: src/greet.py\n"
    "===================================================================\n"
    "--- src/greet.py\n"
    "+++ src/greet.py\n"
    "@@ -1,6 +1,6 @@\n"
    " def greet(name: str) -> str:\n"
    '-    return "Hello " + name\n'
    '+    return f"Hello, {name}!"\n'
    " \n"
    " \n"
    ' if __name__ == "__main__":\n'
    '     print(greet("world"))\n'
)
GREET_DIFF: Json = {"file": "src/greet.py", "patch": GREET_PATCH, "additions": 1, "deletions": 1,
                    "status": "modified"}

WELCOME_TEXT = """Welcome to **octui**. This is a scripted demo: no model and no OpenCode server are running.

Here is the plan:

1. List the files in `src/` (you will be asked for permission)
2. Fix the greeting in `src/greet.py`
3. Summarise what changed

The function we are about to fix:

```python
def greet(name: str) -> str:
    return "Hello " + name
```
"""

QUESTIONS: tuple[Json, ...] = (
    {"question": "Which test runner should the project use?", "header": "Test runner",
     "options": [{"label": "pytest", "description": "Plain asserts, fixtures"},
                 {"label": "unittest", "description": "Standard library only"}]},
    {"question": "Which checks should run in CI?", "header": "CI checks", "multiple": True,
     "options": [{"label": "Lint", "description": "ruff check"},
                 {"label": "Types", "description": "mypy"},
                 {"label": "Tests", "description": "the test suite"}]},
)


def _long_text(sections: int = 24) -> str:
    parts = ["# A long answer\n"]
    for n in range(1, sections + 1):
        parts.append(
            f"\n## Part {n}\n\nThis paragraph exists to stream many small deltas, so the client's "
            f"frame budget, scroll following and interrupt handling can be watched under load. "
            f"Section {n} repeats the idea with slightly different words each time.\n"
        )
    return "".join(parts)


# -- scripts -----------------------------------------------------------------------------------

WELCOME = Script("welcome", "Give me a tour of this project.", (
    Step(
        reasoning="The user wants a tour. I should look at the source tree first, then make a "
                  "small, safe fix so they can see how edits look. Listing files needs the shell, "
                  "which asks for permission.",
        text=WELCOME_TEXT,
        tools=(Tool(
            "shell", {"command": "ls -la src", "description": "List source files"},
            ask=PermissionAsk("shell", ("ls -la src",), ("ls *",)),
            progress=({"status": "running"},),
            output=(LS_OUTPUT, "Command exited with code 0."),
            metadata={"status": "completed", "exit": 0, "truncated": False},
        ),),
    ),
    Step(
        text="`greet.py` concatenates strings. Let me switch it to an f-string with punctuation.",
        tools=(Tool(
            "edit", {"path": "src/greet.py", "oldString": 'return "Hello " + name',
                     "newString": 'return f"Hello, {name}!"'},
            output=("Edited src/greet.py (1 replacement).",),
            metadata={"files": [GREET_DIFF]},
        ),),
    ),
    Step(text="Done. Summary:\n\n- `src/` holds **4 files** and a `tests/` folder\n"
              "- `greet()` now returns `Hello, <name>!`\n\nTry `question`, `error`, `long` or "
              "`subagents` in a prompt to see the other demo scripts."),
))

_QUESTION_STEPS = (
    Step(text="Before I set up CI I need two decisions from you."),
    Step(text="Thanks, I will configure the project with your choices."),
)


def _question_script(name: str, ask: QuestionAsk | FormAsk) -> Script:
    tool = Tool("question", {"questions": list(QUESTIONS)}, ask=ask)
    first = Step(text=_QUESTION_STEPS[0].text, tools=(tool,))
    return Script(name, f"Set up CI for me ({name} demo).", (first, _QUESTION_STEPS[1]))


ERROR = Script("error", "Trigger a provider error.", (
    Step(
        reasoning="Calling the provider.",
        text="Let me look into that",
        error={"type": "provider", "status": 500,
               "message": 'Provider request failed with HTTP 500: {"error":"upstream overloaded"}'},
    ),
))

LONG = Script("long", "Write something long.", (Step(text=_long_text()),))


def _subagent(agent: str, description: str, script: Script, *, background: bool = False) -> Tool:
    inp: Json = {"agent": agent, "description": description, "prompt": script.prompt}
    if background:
        inp["background"] = True
    return Tool("subagent", inp, subagent=Subagent(script, background))


_GRANDCHILD = Script("readme", "Read README.md and report its sections.", (
    Step(text="README.md has three sections: Install, Usage and Development."),
), agent="explore")

_CHILD_MAP = Script("map", "Map the repository layout.", (
    Step(text="Scanning the tree, and delegating the README.",
         tools=(_subagent("explore", "Read the README", _GRANDCHILD),)),
    Step(text="The repository has `src/` (application code), `tests/` and a README with three "
              "sections."),
), agent="explore")

_CHILD_FAIL = Script("flaky", "Run the flaky test.", (
    Step(text="Running it now", error={
        "type": "provider", "message": "Provider request failed with HTTP 429: rate limited"}),
), agent="general")

_CHILD_BACKGROUND = Script("changelog", "Summarise CHANGELOG.md.", (
    Step(reasoning="Reading the changelog from the top.", text="Reading CHANGELOG.md"),
    Step(text="The last release added dark mode and fixed two crashes."),
), agent="general")

_CHILD_ASKS = Script("clean", "Delete the build directory.", (
    Step(text="I need to remove `build/`.", tools=(Tool(
        "shell", {"command": "rm -rf build", "description": "Remove build artefacts"},
        ask=PermissionAsk("shell", ("rm -rf build",), ("rm *",)),
        output=("Command exited with code 0.",), metadata={"status": "completed", "exit": 0,
                                                           "truncated": False},
    ),)),
    Step(text="Removed `build/`."),
), agent="general")

SUBAGENTS = Script("subagents", "Split this work across subagents.", (
    Step(
        reasoning="Four independent tasks: map the repo, run the flaky test, summarise the "
                  "changelog in the background, and clean the build directory.",
        text="I'll delegate these to subagents.",
        tools=(
            _subagent("explore", "Map the repository", _CHILD_MAP),
            _subagent("general", "Run the flaky test", _CHILD_FAIL),
            _subagent("general", "Summarise the changelog", _CHILD_BACKGROUND, background=True),
            _subagent("general", "Clean build artefacts", _CHILD_ASKS),
        ),
    ),
    Step(text="All foreground subagents are done; the changelog summary will arrive as a message."),
))

SCRIPTS: dict[str, Script] = {s.name: s for s in (
    WELCOME,
    _question_script("question", FormAsk(QUESTIONS)),
    _question_script("question-legacy", QuestionAsk(QUESTIONS)),
    ERROR,
    LONG,
    SUBAGENTS,
)}

DEFAULT_SCRIPT = "welcome"


def pick_script(text: str) -> Script:
    """The script whose name appears as a word in ``text`` (longest name wins), else welcome."""
    for name in sorted(SCRIPTS, key=len, reverse=True):
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE):
            return SCRIPTS[name]
    return SCRIPTS[DEFAULT_SCRIPT]
