"""Provides the octui configuration: a TOML file and server profiles (state kept between runs:
``tui/storage/saved_state.py``).

Pure module: no Textual. The config file lives at
``platformdirs.user_config_dir("octui")/config.toml`` (override with ``OCTUI_CONFIG``); the state
directory (drafts, per-session settings, recent models) is ``platformdirs.user_state_dir("octui")``
(override with ``OCTUI_STATE_DIR``).

Example ``config.toml``::

    theme = "textual-dark"
    server = "work"               # default profile; omit to start a local server
    reasoning_collapsed = true
    notify = true
    notify_method = "auto"        # auto | osc777 | osc9 | bell (see tui/app/notify.py)
    prompt_history = true         # keep sent prompts for Ctrl+Up in later runs

    [servers.work]
    url = "https://opencode.example.com"
    username = "opencode"
    password_env = "WORK_OPENCODE_PASSWORD"   # name of an env var, not the password

    [keys]
    sessions = "ctrl+s"           # action -> key

    [tool_expand]
    bash = "error"                # tool kind -> bool or policy name
    read = false

Loading never raises: a missing, unreadable or invalid file yields defaults, and each problem is
reported once in ``Config.warnings``. Passwords are never written to logs or reprs.
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import platformdirs
import tomli_w

from tui.storage.bounded_read import FileRefused, read_bounded

__all__ = [
    "APP_NAME", "Config", "ConfigError", "Connection", "ServerProfile",
    "atomic_write", "config_path", "load_config", "resolve_connection", "save_config", "state_dir",
]

APP_NAME = "octui"
DEFAULT_USERNAME = "opencode"
ENV_CONFIG = "OCTUI_CONFIG"
ENV_STATE_DIR = "OCTUI_STATE_DIR"
ENV_PASSWORD = "OPENCODE_SERVER_PASSWORD"
ENV_USERNAME = "OPENCODE_SERVER_USERNAME"
CONFIG_MAX_BYTES = 1024 * 1024  # a config file is a few hundred bytes; this is no config file
NOTIFY_METHODS = ("auto", "osc777", "osc9", "bell")  # kept in step with tui.app.notify.METHODS


class ConfigError(ValueError):
    """A configuration problem the user must fix (e.g. ``--server`` names no profile)."""


@dataclass
class ServerProfile:
    """A named OpenCode server to attach to."""

    url: str
    """Base URL, e.g. ``http://127.0.0.1:4096`` (no trailing slash)."""
    username: str = DEFAULT_USERNAME
    """Basic-auth user name."""
    password_env: str | None = None
    """Name of an environment variable holding the password (preferred)."""
    password: str | None = field(default=None, repr=False)
    """Plain-text password. Allowed but discouraged; never shown in reprs."""


@dataclass
class Config:
    """Everything in ``config.toml``; every field has a working default."""

    theme: str = "textual-dark"
    """Textual theme name."""
    server: str | None = None
    """Default server profile name; ``None`` starts a local server."""
    servers: dict[str, ServerProfile] = field(default_factory=dict)
    """Server profiles by name."""
    keys: dict[str, str] = field(default_factory=dict)
    """Key overrides: action name -> key (Textual key syntax, comma-separated for several)."""
    tool_expand: dict[str, bool | str] = field(default_factory=dict)
    """Per tool kind default expansion: ``true``/``false`` or a policy name such as ``"error"``."""
    reasoning_collapsed: bool = True
    """Show reasoning blocks collapsed by default."""
    notify: bool = True
    """Send terminal notifications when a session needs attention."""
    notify_method: str = "auto"
    """How: ``osc777``/``osc9`` desktop notifications, the ``bell``, or ``auto`` (by terminal)."""
    prompt_history: bool = True
    """Keep sent prompts in the state dir, for Ctrl+Up in later runs."""
    warnings: list[str] = field(default_factory=list, compare=False)
    """Problems met while loading (not saved)."""


class Connection(NamedTuple):
    """Where to connect: ``(url, username, password)``. The repr hides the password."""

    url: str
    username: str
    password: str | None

    def __repr__(self) -> str:
        secret = "None" if self.password is None else "'***'"
        return f"Connection(url={self.url!r}, username={self.username!r}, password={secret})"


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """The config file path: ``$OCTUI_CONFIG`` or the platform config dir."""
    env = os.environ if env is None else env
    override = env.get(ENV_CONFIG)
    if override:
        return Path(override).expanduser()
    return platformdirs.user_config_path(APP_NAME) / "config.toml"


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """The state directory: ``$OCTUI_STATE_DIR`` or the platform state dir."""
    env = os.environ if env is None else env
    override = env.get(ENV_STATE_DIR)
    if override:
        return Path(override).expanduser()
    return platformdirs.user_state_path(APP_NAME)



