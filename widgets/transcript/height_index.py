"""Line offsets of a growing list of blocks whose heights change: a Fenwick (binary indexed) tree.

A long answer is thousands of pieces. Finding the piece under a screen line, the line a piece
starts at, or changing one piece's height (once it is rendered, or re-estimated) must not walk
all of them every frame: each of these is O(log n) here, and the total is O(1).
"""

from __future__ import annotations


class HeightIndex:
    """Heights of blocks 0..n-1; prefix sums and line lookups in O(log n)."""

    def __init__(self, heights: list[int] | None = None) -> None:
        self._values: list[int] = []
        self._tree: list[int] = [0]  # 1-based: _tree[k] sums values (k - lowbit(k), k]
        self.total = 0
        for height in heights or ():
            self.append(height)

    def __len__(self) -> int:
        return len(self._values)

    def __getitem__(self, index: int) -> int:
        return self._values[index]

    def append(self, height: int) -> None:
        self._values.append(height)
        k = len(self._values)
        total, child, stop = height, k - 1, k - (k & -k)
        while child > stop:
            total += self._tree[child]
            child -= child & -child
        self._tree.append(total)
        self.total += height

    def pop(self) -> int:
        """Remove the last block (no other tree node covers it) and return its height."""
        self._tree.pop()
        height = self._values.pop()
        self.total -= height
        return height

    def set(self, index: int, height: int) -> None:
        delta = height - self._values[index]
        if not delta:
            return
        self._values[index] = height
        self.total += delta
        k = index + 1
        while k < len(self._tree):
            self._tree[k] += delta
            k += k & -k

    def start(self, index: int) -> int:
        """First line of block ``index`` (the sum of the heights before it)."""
        total, k = 0, index
        while k > 0:
            total += self._tree[k]
            k -= k & -k
        return total

    def find(self, line: int) -> tuple[int, int]:
        """(block, line within it) for ``line``; block == len(self) past the end."""
        if line < 0:
            return 0, line
        position, remaining = 0, line
        step = 1 << (len(self._values).bit_length())
        while step:
            upper = position + step
            if upper < len(self._tree) and self._tree[upper] <= remaining:
                position = upper
                remaining -= self._tree[upper]
            step >>= 1
        return position, remaining
