"""The main screen's local attachments: ``/attach PATH``, pasted image paths, the chip row.

Files are read here (in a thread, ``tui.session.attachments``), kept in ``attachments`` and shown by the
``AttachmentBar`` above the composer until the next prompt takes them (``AssistedScreen.deliver``)
or the user removes a chip. Relative paths are relative to octui's working directory, not the
server's project directory: the file is on this machine and goes inline as a ``data:`` URL.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from textual import on, work
from textual.screen import Screen

from tui.session.attachments import (
    AttachmentError,
    LocalAttachment,
    human_size,
    parse_attach,
    read_attachment,
)
from widgets.composer.attachment_bar import AttachmentBar
from widgets.composer.attachment_chip import AttachmentChip
from widgets.composer.composer import Composer
from widgets.plain import toast

if TYPE_CHECKING:
    from tui.app.app import OctuiApp

__all__ = ["AttachmentActions"]

ATTACH_USAGE = "Type a path after /attach (Tab completes it), or paste the path of an image."


class AttachmentActions(Screen[None]):
    """Mixed into ``MainScreen`` (through ``AssistedScreen``); expects an ``AttachmentBar``."""

    attach_base: str | None = None
    """Directory relative paths start from (default: the current working directory)."""
    _attached: list[LocalAttachment] | None = None

    if TYPE_CHECKING:
        @property
        def octui(self) -> OctuiApp: ...

    @property
    def attachments(self) -> list[LocalAttachment]:
        """Files attached to the next prompt, in the order they were added."""
        if self._attached is None:
            self._attached = []
        return self._attached

    def attachment_base(self) -> str:
        return self.attach_base or os.getcwd()

    def attach_command(self, text: str) -> bool:
        """Handle a draft whose first line is ``/attach [PATH]``; ``True`` when it was one.

        The rest of the draft stays in the composer; on failure the whole draft does.
        """
        parsed = parse_attach(text)
        if parsed is None:
            return False
        path, rest = parsed
        if not path:
            toast(self, ATTACH_USAGE, timeout=5)
            return True
        self._read_attachment(path, rest=rest)
        return True

    @on(Composer.AttachRequested)
    def _attach_pasted(self, event: Composer.AttachRequested) -> None:
        event.stop()
        self._read_attachment(event.path, pasted=event.text)

    @work(group="attach", exit_on_error=False)
    async def _read_attachment(self, raw: str, *, rest: str | None = None, pasted: str | None = None) -> None:
        composer = self.query_one(Composer)
        try:
            item = await asyncio.to_thread(read_attachment, raw, self.attachment_base())
        except AttachmentError as exc:
            toast(self, f"Not attached: {exc}", severity="error", timeout=6)
            if pasted is not None:  # the paste was text after all: insert it as typed
                composer.insert(pasted)
            return
        if any(a.path == item.path for a in self.attachments):
            toast(self, f"{item.name} is already attached.", timeout=3)
        else:
            self.attachments.append(item)
            self.show_attachments()
        if rest is not None and parse_attach(composer.text) is not None:
            composer.text = rest
            composer.move_cursor(composer.document.end)

    def show_attachments(self) -> None:
        self.query_one(AttachmentBar).show(
            [(a.path, a.name, f"{a.kind} · {human_size(a.size)}") for a in self.attachments])

    def forget_attachments(self, sent: list[LocalAttachment]) -> None:
        """Drop what a delivered prompt carried (files attached meanwhile stay)."""
        self._attached = [a for a in self.attachments if not any(a is b for b in sent)]
        self.show_attachments()

    @on(AttachmentChip.Remove)
    def _remove_chip(self, event: AttachmentChip.Remove) -> None:
        event.stop()
        self._attached = [a for a in self.attachments if a.path != event.key]
        self.show_attachments()
        self.query_one(Composer).focus()

    def action_detach_all(self) -> None:
        if not self.attachments:
            toast(self, "Nothing is attached.", timeout=3)
            return
        self._attached = []
        self.show_attachments()
