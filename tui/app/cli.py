"""Command line: ``octui``, ``octui export``, ``octui --demo``.

Exit codes: 0 ok, 1 unexpected failure, 2 usage/config error, 3 server unreachable or failed
to start, 4 authentication failed, 5 not found.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import secrets
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from tui.app import exit_guard
from tui.app.version import version_line
from tui.demo.generation import GENERATIONS, DemoGeneration
from tui.session.connect import BinaryNotFound, Discovery, LocalServer, OpenCodeClient, discover, find_binary
from tui.session.errors import NotFound, OctuiError, Unauthorized
from tui.storage.bounded_read import FileRefused, human_bytes, read_bounded
from tui.storage.config import Config, ConfigError, Connection, load_config, resolve_connection, state_dir
from tui.storage.log_file import PrivateRotatingLog
from tui.text.sanitize import reveal

log = logging.getLogger("octui")
EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_UNREACHABLE, EXIT_AUTH, EXIT_NOT_FOUND = 0, 1, 2, 3, 4, 5


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked for (argparse's own takes the text up front)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str = "show the version and exit") -> None:  # noqa: A002
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(version_line())  # on stdout, as argparse's own does
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="octui", description="A terminal client for the OpenCode agent server.",
        epilog="With no --url, octui attaches to your OpenCode background service when one is registered "
               "and healthy (`opencode serve --service`), else it starts a private `opencode serve` on "
               "127.0.0.1 and stops it on exit (--standalone: always the private one). "
               "Password for --url: OPENCODE_SERVER_PASSWORD (user: OPENCODE_SERVER_USERNAME, "
               "default opencode).")
    parser.add_argument("--version", action=_VersionAction)
    parser.add_argument("--url", help="attach to a running server, e.g. http://127.0.0.1:4096")
    parser.add_argument("--password-file", metavar="PATH",
                        help="read the server password from this file (instead of OPENCODE_SERVER_PASSWORD)")
    parser.add_argument("--server", help="attach with a server profile from the config file")
    parser.add_argument("--session", metavar="ID", help="open this session at once")
    parser.add_argument("--continue", dest="continue_last", action="store_true",
                        help="open the most recent session")
    parser.add_argument("--dir", dest="directory", help="project directory (default: current)")
    parser.add_argument("--standalone", action="store_true",
                        help="start a private local server even when a background service is registered")
    parser.add_argument("--demo", action="store_true",
                        help="run against a built-in scripted server (no OpenCode needed)")
    parser.add_argument("--demo-generation", choices=GENERATIONS, default=DemoGeneration.V2.value,
                        metavar="{" + ",".join(GENERATIONS) + "}",
                        help="which server generation --demo speaks: v2 (the pinned spec, default) or "
                             "2.0-preview (as a recorded OpenCode 2.0 preview build answers)")
    sub = parser.add_subparsers(dest="command")
    export = sub.add_parser("export", help="print a session transcript and exit")
    export.add_argument("session_id")
    # SUPPRESS: a sub-parser default would overwrite a --url/--server given before "export".
    export.add_argument("--url", default=argparse.SUPPRESS)
    export.add_argument("--server", default=argparse.SUPPRESS)
    export.add_argument("--password-file", metavar="PATH", default=argparse.SUPPRESS)
    export.add_argument("--standalone", action="store_true", default=argparse.SUPPRESS)
    export.add_argument("--format", choices=["markdown", "json"], default="markdown")
    return parser


def _say(text: str) -> None:
    """One line on stderr (the user's terminal): errors and notices carry server and file text
    (an HTTP error body, a registry file's name), so their hidden characters are tokens, in
    strict mode as for file names (a tab is ``\\t``)."""
    print(f"octui: {reveal(text, strict=True)}", file=sys.stderr)


def _fail(text: str, code: int) -> int:
    _say(text)
    return code


def _code_for(exc: OctuiError) -> int:
    if isinstance(exc, Unauthorized):
        return EXIT_AUTH
    if isinstance(exc, NotFound):
        return EXIT_NOT_FOUND
    return EXIT_UNREACHABLE


def _log_to_file() -> None:
    """Warnings (bad frames, failed resyncs) go to ``octui.log`` in the state dir, never the screen."""
    root = logging.getLogger("octui")
    if root.handlers:
        return
    try:
        directory = state_dir()
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        # user-only, like every state file, the rotated ones too; repeated lines are counted
        handler = PrivateRotatingLog(directory / "octui.log", max_bytes=1_000_000, backups=2)
    except OSError:
        return
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    root.propagate = False


PASSWORD_FILE_MAX = 4096  # bytes: a password file holds one line
PASSWORD_PIPE_WAIT_S = 5.0  # a pipe (``--password-file <(pass show x)``) must deliver within this


def _read_password_file(path: str) -> str:
    """The password from a file, so it never shows in ``ps`` as an argument.

    The file holds the password, optionally followed by one newline (``\n`` or ``\r\n``), which
    is dropped; nothing else is stripped. Anything that is not such a file is a usage error with
    one clear line: missing, a directory, a device (checked before it is opened, so
    ``/dev/zero`` cannot exhaust memory), a pipe with no writer or one that does not finish
    within 5 s (a pipe that does, as ``<(pass show x)`` gives, is read), over 4 KB, empty, not
    UTF-8, or more than one line.
    """
    where = f"--password-file {path}"
    try:
        raw = read_bounded(os.path.expanduser(path), PASSWORD_FILE_MAX, pipe_wait=PASSWORD_PIPE_WAIT_S)
    except FileRefused as exc:
        if exc.size is not None:
            raise ConfigError(f"{where} is {human_bytes(exc.size)}; a password file holds one line "
                              f"(at most {human_bytes(PASSWORD_FILE_MAX)})") from None
        raise ConfigError(f"{where} {exc.reason}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {where}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where} is not UTF-8 text (byte {exc.start + 1} is invalid)") from None
    if text.endswith("\r\n"):
        text = text[:-2]
    elif text.endswith("\n"):
        text = text[:-1]
    if not text:
        raise ConfigError(f"{where} is empty; put the password in it")
    if "\n" in text or "\r" in text:
        raise ConfigError(f"{where} holds more than one line; put only the password in it")
    return text


def _warn_if_cleartext(url: str) -> None:
    """Basic auth over plain http to another machine sends the password in the clear: say so once."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    loopback = host in ("localhost", "::1") or host.startswith("127.")
    if parts.scheme == "http" and host and not loopback:
        print(f"octui: warning: {parts.scheme}://{host} is not encrypted; the password crosses the "
              "network in the clear (use https or an SSH tunnel)", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.demo_generation != DemoGeneration.V2.value and not args.demo:
        parser.error("--demo-generation needs --demo")
    _log_to_file()
    try:
        config = load_config()
        for warning in config.warnings:
            _say(f"config: {warning}")
        connection = resolve_connection(args.url, args.server, os.environ, config)
        if connection is not None and args.password_file:
            connection = connection._replace(password=_read_password_file(args.password_file))
    except ConfigError as exc:
        return _fail(str(exc), EXIT_USAGE)
    if connection is not None:
        _warn_if_cleartext(connection.url)
    directory = os.path.abspath(args.directory or os.getcwd())
    if args.command == "export":
        gc.enable()  # off for the start-up (tui/app/entry.py); only the app turns it on otherwise
        return _export(args, connection, directory)
    return _run_ui(args, connection, directory, config)


def _run_ui(args: argparse.Namespace, connection: Connection | None, directory: str,
            config: Config) -> int:
    # A server named on the command line is asked first (a wrong password or URL fails here, with
    # its exit code), in a thread while the UI's modules load: the first frame waits for neither
    # twice.
    probe = _Probe(connection) if connection is not None and not args.demo else None
    from tui.app.app import ConnectSpec, OctuiApp

    demo = None
    if args.demo:
        from tui.demo import DemoServer
        from tui.demo.ids import IdGenerator

        # Session ids of this run's own (settings and drafts are kept per session id).
        demo = DemoServer(directory=directory, generation=args.demo_generation,
                          ids=IdGenerator(run=secrets.token_hex(4)))
        spec = ConnectSpec(url=demo.base_url, transport=demo.transport, directory=directory,
                           session_id=args.session)
    elif connection is not None:
        url, username, password = connection
        failure = probe.result() if probe is not None else None
        if failure is not None:
            return _fail(str(failure), _code_for(failure))
        spec = ConnectSpec(url=url, username=username, password=password, directory=directory,
                           session_id=args.session, continue_last=args.continue_last)
    else:
        found = _find_service(args.standalone)
        if found.service is not None:
            service = found.service
            spec = ConnectSpec(url=service.url, username=service.username, password=service.password,
                               directory=directory, session_id=args.session,
                               continue_last=args.continue_last, origin="service",
                               notices=found.notices)
        else:
            try:
                find_binary()
            except BinaryNotFound as exc:
                for notice in found.notices:
                    _say(notice)
                return _fail(str(exc), EXIT_UNREACHABLE)
            spec = ConnectSpec(start_local=True, directory=directory, session_id=args.session,
                               continue_last=args.continue_last, origin="private",
                               notices=found.notices)
    app = OctuiApp(spec, demo=demo, config=config)
    app.exit_grace_s = exit_guard.EXIT_GRACE_S
    _stop_local_server_on_signals(app)
    exit_guard.remember_terminal()
    code = app.run()
    exit_guard.arm(exit_guard.EXIT_GRACE_S, lambda: int(code or app.return_code or 0))  # interpreter teardown
    if app.exit_message:
        return _fail(app.exit_message, code or EXIT_FAIL)
    if code is None:
        code = app.return_code or 0  # a crash inside the app sets a non-zero return code
    return int(code)


def _stop_local_server_on_signals(app: Any) -> None:
    """A closed terminal (SIGHUP) or a kill (SIGTERM) must not orphan the server we started."""

    def handler(signum: int, frame: object) -> None:
        if app.local is not None:
            app.local.stop_sync()
        # The terminal as it was: QA, after a `kill -TERM` the shell was left in the alternate
        # screen with mouse reporting on (each mouse move typed escape codes into it).
        exit_guard.restore_terminal()
        os._exit(128 + signum)

    for sig in (signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, handler)


def _find_service(standalone: bool) -> Discovery:
    """The user's registered background service (none with --standalone); the password stays
    inside the returned object: only the reasons a registration was skipped are logged."""
    if standalone:
        return Discovery()
    found = asyncio.run(discover())
    for reason in found.skipped:
        log.info("service registry: %s", reason)
    for notice in found.notices:
        log.warning("service registry: %s", notice)
    if found.service is not None:
        log.info("attached to the OpenCode service %s (%s)", found.service.url, found.service.label)
    return found


async def _probe(url: str, username: str, password: str | None) -> None:
    async with OpenCodeClient(url, username=username, password=password, timeout=5.0) as client:
        await client.connect()


class _Probe:
    """``_probe`` of one server in a thread of its own (its own event loop), started at once."""

    def __init__(self, connection: Connection) -> None:
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=connection, name="octui-probe", daemon=True)
        self._thread.start()

    def _run(self, url: str, username: str, password: str | None) -> None:
        try:
            asyncio.run(_probe(url, username, password))
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread, which raises the unexpected
            self._failure = exc

    def result(self) -> OctuiError | None:
        """The probe's failure (None: the server answered); waits for it (bounded by its timeouts)."""
        self._thread.join()
        if self._failure is not None and not isinstance(self._failure, OctuiError):
            raise self._failure
        return self._failure


def _export(args: argparse.Namespace, connection: Connection | None, directory: str) -> int:
    try:
        text = asyncio.run(_export_text(args.session_id, args.format, connection, directory,
                                        standalone=args.standalone))
    except OctuiError as exc:
        return _fail(str(exc), _code_for(exc))
    sys.stdout.write(text)
    return EXIT_OK


async def _export_text(session_id: str, fmt: str, connection: Connection | None,
                       directory: str, standalone: bool = False) -> str:
    from tui.export import export_json_text, export_markdown, fetch_session

    local: LocalServer | None = None
    password: str | None
    service = None
    if connection is None and not standalone:
        found = await discover()
        for notice in found.notices:
            _say(notice)  # said once, before anything else
        service = found.service
    if connection is not None:
        url, username, password = connection
    elif service is not None:
        url, username, password = service.url, service.username, service.password
    else:
        local = LocalServer()
        started = await local.start(cwd=directory)
        url, username, password = started.url, started.username, started.password
    try:
        async with OpenCodeClient(url, username=username, password=password) as client:
            if local is not None and local.startup_line:
                client.hint_startup_line(local.startup_line)
            await client.identify()
            state = await fetch_session(client, session_id)
    finally:
        if local is not None:
            await local.stop()
    if fmt == "json":
        return export_json_text(state)
    return export_markdown(state)


if __name__ == "__main__":
    raise SystemExit(main())
