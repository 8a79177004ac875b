"""Desktop notifications through the terminal: OSC 777 / OSC 9 building, sanitising, terminal
detection, tmux passthrough, the config option and the write through Textual's driver.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.snapshots.main_app import MainApp
from tui.app.notify import (
    METHODS,
    Alert,
    detect_method,
    notification_field,
    notification_sequence,
    terminal_signal,
    tmux_passthrough,
)
from tui.storage.config import NOTIFY_METHODS, Config, load_config, save_config

ESC = "\x1b"
ST = "\x1b\\"
HOSTILE = "Fix;it\x07\x1b]52;c;ZXZpbA==\x07 now\x1b\\ \x9c\x9d0;pwn\x9c\n\tdone\x1b[2J\u202e"


def test_fields_show_every_control_escape_and_lose_separators() -> None:
    field = notification_field(HOSTILE)
    assert field == "Fix,it␇␛]52,c,ZXZpbA==␇ now␛\\ <U+009C><U+009D>0,pwn<U+009C> done␛[2J<U+202E>"
    for bad in (ESC, "\x07", "\x9c", "\x9d", ";", "\n", "\t"):
        assert bad not in field
    assert len(notification_field("x" * 500)) == 200 and notification_field("x" * 500).endswith("…")


def test_osc777_has_title_and_body_and_one_terminator() -> None:
    seq = notification_sequence("osc777", "octui", "Turn finished: " + HOSTILE)
    assert seq == f"{ESC}]777;notify;octui;Turn finished: {notification_field(HOSTILE)}{ST}"
    assert seq.count(ESC) == 2 and seq.count(";") == 3  # the introducer and ST only


def test_osc9_joins_title_and_body() -> None:
    assert notification_sequence("osc9", "octui", "Needs your answer: a;b") == \
        f"{ESC}]9;octui: Needs your answer: a,b{ST}"
    assert notification_sequence("osc9", "", "x") == f"{ESC}]9;x{ST}"
    with pytest.raises(ValueError):
        notification_sequence("bell", "t", "b")


def test_tmux_passthrough_doubles_inner_escapes() -> None:
    inner = notification_sequence("osc9", "octui", "done")
    assert tmux_passthrough(inner) == f"{ESC}Ptmux;{ESC}{ESC}]9;octui: done{ESC}{ESC}\\{ST}"


@pytest.mark.parametrize(("env", "method"), [
    ({"TERM": "xterm-kitty"}, "osc9"),
    ({"TERM": "tmux-256color", "TERM_PROGRAM": "tmux", "KITTY_WINDOW_ID": "3"}, "osc9"),
    ({"TERM_PROGRAM": "ghostty"}, "osc9"),
    ({"TERM": "xterm-ghostty"}, "osc9"),
    ({"TERM_PROGRAM": "iTerm.app"}, "osc9"),
    ({"LC_TERMINAL": "iTerm2", "TERM_PROGRAM": "tmux"}, "osc9"),
    ({"TERM_PROGRAM": "WezTerm"}, "osc777"),
    ({"WEZTERM_PANE": "0", "TERM_PROGRAM": "tmux"}, "osc777"),
    ({"TERM": "foot"}, "osc777"),
    ({"TERM": "foot-extra"}, "osc777"),
    ({"TERM": "rxvt-unicode-256color"}, "osc777"),
    ({"WT_SESSION": "x", "TERM": "xterm-256color"}, "osc777"),
    ({"TERM": "xterm-256color", "KONSOLE_VERSION": "240202"}, "bell"),
    ({"TERM": "xterm-256color", "VTE_VERSION": "7600"}, "bell"),
    ({"TERM_PROGRAM": "Apple_Terminal"}, "bell"),
    ({"TERM": "alacritty"}, "bell"),
    ({}, "bell"),
])
def test_auto_detection(env: dict[str, str], method: str) -> None:
    assert detect_method(env) == method


def test_terminal_signal_per_method_and_multiplexer() -> None:
    foot = {"TERM": "foot"}
    assert terminal_signal("auto", "octui", "done", foot) == f"{ESC}]777;notify;octui;done{ST}"
    assert terminal_signal("osc9", "octui", "done", foot) == f"{ESC}]9;octui: done{ST}"
    assert terminal_signal("bell", "octui", "done", foot) == "\a"
    assert terminal_signal("auto", "octui", "done", {"TERM": "xterm"}) == "\a"
    in_tmux = {"TMUX": "/tmp/tmux-0/default,1,0", "KITTY_WINDOW_ID": "1"}
    assert terminal_signal("auto", "octui", "done", in_tmux) == \
        tmux_passthrough(f"{ESC}]9;octui: done{ST}") + "\a"  # passthrough may be off: bell too
    assert terminal_signal("osc777", "octui", "done", {"STY": "1.pts"}) == "\a"  # GNU screen


def test_config_option(tmp_path: Path) -> None:
    assert METHODS == NOTIFY_METHODS  # storage.config cannot import app.notify (it pulls in the store)
    path = tmp_path / "config.toml"
    assert load_config(path).notify_method == "auto"
    path.write_text('notify_method = "osc9"\n')
    assert load_config(path).notify_method == "osc9"
    path.write_text('notify_method = "popup"\n')
    config = load_config(path)
    assert config.notify_method == "auto"
    assert config.warnings == ["notify_method: expected one of auto, osc777, osc9, bell"]
    save_config(Config(notify_method="osc777"), path)
    assert load_config(path).notify_method == "osc777"


class FakeDriver:
    """Stands in for Textual's driver: ``App.bell`` and ``write_terminal`` only call ``write``."""

    def __init__(self, headless: bool = False) -> None:
        self.is_headless = headless
        self.written: list[str] = []

    def write(self, data: str) -> None:
        self.written.append(data)


def test_alert_goes_through_the_driver_writer(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OCTUI_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("TERM", "foot")
    for name in ("TMUX", "STY", "KITTY_WINDOW_ID", "TERM_PROGRAM", "WEZTERM_PANE", "WT_SESSION",
                 "GHOSTTY_RESOURCES_DIR", "ITERM_SESSION_ID", "LC_TERMINAL"):
        monkeypatch.delenv(name, raising=False)
    app = MainApp()
    toasts: list[str] = []
    monkeypatch.setattr(app, "notify", lambda text, **_: toasts.append(text))
    app.write_terminal("\a")  # no driver yet: nothing to write to, no error
    driver = app._driver = FakeDriver()  # type: ignore[assignment]
    app._alert(Alert("turn", "ses_1", "Turn finished: a;b\x1b]0;x\x07"))
    assert driver.written == [f"{ESC}]777;notify;octui;Turn finished: a,b␛]0,x␇{ST}"]
    app.config.notify_method = "bell"
    app._alert(Alert("ask", "ses_1", "Needs your answer"))
    assert driver.written[-1] == "\a"
    assert toasts == ["Turn finished: a;b␛]0;x␇", "Needs your answer"]  # made visible, never markup
    quiet = app._driver = FakeDriver(headless=True)  # type: ignore[assignment]
    app.write_terminal("\a")
    assert quiet.written == []
    app._driver = None
