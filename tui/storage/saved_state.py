"""``SavedState``: the state octui keeps between runs: ``state.json`` and one file per draft.

Pure module: no Textual. The directory is ``config.state_dir()`` (``OCTUI_STATE_DIR`` overrides).
Drafts have no size cap, so each lives in its own file (``drafts/<key>.txt``, written
atomically): a 1 MB draft costs one write of itself, not a rewrite of all the state.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from pathlib import Path
from typing import Any

from tui.protocol.models import ModelRef
from tui.storage.bounded_read import FileRefused, human_bytes, read_bounded
from tui.storage.config import atomic_write, state_dir

__all__ = ["DraftTooLarge", "SavedState"]

STATE_MAX_BYTES = 64 * 1024 * 1024  # state.json of older versions held every draft
DRAFT_MAX_BYTES = 256 * 1024 * 1024  # read back at most this (a composer past it is unusable)
_HISTORY_LOCK = threading.Lock()  # one writer of the prompt history at a time (in this process)
_SAFE_KEY = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}")


class DraftTooLarge(OSError):
    """A saved draft too large to load; it stays in its file. ``str()`` says where."""

    def __str__(self) -> str:
        return str(self.strerror)


class SavedState:
    """Small JSON state kept between runs: drafts, per-session values, recent models.

    Everything lives in one ``state.json`` in the state dir. Each call re-reads the file and
    writes it back atomically, so two octui processes rarely clobber each other. A corrupt file
    is treated as empty (and replaced on the next write).
    """

    FILE_NAME = "state.json"
    DRAFTS_DIR = "drafts"
    RECENT_MODELS = 10
    HISTORY_FILE = "prompt-history.json"
    HISTORY_PROMPTS = 200  # prompts kept for Ctrl+Up, newest last
    HISTORY_PROMPT_BYTES = 8 * 1024  # a longer prompt (a paste) is not kept in the history

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else state_dir()

    @property
    def path(self) -> Path:
        return self.root / self.FILE_NAME

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(read_bounded(self.path, STATE_MAX_BYTES).decode("utf-8"))
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
    def draft_path(self, key: str) -> Path:
        """The file of ``key``'s draft (a hash names keys that are no plain file name)."""
        name = key if _SAFE_KEY.fullmatch(key) else hashlib.sha256(key.encode()).hexdigest()
        return self.root / self.DRAFTS_DIR / f"{name}.txt"

    def load_draft(self, session_id: str) -> str:
        """The unsent composer text of ``session_id`` ("" if none), whatever its size.

        Raises:
            DraftTooLarge: the saved draft is over ``DRAFT_MAX_BYTES``; it stays in its file.
            OSError: the draft file exists but cannot be read.
        """
        path = self.draft_path(session_id)
        try:
            raw = read_bounded(path, DRAFT_MAX_BYTES)
        except FileNotFoundError:
            pass
        except FileRefused as exc:
            if exc.size is None:
                raise
            raise DraftTooLarge(exc.errno, f"the saved draft is {human_bytes(exc.size)}, more than "
                                f"{human_bytes(DRAFT_MAX_BYTES)}; it was not loaded and stays in "
                                f"{path}") from None
        else:
            try:
                return raw.decode("utf-8", "surrogatepass")  # what save_draft wrote, exactly
            except UnicodeDecodeError:
                return raw.decode("utf-8", "replace")  # edited by hand: keep what can be kept
        value = self._read().get("drafts", {})  # where older versions kept drafts
        draft = value.get(session_id) if isinstance(value, dict) else None
        return draft if isinstance(draft, str) else ""

    def save_draft(self, session_id: str, text: str) -> None:
        """Remember ``text`` for ``session_id`` (all of it, atomically); blank text deletes the draft."""
        path = self.draft_path(session_id)
        if text.strip():
            atomic_write(path, text.encode("utf-8", "surrogatepass"))
        else:
            try:
                path.unlink()
            except FileNotFoundError:
                pass
        data = self._read()
        drafts = data.get("drafts")
        if isinstance(drafts, dict) and drafts.pop(session_id, None) is not None:
            self._write(data)  # the file copy (or nothing) replaces the old state.json entry

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

    # prompt history
    def prompt_history(self) -> list[str]:
        """The prompts sent in earlier runs (Ctrl+Up), oldest first."""
        try:
            raw = json.loads(read_bounded(self.root / self.HISTORY_FILE, STATE_MAX_BYTES).decode("utf-8"))
        except (OSError, ValueError):
            return []
        return [p for p in raw if isinstance(p, str)][-self.HISTORY_PROMPTS:] if isinstance(raw, list) else []

    def remember_prompt(self, text: str) -> None:
        """Add a sent prompt to the history (not one that repeats the last, nor a paste-sized one)."""
        if not text.strip() or len(text.encode("utf-8")) > self.HISTORY_PROMPT_BYTES:
            return
        with _HISTORY_LOCK:  # read, add, write: two sends at once lost one of them
            history = self.prompt_history()
            if history and history[-1] == text:
                return
            payload = json.dumps([*history, text][-self.HISTORY_PROMPTS:], ensure_ascii=False)
            atomic_write(self.root / self.HISTORY_FILE, payload.encode("utf-8"))
