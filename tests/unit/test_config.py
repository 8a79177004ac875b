"""Config file, server profile resolution and the state store (tui/storage/config.py)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.unit.test_bounded_read import within
from tui.protocol.models import ModelRef
from tui.storage.config import (
    Config,
    ConfigError,
    Connection,
    ServerProfile,
    config_path,
    load_config,
    resolve_connection,
    save_config,
    state_dir,
)
from tui.storage.saved_state import SavedState


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, "utf-8")
    return path


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path / "nope.toml")
    assert config == Config()
    assert config.theme == "textual-dark" and config.server is None
    assert config.reasoning_collapsed is True and config.notify is True and config.prompt_history is True
    assert config.warnings == []


def test_full_file(tmp_path: Path) -> None:
    path = write(tmp_path, """
theme = "nord"
server = "work"
notify = false
reasoning_collapsed = false
prompt_history = false

[servers.work]
url = "https://oc.example.com/"
username = "me"
password_env = "WORK_PW"

[keys]
sessions = "ctrl+s"

[tool_expand]
bash = "ERROR"
read = false
""")
    config = load_config(path)
    assert config.warnings == []
    assert config.theme == "nord" and config.server == "work" and not config.notify
    assert not config.reasoning_collapsed and not config.prompt_history
    assert config.servers == {"work": ServerProfile("https://oc.example.com", "me", "WORK_PW")}
    assert config.keys == {"sessions": "ctrl+s"}
    assert config.tool_expand == {"bash": "error", "read": False}


def test_invalid_toml_warns_and_uses_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "theme = \n[[["))
    assert config.theme == "textual-dark"
    assert len(config.warnings) == 1 and "invalid TOML" in config.warnings[0]


def test_not_utf8_and_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"theme = \"\xff\xfe\"")
    assert "not UTF-8" in load_config(path).warnings[0]
    assert "not read, it is a directory" in load_config(tmp_path).warnings[0]


def test_a_fifo_device_or_huge_file_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    config = within(5.0, lambda: load_config(fifo))  # opening it for reading would block
    assert config.theme == Config().theme and "named pipe" in config.warnings[0]
    if os.path.exists("/dev/zero"):
        assert "character device" in within(5.0, lambda: load_config("/dev/zero")).warnings[0]
    huge = tmp_path / "huge.toml"
    with huge.open("wb") as handle:
        handle.truncate(2 * 1024 * 1024)
    assert "is 2.0 MB; the limit is 1.0 MB" in load_config(huge).warnings[0]


def test_bad_values_are_dropped_one_by_one(tmp_path: Path) -> None:
    path = write(tmp_path, """
theme = 3
notify = "yes"
server = "ghost"
colour = "red"
keys = "nope"

[servers.ok]
url = "http://127.0.0.1:4096"
port = 1

[servers.bad]
url = "ftp://x"

