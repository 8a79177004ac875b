"""Provides ``Hanging``: a prefix (a mark, a number) beside a body whose wrapped lines stay under
the body, not under the prefix (a hanging indent, which ``Content`` has no style for)."""

from __future__ import annotations

from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual


class Hanging(Visual):
    """``prefix`` on the first row, blanks of its width on the others; ``body`` wraps beside it."""

    def __init__(self, prefix: Content, body: Content) -> None:
        super().__init__()
        self.prefix = prefix
        self.body = body
        self.indent = prefix.cell_length

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.indent + self.body.get_optimal_width(rules, max(1, container_width - self.indent))

    def get_minimal_width(self, rules: RulesMap) -> int:
        return self.indent + self.body.get_minimal_width(rules)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return max(1, self.body.get_height(rules, max(1, width - self.indent)))

    def render_strips(self, width: int, height: int | None, style: Style,
                      options: RenderOptions) -> list[Strip]:
        indent = min(self.indent, max(0, width - 1))  # at least a column for the body
        rows = self.body.render_strips(width - indent, height, style, options) or [Strip.blank(0)]
        if not indent:
            return rows
        head = self.prefix.render_strips(indent, 1, style, options)
        rich_style = style.rich_style
        first = (head[0].crop(0, indent) if head else Strip.blank(0)).extend_cell_length(indent, rich_style)
        blank = Strip.blank(indent, rich_style)
        return [Strip.join([first if index == 0 else blank, row]) for index, row in enumerate(rows)]
