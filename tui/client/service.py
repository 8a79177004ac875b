"""Find the user's OpenCode background service, the way OpenCode 2.x clients do.

``opencode serve --service`` registers itself in a file in the user's state directory,
``$XDG_STATE_HOME/opencode/`` (default ``~/.local/state/opencode/``), written user-only (0600):
``{id, version, url, pid, password}``. Release builds (channels latest/next) write
``service.json``; other channels write ``service-<channel>.json`` (``service-local.json`` for a
source build). A registration counts only when the server it names answers ``GET /api/health``
(Basic auth, user ``opencode``) with ``healthy: true`` and the same ``pid`` (and ``version``, when
the file has one): a stale file left by a dead or replaced service is skipped.

Files looked at, in this order, first healthy one wins:

1. ``service.json`` (release channels);
2. ``service-local.json`` (a source build);
3. any other ``service-*.json`` there, newest first (other channels), at most ``MAX_OTHER_FILES``.

A file that is not a regular file owned by this user, or that others may read or write (any mode
bit beyond 0600), is refused with the reason; it is never read. Reads are bounded
(``MAX_FILE_BYTES``), each health check has a short timeout, and the password is never printed,
logged, put in a URL or in an exception.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from tui.client.core import tls_context_for

USERNAME = "opencode"
PRIMARY_FILE = "service.json"
SOURCE_BUILD_FILE = "service-local.json"
MAX_OTHER_FILES = 8
MAX_FILE_BYTES = 64 * 1024
HEALTH_TIMEOUT_S = 2.0  # OpenCode's own clients give a registered service 2 s to answer


@dataclass(frozen=True)
class Registration:
    """One registration file's content; the password never shows in ``repr``."""

    path: Path
    url: str
    pid: int
    version: str | None = None
    id: str | None = None
    password: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Service:
    """A healthy registered service octui may attach to."""

    registration: Registration
    version: str

    @property
    def url(self) -> str:
        return self.registration.url

    @property
    def username(self) -> str:
        return USERNAME

    @property
    def password(self) -> str | None:
        return self.registration.password

    @property
    def label(self) -> str:
        """For the status line: which file it came from (no secret)."""
        return self.registration.path.name


@dataclass
class Discovery:
    """What discovery found: the service to attach to (or None), and what the user must be told."""

    service: Service | None = None
    notices: list[str] = field(default_factory=list)  # refusals, each said once
    skipped: list[str] = field(default_factory=list)  # why a registration was not used (log only)


class Refused(Exception):
    """A registration file octui will not use; the message says why (never its content)."""


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME", "").strip()
    if base and os.path.isabs(base):  # a relative XDG_STATE_HOME is invalid and ignored (XDG spec)
        return Path(base) / "opencode"
    return Path(env.get("HOME") or Path.home()) / ".local" / "state" / "opencode"


def candidate_files(env: Mapping[str, str] | None = None) -> list[Path]:
    """The registration files to look at, in order (see the module docstring)."""
    directory = state_dir(env)
    first = [directory / PRIMARY_FILE, directory / SOURCE_BUILD_FILE]
    others: list[tuple[float, Path]] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            name = entry.name
            if not (name.startswith("service-") and name.endswith(".json")) or name == SOURCE_BUILD_FILE:
                continue
            with contextlib.suppress(OSError):
                others.append((entry.stat(follow_symlinks=False).st_mtime, Path(entry.path)))
    others.sort(key=lambda item: (-item[0], item[1].name))
    return first + [path for _, path in others[:MAX_OTHER_FILES]]


