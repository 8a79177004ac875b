"""``StateStore``: the small JSON state octui keeps between runs, in ``state.json``.

Pure module: no Textual. The directory is ``config.state_dir()`` (``OCTUI_STATE_DIR`` overrides).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tui.config import atomic_write, state_dir
from tui.protocol.models import ModelRef

__all__ = ["StateStore"]


class StateStore:
    """Small JSON state kept between runs: drafts, per-session values, recent models.

    Everything lives in one ``state.json`` in the state dir. Each call re-reads the file and
    writes it back atomically, so two octui processes rarely clobber each other. A corrupt file
    is treated as empty (and replaced on the next write).
    """

    FILE_NAME = "state.json"
    MAX_DRAFT = 200_000
    RECENT_MODELS = 10

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else state_dir()

    @property
    def path(self) -> Path:
        return self.root / self.FILE_NAME

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        payload = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True)
        atomic_write(self.path, payload.encode("utf-8"))

    def _section(self, data: dict[str, Any], name: str) -> dict[str, Any]:
        section = data.get(name)
        if not isinstance(section, dict):
            section = data[name] = {}
        return section

    # drafts
    def load_draft(self, session_id: str) -> str:
        """The unsent composer text of ``session_id`` ("" if none)."""
        value = self._read().get("drafts", {})
        draft = value.get(session_id) if isinstance(value, dict) else None
        return draft if isinstance(draft, str) else ""

    def save_draft(self, session_id: str, text: str) -> None:
        """Remember ``text`` for ``session_id``; blank text deletes the draft."""
        data = self._read()
        drafts = self._section(data, "drafts")
        if text.strip():
            drafts[session_id] = text[: self.MAX_DRAFT]
        elif drafts.pop(session_id, None) is None:
            return
        self._write(data)

    # per-session values
    def get(self, session_id: str, key: str, default: Any = None) -> Any:
        """A small per-session value (e.g. ``"permission_mode"``)."""
        sessions = self._read().get("sessions", {})
        values = sessions.get(session_id) if isinstance(sessions, dict) else None
        return values.get(key, default) if isinstance(values, dict) else default

    def set(self, session_id: str, key: str, value: Any) -> None:
        """Store a JSON-serialisable value; ``None`` deletes it."""
        data = self._read()
        sessions = self._section(data, "sessions")
        values = sessions.get(session_id)
        if not isinstance(values, dict):
            values = sessions[session_id] = {}
        if value is None:
            values.pop(key, None)
            if not values:
                sessions.pop(session_id, None)
        else:
            values[key] = value
        self._write(data)

    # recent models
    def recent_models(self) -> list[ModelRef]:
        """Most recently used models, newest first."""
        raw = self._read().get("recent_models", [])
        items = raw if isinstance(raw, list) else []
        return [ModelRef.model_validate(i) for i in items if isinstance(i, dict) and "id" in i]

    def push_recent_model(self, model: ModelRef) -> None:
        """Move ``model`` to the front of the recent list (bounded)."""
        others = [m for m in self.recent_models() if m.label != model.label]
        entries = [m.model_dump(include={"providerID", "id", "variant"}, exclude_none=True)
                   for m in [model, *others]]
        data = self._read()
        data["recent_models"] = entries[: self.RECENT_MODELS]
        self._write(data)
