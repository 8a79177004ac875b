"""What the real server under test says on the wire, per generation, for tests that read raw events.

The generation is detected from the running server's behaviour (the spec document it serves: a
2.x server serves its own ``/openapi.json``, the 1.18.33 preview serves ``/doc``), never from a
version string. Tests name events by a short, generation-neutral name (``wire.ev("step.ended")``)
and read fields through the few accessors here; everything that legitimately differs between the
generations is listed in this one file, each entry backed by the recorded traces
(``traces-1.18/``, ``opencode-v2/traces-2.0/``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Generation(str, Enum):  # noqa: UP042 (str() gives the value)
    PREVIEW_118 = "1.18 preview"  # opencode-ai@1.18.33: /api routes, session.next.* events
    V2 = "2.x"  # a 2.x server (2.0 preview and later): session.*, permission.*, form.* events


# Short name -> event type. 1.18: traces-1.18/README (REAL-SERVER.md); 2.x: traces-2.0/TRACES.md.
_EVENTS: dict[Generation, dict[str, str]] = {
    Generation.PREVIEW_118: {
        "prompt.admitted": "session.next.prompt.admitted",
        "step.started": "session.next.step.started",
        "step.ended": "session.next.step.ended",
        "step.failed": "session.next.step.failed",
        "text.delta": "session.next.text.delta",
        "text.ended": "session.next.text.ended",
        "reasoning.delta": "session.next.reasoning.delta",
        "tool.called": "session.next.tool.called",
        "tool.success": "session.next.tool.success",
        "tool.failed": "session.next.tool.failed",
        "permission.asked": "permission.v2.asked",
        "permission.replied": "permission.v2.replied",
        "question.asked": "question.v2.asked",
        "question.replied": "question.v2.replied",
        "question.rejected": "question.v2.rejected",
        "revert.staged": "session.next.revert.staged",
        "agent.switched": "session.next.agent.switched",
        "model.switched": "session.next.model.switched",
    },
    Generation.V2: {
        "prompt.admitted": "session.input.admitted",
        "step.started": "session.step.started",
        "step.ended": "session.step.ended",
        "step.failed": "session.step.failed",
        "text.delta": "session.text.delta",
        "text.ended": "session.text.ended",
        "reasoning.delta": "session.reasoning.delta",
        "tool.called": "session.tool.called",
        "tool.success": "session.tool.success",
        "tool.failed": "session.tool.failed",
        "permission.asked": "permission.asked",
        "permission.replied": "permission.replied",
        # 2.x asks questions as forms (TRACES.md 04_question): created, replied, cancelled.
        "question.asked": "form.created",
        "question.replied": "form.replied",
        "question.rejected": "form.cancelled",
        "revert.staged": "session.revert.staged",
        "agent.switched": "session.agent.selected",
        "model.switched": "session.model.selected",
    },
}

_SHELL_SPLIT = re.compile(r"\s*(?:;|&&|\|\||\|)\s*")


@dataclass(frozen=True)
class Wire:
    generation: Generation

    @property
    def v2(self) -> bool:
        return self.generation is Generation.V2

    def ev(self, name: str) -> str:
        """The event type for a short name; an unknown name is a test bug, never a silent guess."""
        return _EVENTS[self.generation][name]

    # -- fields that moved ---------------------------------------------------------------------

    @property
    def call_id_key(self) -> str:
        """The tool call id in ``tool.*`` events and permission sources: 1.18 ``callID``, 2.x ``id``."""
        return "id" if self.v2 else "callID"

    def call_id(self, data: dict[str, Any]) -> Any:
        return data.get(self.call_id_key)

    def source_call_id(self, asked: dict[str, Any]) -> Any:
        return (asked.get("source") or {}).get(self.call_id_key)

    def tool_result(self, success: dict[str, Any]) -> dict[str, Any]:
        """The structured result of ``tool.success``: 1.18 ``structured``, 2.x ``metadata``."""
        result = success.get("metadata" if self.v2 else "structured")
        return result if isinstance(result, dict) else {}

    # -- tool names the server offers the model (the fake LLM maps its scripts onto them) --------

    @property
    def shell_tool(self) -> str:
        return "shell" if self.v2 else "bash"

    @property
    def subagent_tool(self) -> str:
        return "subagent" if self.v2 else "task"

    def shell_resources(self, command: str) -> list[str]:
        """What a shell permission ask lists: 1.18 the whole command; 2.x each simple command of
        it (``echo hello; sleep 0.3; echo world`` -> three, TRACES.md 02_shell_permission)."""
        if not self.v2:
            return [command]
        return [part for part in _SHELL_SPLIT.split(command.strip()) if part]

    def attachment_uri(self, file: dict[str, Any]) -> Any:
        """A user message's file attachment URI: 1.18 ``uri``; 2.x ``source: {type: "uri", uri}``."""
        if self.v2:
            return (file.get("source") or {}).get("uri")
        return file.get("uri")

    # -- requests ------------------------------------------------------------------------------

    def location_params(self, directory: str) -> dict[str, str]:
        """The location query: 1.18 ``directory=``; 2.x a deep object ``location[directory]=``."""
        return {"location[directory]": directory} if self.v2 else {"directory": directory}

    def prompt_body(self, text: str, **extra: Any) -> dict[str, Any]:
        """``POST /api/session/{id}/prompt``: 1.18 nests ``prompt: {text}``, 2.x takes ``text``."""
        return {"text": text, **extra} if self.v2 else {"prompt": {"text": text}, **extra}


__all__ = ["Generation", "Wire"]