[tool_expand]
bash = 1
""")
    config = load_config(path)
    assert config.theme == "textual-dark" and config.notify is True and config.server is None
    assert list(config.servers) == ["ok"]
    assert config.keys == {} and config.tool_expand == {}
    joined = "\n".join(config.warnings)
    for needle in ("theme:", "notify:", "colour: unknown", "keys: expected a table",
                   "servers.ok.port: unknown", "servers.bad.url", "tool_expand.bash",
                   "no profile named 'ghost'"):
        assert needle in joined


def test_save_round_trip_is_atomic_and_private(tmp_path: Path) -> None:
    config = Config(
        theme="nord",
        server="work",
        servers={"work": ServerProfile("https://oc.example.com", password_env="WORK_PW")},
        keys={"quit": "ctrl+q"},
        tool_expand={"bash": "error", "read": False},
        notify=False,
    )
    target = tmp_path / "sub" / "config.toml"
    assert save_config(config, target) == target
    assert load_config(target) == config
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in target.parent.iterdir()] == ["config.toml"]  # no temp file left
    assert "password" not in target.read_text().replace("password_env", "")


def test_save_keeps_the_old_file_when_writing_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = write(tmp_path, 'theme = "old"\n')

    def boom(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        save_config(Config(theme="new"), target)
    assert load_config(target).theme == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]


def test_paths_follow_env(tmp_path: Path) -> None:
    env = {"OCTUI_CONFIG": str(tmp_path / "c.toml"), "OCTUI_STATE_DIR": str(tmp_path / "state")}
    assert config_path(env) == tmp_path / "c.toml"
    assert state_dir(env) == tmp_path / "state"
    assert config_path({}).name == "config.toml" and "octui" in str(config_path({}))
    assert "octui" in str(state_dir({}))


PROFILES = Config(
    server="home",
    servers={
        "home": ServerProfile("http://home:4096", password_env="HOME_PW"),
        "work": ServerProfile("https://work", username="me", password="inline"),
        "open": ServerProfile("http://open:4096"),
    },
)


class TestResolveConnection:
    def test_url_wins_with_env_credentials(self) -> None:
        env = {"OPENCODE_SERVER_PASSWORD": "pw", "OPENCODE_SERVER_USERNAME": "u"}
        assert resolve_connection("http://x:1/", "work", env, PROFILES) == ("http://x:1", "u", "pw")

    def test_url_defaults(self) -> None:
        assert resolve_connection("http://x:1", None, {}, PROFILES) == ("http://x:1", "opencode", None)

    def test_named_profile_beats_default(self) -> None:
        assert resolve_connection(None, "work", {}, PROFILES) == ("https://work", "me", "inline")

    def test_default_profile_reads_password_env(self) -> None:
        env = {"HOME_PW": "secret", "OPENCODE_SERVER_PASSWORD": "other"}
        assert resolve_connection(None, None, env, PROFILES) == ("http://home:4096", "opencode", "secret")

    def test_generic_env_password_is_not_sent_to_profiles(self) -> None:
        env = {"OPENCODE_SERVER_PASSWORD": "other"}
        assert resolve_connection(None, "open", env, PROFILES) == ("http://open:4096", "opencode", None)

    def test_no_profile_means_local_server(self) -> None:
        assert resolve_connection(None, None, {}, Config()) is None

    def test_unknown_profile_raises_config_error(self) -> None:
        with pytest.raises(ConfigError, match="no server profile named 'nope'"):
            resolve_connection(None, "nope", {}, PROFILES)

    def test_loads_config_from_env_path(self, tmp_path: Path) -> None:
        path = write(tmp_path, 'server = "a"\n[servers.a]\nurl = "http://a:1"\n')
        assert resolve_connection(None, None, {"OCTUI_CONFIG": str(path)}) == ("http://a:1", "opencode", None)

    def test_password_never_in_repr(self) -> None:
        conn = Connection("http://x", "u", "hunter2")
        assert "hunter2" not in repr(conn) and "hunter2" not in str(conn)
        assert "inline" not in repr(PROFILES)


class TestSavedState:
    def test_prompt_history_survives_a_restart_bounded(self, tmp_path: Path) -> None:
        store = SavedState(tmp_path / "state")
        assert store.prompt_history() == []  # none yet: no file
        for text in ("first", "second", "second", "   ", "é" * (SavedState.HISTORY_PROMPT_BYTES // 2 + 1)):
            store.remember_prompt(text)
        assert SavedState(tmp_path / "state").prompt_history() == ["first", "second"]  # a new run
        for n in range(SavedState.HISTORY_PROMPTS + 5):
            store.remember_prompt(f"p{n}")
        kept = store.prompt_history()
        assert len(kept) == SavedState.HISTORY_PROMPTS and kept[-1] == f"p{SavedState.HISTORY_PROMPTS + 4}"
        (tmp_path / "state" / SavedState.HISTORY_FILE).write_text("{not json")
        assert store.prompt_history() == []  # a broken file is no history, and no crash

    def test_prompts_remembered_at_once_are_all_kept(self, tmp_path: Path) -> None:
        """Each send writes the history from a thread of its own: read, add, write. Two at once
        (Enter, then Alt+Enter) lost one of them."""
        import threading

        store = SavedState(tmp_path / "state")
        texts = [f"prompt {n}" for n in range(16)]
        threads = [threading.Thread(target=store.remember_prompt, args=(text,)) for text in texts]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
        assert sorted(store.prompt_history()) == sorted(texts)

    def test_drafts(self, tmp_path: Path) -> None:
        store = SavedState(tmp_path / "state")
        assert store.load_draft("ses_1") == ""
        store.save_draft("ses_1", "half a thought")
        store.save_draft("ses_2", "other")
        assert SavedState(tmp_path / "state").load_draft("ses_1") == "half a thought"
        store.save_draft("ses_1", "   ")
        assert store.load_draft("ses_1") == "" and store.load_draft("ses_2") == "other"
        assert sorted(p.name for p in (tmp_path / "state" / "drafts").iterdir()) == ["ses_2.txt"]
        assert stat.S_IMODE((tmp_path / "state" / "drafts" / "ses_2.txt").stat().st_mode) == 0o600
        assert stat.S_IMODE((tmp_path / "state" / "drafts").stat().st_mode) == 0o700

    def test_a_draft_of_any_size_survives_whole(self, tmp_path: Path) -> None:
        big = "".join(f"line {i} with ünïcödé and a tab\t\n" for i in range(40_000))  # ≈1.3 MB
        assert len(big) > 1_000_000
        SavedState(tmp_path).save_draft("ses_big", big)
        assert SavedState(tmp_path).load_draft("ses_big") == big

    def test_drafts_of_older_versions_are_still_loaded_then_moved(self, tmp_path: Path) -> None:
        (tmp_path / "state.json").write_text('{"drafts": {"ses_1": "old draft"}, "x": 1}', "utf-8")
        store = SavedState(tmp_path)
        assert store.load_draft("ses_1") == "old draft"
        store.save_draft("ses_1", "new draft")
        assert store.load_draft("ses_1") == "new draft"
        assert "ses_1" not in json.loads((tmp_path / "state.json").read_text("utf-8"))["drafts"]

    def test_keys_that_are_no_file_name_get_their_own_file(self, tmp_path: Path) -> None:
        store = SavedState(tmp_path)
        for key in ("../escape", "a/b", ".hidden", "x" * 300, "new"):
            store.save_draft(key, f"draft of {key}")
        for key in ("../escape", "a/b", ".hidden", "x" * 300):
            assert store.load_draft(key) == f"draft of {key}"
        assert {p.parent for p in (tmp_path).rglob("*.txt")} == {tmp_path / "drafts"}

    def test_a_draft_too_large_to_load_is_said_and_kept(self, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
        from tui.storage import saved_state as state_file
        from tui.storage.drafts import DraftKeeper

        store = SavedState(tmp_path)
        store.save_draft("ses_1", "y" * 5000)
        monkeypatch.setattr(state_file, "DRAFT_MAX_BYTES", 1024)
        keeper = DraftKeeper(store)
        assert keeper.load("ses_1") == ""
        problem = keeper.take_problem()
        assert problem is not None and "4.9 KB, more than 1.0 KB" in problem and "drafts" in problem
        assert keeper.take_problem() is None  # said once
        assert store.draft_path("ses_1").read_text() == "y" * 5000  # nothing lost

    def test_values(self, tmp_path: Path) -> None:
        store = SavedState(tmp_path)
        assert store.get("ses_1", "permission_mode", "ask") == "ask"
        store.set("ses_1", "permission_mode", "auto")
        assert store.get("ses_1", "permission_mode") == "auto"
        store.set("ses_1", "permission_mode", None)
        assert store.get("ses_1", "permission_mode") is None

    def test_recent_models(self, tmp_path: Path) -> None:
        store = SavedState(tmp_path)
        a = ModelRef(providerID="anthropic", id="sonnet")
        b = ModelRef(providerID="openai", id="gpt-5", variant="high")
        for model in (a, b, a):
            store.push_recent_model(model)
        assert [m.label for m in store.recent_models()] == ["anthropic/sonnet", "openai/gpt-5#high"]
        for i in range(20):
            store.push_recent_model(ModelRef(providerID="p", id=f"m{i}"))
        assert len(store.recent_models()) == SavedState.RECENT_MODELS

    def test_corrupt_file_is_treated_as_empty(self, tmp_path: Path) -> None:
        (tmp_path / "state.json").write_text("{not json", "utf-8")
        store = SavedState(tmp_path)
        assert store.load_draft("ses_1") == "" and store.recent_models() == []
        store.save_draft("ses_1", "x")
        assert store.load_draft("ses_1") == "x"

    def test_default_root_follows_env(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("OCTUI_STATE_DIR", str(tmp_path / "st"))
        assert SavedState().path == tmp_path / "st" / "state.json"
