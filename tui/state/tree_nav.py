"""Moving around the subagent tree: parent, siblings, first child, breadcrumb, descendants."""

from __future__ import annotations

from tui.state.store import Store
from tui.state.tree import MAX_DEPTH, _Index, _info_parent, _title, build_tree


def parent_of(store: Store, session_id: str) -> str | None:
    """The parent session (``info.parentID``, else the session whose tool call spawned it).

    May name a session the store has not loaded yet (the app can fetch it); ``root_of`` and
    ``breadcrumb`` stop below such an unknown ancestor.
    """
    return _info_parent(store, session_id) or _Index(store).linking_parent(session_id)


def root_of(store: Store, session_id: str) -> str:
    """The topmost ancestor of ``session_id`` known to ``store`` (itself when it has none)."""
    return breadcrumb(store, session_id)[0][0]


def children_of(store: Store, session_id: str) -> list[str]:
    """Direct children of ``session_id``, ordered by creation."""
    return [child for child, _ in _Index(store).children(session_id) if child != session_id]


def siblings(store: Store, session_id: str) -> list[str]:
    """``session_id`` and its siblings, ordered by creation (just ``[session_id]`` for a root)."""
    parent = parent_of(store, session_id)
    if parent is None:
        return [session_id]
    kin = children_of(store, parent)
    return kin if session_id in kin else [*kin, session_id]


def next_sibling(store: Store, session_id: str, step: int = 1) -> str | None:
    """The sibling ``step`` places after (negative: before), wrapping around; ``None`` if alone."""
    kin = siblings(store, session_id)
    if len(kin) < 2:
        return None
    return kin[(kin.index(session_id) + step) % len(kin)]


def previous_sibling(store: Store, session_id: str) -> str | None:
    return next_sibling(store, session_id, -1)


def first_child(store: Store, session_id: str) -> str | None:
    kids = children_of(store, session_id)
    return kids[0] if kids else None


def breadcrumb(store: Store, session_id: str) -> list[tuple[str, str]]:
    """``[(sid, title), …]`` from the topmost known ancestor down to ``session_id``."""
    index = _Index(store)
    chain = [session_id]
    seen = {session_id}
    while len(chain) <= MAX_DEPTH:
        current = chain[-1]
        parent = _info_parent(store, current) or index.linking_parent(current)
        if parent is None or parent in seen or parent not in store.sessions:
            break
        seen.add(parent)
        chain.append(parent)
    chain.reverse()
    out: list[tuple[str, str]] = []
    for position, sid in enumerate(chain):
        link = None
        if position:
            link = next((lk for lk in index.links(chain[position - 1])
                         if lk.call.child_session_id == sid), None)
        out.append((sid, _title(store.sessions.get(sid), link, sid)))
    return out


def descendants(store: Store, session_id: str) -> list[str]:
    """Every session below ``session_id`` (not itself), parents before their children."""
    tree = build_tree(store, session_id)
    return [n.session_id for n in tree.walk() if n is not tree]