def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Read the config file. Never raises; problems land in ``Config.warnings``.

    Args:
        path: File to read; defaults to ``config_path()``. A missing file is not a problem.
    """
    target = Path(path) if path is not None else config_path()
    config = Config()
    try:
        raw = read_bounded(target, CONFIG_MAX_BYTES)  # a FIFO or a device must not hang start-up
    except FileNotFoundError:
        return config
    except FileRefused as error:
        config.warnings.append(f"{target}: not read, it {error}; using defaults")
        return config
    except OSError as error:
        config.warnings.append(f"{target}: cannot read ({error.strerror or error})")
        return config
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        config.warnings.append(f"{target}: not UTF-8 text; using defaults")
        return config
    except tomllib.TOMLDecodeError as error:
        config.warnings.append(f"{target}: invalid TOML ({error}); using defaults")
        return config
    _apply(config, data, config.warnings)
    return config


def _apply(config: Config, data: dict[str, Any], warnings: list[str]) -> None:
    """Copy valid values from parsed TOML into ``config``; warn about the rest."""
    for key, value in data.items():
        if key in ("theme", "server"):
            if isinstance(value, str) and value:
                setattr(config, key, value)
            else:
                warnings.append(f"{key}: expected a non-empty string")
        elif key in ("reasoning_collapsed", "notify", "prompt_history"):
            if isinstance(value, bool):
                setattr(config, key, value)
            else:
                warnings.append(f"{key}: expected true or false")
        elif key == "notify_method":
            if value in NOTIFY_METHODS:
                config.notify_method = value
            else:
                warnings.append(f"notify_method: expected one of {', '.join(NOTIFY_METHODS)}")
        elif key == "servers":
            config.servers = _servers(value, warnings)
        elif key == "keys":
            config.keys = _keys(value, warnings)
        elif key == "tool_expand":
            config.tool_expand = _tool_expand(value, warnings)
        else:
            warnings.append(f"{key}: unknown setting (ignored)")
    if config.server is not None and config.server not in config.servers:
        warnings.append(f"server: no profile named {config.server!r}; starting a local server")
        config.server = None


def _servers(value: Any, warnings: list[str]) -> dict[str, ServerProfile]:
    profiles: dict[str, ServerProfile] = {}
    for name, table in _table("servers", value, warnings).items():
        where = f"servers.{name}"
        url = table.get("url") if isinstance(table, dict) else None
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            warnings.append(f"{where}.url: expected an http:// or https:// URL; profile ignored")
            continue
        profile = profiles[name] = ServerProfile(url=url.rstrip("/"))
        for key, raw in table.items():
            if key not in ("url", "username", "password_env", "password"):
                warnings.append(f"{where}.{key}: unknown setting (ignored)")
            elif key != "url" and isinstance(raw, str) and raw:
                setattr(profile, key, raw)
            elif key != "url":
                warnings.append(f"{where}.{key}: expected a non-empty string")
    return profiles


def _keys(value: Any, warnings: list[str]) -> dict[str, str]:
    result: dict[str, str] = {}
    for key, raw in _table("keys", value, warnings).items():
        if isinstance(raw, str) and raw:
            result[key] = raw
        else:
            warnings.append(f"keys.{key}: expected a non-empty string")
    return result


def _tool_expand(value: Any, warnings: list[str]) -> dict[str, bool | str]:
    result: dict[str, bool | str] = {}
    for key, raw in _table("tool_expand", value, warnings).items():
        if isinstance(raw, bool) or (isinstance(raw, str) and raw):
            result[key] = raw if isinstance(raw, bool) else raw.lower()
        else:
            warnings.append(f"tool_expand.{key}: expected true, false or a policy name")
    return result


def _table(where: str, value: Any, warnings: list[str]) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    warnings.append(f"{where}: expected a table")
    return {}



def save_config(config: Config, path: str | os.PathLike[str] | None = None) -> Path:
    """Write ``config`` atomically (temp file + ``os.replace``), mode 0600. Returns the path."""
    target = Path(path) if path is not None else config_path()
    data: dict[str, Any] = {
        "theme": config.theme,
        "reasoning_collapsed": config.reasoning_collapsed,
        "notify": config.notify,
        "notify_method": config.notify_method,
        "prompt_history": config.prompt_history,
    }
    if config.server is not None:
        data["server"] = config.server
    if config.servers:
        data["servers"] = {
            name: {k: v for k, v in vars(profile).items() if v is not None}
            for name, profile in config.servers.items()
        }
    if config.keys:
        data["keys"] = dict(config.keys)
    if config.tool_expand:
        data["tool_expand"] = dict(config.tool_expand)
    atomic_write(target, tomli_w.dumps(data).encode("utf-8"))
    return target


def atomic_write(target: Path, payload: bytes) -> None:
    """Write ``payload`` to ``target`` so readers see the old or the new file, never half."""
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)  # user-only, like the files
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise



def resolve_connection(
    args_url: str | None,
    args_server: str | None,
    env: Mapping[str, str],
    config: Config | None = None,
) -> Connection | None:
    """Decide which server to attach to.

    Precedence: ``--url`` (credentials from ``OPENCODE_SERVER_USERNAME`` /
    ``OPENCODE_SERVER_PASSWORD``); ``--server NAME`` (a profile); the config's default profile;
    otherwise ``None``, meaning "start a local server". A profile's password comes from its
    ``password_env`` variable, else its ``password``; the generic env password is never sent to
    a profile's server unless the profile names it in ``password_env``.

    Raises:
        ConfigError: ``--server`` names no profile.
    """
    if args_url:
        username = env.get(ENV_USERNAME) or DEFAULT_USERNAME
        return Connection(args_url.rstrip("/"), username, env.get(ENV_PASSWORD) or None)
    if config is None:
        config = load_config(config_path(env))
    name = args_server or config.server
    if not name:
        return None
    profile = config.servers.get(name)
    if profile is None:
        known = ", ".join(sorted(config.servers)) or "none"
        raise ConfigError(f"no server profile named {name!r} (known: {known})")
    password = env.get(profile.password_env) if profile.password_env else None
    return Connection(profile.url, profile.username, password or profile.password)
