"""Open a 5,000-message session (``history_fixture``) in the headless app (120x40).

    python -m bench.long_session [--messages 5000]

Figures: seconds (wall and CPU of this process, which also runs the in-process demo server) from
launch to the first paint of the session (the newest prompt on screen), mounted widget count and
RSS then; seconds until the background has fetched the older history it keeps (``BACKGROUND_MAX``
in ``tui/session/history_pager.py``) and the messages then in the store; one older page mounted and
painted, then a second one; Home (the session's very first prompt on screen, fetching the rest of
the history on demand) and End (back to the newest prompt). The fixture and the demo server are
garbage-collected and frozen before the clock starts, so their collection is not charged to the app.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from collections.abc import Callable
from typing import Any

from bench.common import emit, ensure_repo_on_path, peak_rss_mb, private_user_dirs, rss_mb

ensure_repo_on_path()

TIMEOUT_S = 60.0


def screen_text(app: Any) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def wait_for(condition: Callable[[], bool], poll_s: float = 0.005) -> bool:
    """Poll ``condition`` (bounded by ``TIMEOUT_S``); False on time-out."""
    deadline = time.perf_counter() + TIMEOUT_S
    while time.perf_counter() < deadline:
        if condition():
            return True
        await asyncio.sleep(poll_s)
    return False


async def run(count: int) -> dict[str, Any]:
    from tui.app.app import ConnectSpec, OctuiApp
    from tui.demo import DemoServer, history_fixture
    from widgets.transcript.transcript import Transcript

    history = history_fixture(count)
    first_prompt = next(m["text"] for m in history if m["type"] == "user")
    last_prompt = next(m["text"] for m in reversed(history) if m["type"] == "user")
    server = DemoServer(speed=0, heartbeat=0)
    info = server.seed_session("bench long session", history)
    app = OctuiApp(ConnectSpec(url=server.base_url, transport=server.transport, session_id=info["id"]))
    figures: dict[str, Any] = {"benchmark": "long_session", "messages": count}
    rss_before = rss_mb()
    # The fixture and the in-process server are scaffolding, not app work: collect and freeze them now
    # so a full collection of their objects does not land inside the timed first paint.
    gc.collect()
    gc.freeze()

    def transcript() -> Transcript | None:
        found = app.screen.query(Transcript)
        return found.first() if found else None

    def shows(text: str) -> Callable[[], bool]:
        def check() -> bool:
            view = transcript()  # cheap gate: no full-screen render until messages are mounted
            return view is not None and view.mounted_messages > 0 and text in screen_text(app)
        return check

    try:
        start, cpu_start = time.perf_counter(), time.process_time()
        async with app.run_test(size=(120, 40)) as pilot:
            painted = await wait_for(shows(last_prompt))
            first_paint = time.perf_counter() - start
            first_paint_cpu = time.process_time() - cpu_start
            widgets = sum(1 for _ in app.screen.walk_children(with_self=True))
            rss_at_paint = rss_mb()
            view = transcript()
            assert view is not None and view.state is not None and app.session.is_ready
            state, pager = view.state, app.session.history

            await wait_for(lambda: not pager.loading(info["id"]), poll_s=0.02)
            history_s = time.perf_counter() - start
            in_store = len(state.messages)
            await pilot.pause()

            t0 = time.perf_counter()
            view.page_older()
            await pilot.pause()
            screen_text(app)
            page_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            view.page_older()  # the first diff view paid pygments' one-time lexer loading above
            await pilot.pause()
            screen_text(app)
            page_again_s = time.perf_counter() - t0
            widgets_after_page = sum(1 for _ in app.screen.walk_children(with_self=True))

            t0 = time.perf_counter()
            view.action_scroll_home()
            home_ok = await wait_for(shows(first_prompt), poll_s=0.01)
            home_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            view.action_scroll_end()
            end_ok = await wait_for(shows(last_prompt), poll_s=0.01)
            end_s = time.perf_counter() - t0
            figures.update({
                "first_paint_s": first_paint,
                "first_paint_cpu_s": first_paint_cpu,
                "painted": painted,
                "mounted_widgets": widgets,
                "messages_mounted": view.mounted_messages,
                "rss_mb": rss_at_paint,
                "history_kept_s": history_s,
                "messages_in_store": in_store,
                "page_older_s": page_s,
                "page_older_again_s": page_again_s,
                "mounted_widgets_after_page": widgets_after_page,
                "home_s": home_s,
                "home_ok": home_ok,
                "messages_in_store_after_home": len(state.messages),
                "end_s": end_s,
                "end_ok": end_ok,
                "rss_end_mb": rss_mb(),
                "rss_growth_mb": rss_mb() - rss_before,
                "peak_rss_mb": peak_rss_mb(),
            })
            await app.action_quit()
    finally:
        await server.aclose()
    figures["budgets"] = {"first_paint_s": 0.5, "mounted_widgets": 400, "rss_mb": 250}
    figures["ok"] = (figures.get("first_paint_s", 1e9) <= 0.5 and figures.get("mounted_widgets", 1e9) <= 400
                     and figures.get("rss_mb", 1e9) <= 250)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=5000)
    args = parser.parse_args()
    with private_user_dirs():  # the user's drafts and settings neither read nor written
        emit(asyncio.run(run(args.messages)))


if __name__ == "__main__":
    main()