def read_registration(path: Path) -> Registration | None:
    """The file's registration; None when it does not exist. Raises ``Refused`` with the reason."""
    # No following a symlink, no blocking on a FIFO planted there.
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if os.path.islink(path):
            raise Refused(f"{path} is a symbolic link, not the file the service wrote") from None
        raise Refused(f"cannot open {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)  # of the file opened, not of whatever the path names by now
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"{path} is not a regular file")
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            raise Refused(f"{path} belongs to uid {info.st_uid}, not to you")
        mode = stat.S_IMODE(info.st_mode)
        if mode & 0o077:
            raise Refused(f"{path} has mode {mode:04o}; a registry holding a password must be 0600 "
                          f"(fix: chmod 600 {path})")
        if info.st_size > MAX_FILE_BYTES:
            raise Refused(f"{path} is {info.st_size} bytes, too large for a service registration")
        raw = os.read(fd, MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(raw) > MAX_FILE_BYTES:
        raise Refused(f"{path} is too large for a service registration")
    return _parse(path, raw)


def _parse(path: Path, raw: bytes) -> Registration:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Refused(f"{path} is not valid JSON") from None  # never quote it: it holds a password
    if not isinstance(data, dict):
        raise Refused(f"{path} does not hold a JSON object")
    url, pid = data.get("url"), data.get("pid")
    if not isinstance(url, str) or not _usable_url(url):
        raise Refused(f"{path} has no usable http(s) url")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        raise Refused(f"{path} has no valid pid")
    password = data.get("password")
    version, ident = data.get("version"), data.get("id")
    return Registration(
        path=path, url=url.rstrip("/"), pid=pid,
        version=version if isinstance(version, str) else None,
        id=ident if isinstance(ident, str) else None,
        password=password if isinstance(password, str) else None,
    )


def _usable_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return False
    # Credentials in the URL would end up in logs and error texts: the password has its own field.
    return parts.scheme in ("http", "https") and bool(parts.hostname) and not parts.username


def _process_gone(pid: int) -> bool:
    """True when no process has this pid (the registration is stale); unsure counts as alive."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):
        return False
    return False


async def check_health(
    registration: Registration,
    *,
    timeout: float = HEALTH_TIMEOUT_S,
    transport: httpx.AsyncBaseTransport | None = None,
) -> tuple[str | None, str]:
    """(version, "") when the registered server is healthy and is the process the file names,
    else (None, why not). Bounded by ``timeout``; the reason never holds the password."""
    auth = (USERNAME, registration.password) if registration.password is not None else None
    try:
        async with httpx.AsyncClient(auth=auth, timeout=timeout, transport=transport, follow_redirects=False,
                                     trust_env=False, verify=tls_context_for(registration.url)) as http:
            response = await asyncio.wait_for(http.get(f"{registration.url}/api/health"), timeout + 0.5)
    except (httpx.HTTPError, TimeoutError, OSError) as exc:
        return None, f"no answer from {registration.url} ({type(exc).__name__})"
    if response.status_code != 200:
        return None, f"{registration.url}/api/health answered HTTP {response.status_code}"
    try:
        body: Any = response.json()
    except ValueError:
        return None, f"{registration.url}/api/health did not answer JSON"
    if not isinstance(body, dict) or body.get("healthy") is not True:
        return None, f"{registration.url} is not healthy"
    if body.get("pid") != registration.pid:
        return None, f"{registration.url} is a different process than the one registered (stale file)"
    version = body.get("version")
    if not isinstance(version, str):
        return None, f"{registration.url}/api/health has no version"
    if registration.version is not None and version != registration.version:
        return None, f"{registration.url} runs version {version}, the file names {registration.version}"
    return version, ""


async def discover(
    env: Mapping[str, str] | None = None,
    *,
    files: Sequence[Path] | None = None,
    timeout: float = HEALTH_TIMEOUT_S,
    transport: httpx.AsyncBaseTransport | None = None,
) -> Discovery:
    """The first healthy registered service, in the order of :func:`candidate_files`."""
    result = Discovery()
    for path in (candidate_files(env) if files is None else files):
        try:
            registration = read_registration(path)
        except Refused as exc:
            result.notices.append(f"not using the OpenCode service registry: {exc}")
            continue
        if registration is None:
            continue
        if _process_gone(registration.pid):
            result.skipped.append(f"{path.name}: process {registration.pid} is gone (stale file)")
            continue
        version, why = await check_health(registration, timeout=timeout, transport=transport)
        if version is None:
            result.skipped.append(f"{path.name}: {why}")
            continue
        result.service = Service(registration, version)
        return result
    return result


__all__ = [
    "HEALTH_TIMEOUT_S",
    "Discovery",
    "Refused",
    "Registration",
    "Service",
    "candidate_files",
    "check_health",
    "discover",
    "read_registration",
    "state_dir",
]
