"""Open a 5,000-message session (``history_fixture``) in the headless app (120x40).

    python -m bench.long_session [--messages 5000]

Figures: seconds from launch to the first paint of the session (the newest prompt on screen),
messages kept in the store and mounted, mounted widget count, RSS, seconds to scroll to the top
of the mounted window and back to the bottom, seconds to page one older page in.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from bench.common import emit, ensure_repo_on_path, peak_rss_mb, rss_mb

ensure_repo_on_path()

TIMEOUT_S = 60.0

def screen_text(app: Any) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())

async def run(count: int) -> dict[str, Any]:
    from tui.app import ConnectSpec, OctuiApp
    from tui.demo import DemoServer, history_fixture
    from widgets.transcript import Transcript

    history = history_fixture(count)
    last_prompt = next(m["text"] for m in reversed(history) if m["type"] == "user")
    server = DemoServer(speed=0, heartbeat=0)
    info = server.seed_session("bench long session", history)
    app = OctuiApp(ConnectSpec(url=server.base_url, transport=server.transport, session_id=info["id"]))
    figures: dict[str, Any] = {"benchmark": "long_session", "messages": count}
    rss_before = rss_mb()
    try:
        start = time.perf_counter()
        async with app.run_test(size=(120, 40)) as pilot:
            painted = False
            while time.perf_counter() - start < TIMEOUT_S:  # bounded
                if last_prompt in screen_text(app):
                    painted = True
                    break
                await asyncio.sleep(0.005)
            first_paint = time.perf_counter() - start
            await pilot.pause()
            transcript = app.screen.query_one(Transcript)
            state = transcript.state
            widgets = sum(1 for _ in app.screen.walk_children(with_self=True))
            t0 = time.perf_counter()
            transcript.scroll_home(animate=False, immediate=True)
            await pilot.pause()
            screen_text(app)
            transcript.scroll_end(animate=False, immediate=True)
            await pilot.pause()
            screen_text(app)
            scroll_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            transcript.page_older()
            await pilot.pause()
            screen_text(app)
            page_s = time.perf_counter() - t0
            figures.update({
                "first_paint_s": first_paint,
                "painted": painted,
                "messages_in_store": len(state.messages) if state else 0,
                "messages_mounted": transcript.mounted_messages - 0,
                "mounted_widgets": widgets,
                "rss_mb": rss_mb(),
                "rss_growth_mb": rss_mb() - rss_before,
                "peak_rss_mb": peak_rss_mb(),
                "scroll_top_and_back_s": scroll_s,
                "page_older_s": page_s,
                "mounted_widgets_after_page": sum(1 for _ in app.screen.walk_children(with_self=True)),
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
    emit(asyncio.run(run(args.messages)))

if __name__ == "__main__":
    main()
