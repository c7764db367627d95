"""Markdown documents read by the request and spec checks, split into sections by heading.

Parsing is markdown-it-py's (CommonMark), so headings inside fenced code blocks, setext
headings and list items are read as a Markdown reader would. A section runs from its heading
to the next heading of the same or a higher level; its text and its list items are kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from phasegate.gates.protocol import CheckError, Measurement
from phasegate.model.gate import Finding
from phasegate.optional import require

if TYPE_CHECKING:
    from markdown_it.token import Token

__all__ = ["Section", "document_measurement", "expand", "find_section", "read_sections"]

_SPACES = re.compile(r"\s+")


@dataclass
class Section:
    """One heading and what is under it."""

    title: str
    line: int
    level: int
    text: str = ""
    items: list[str] = field(default_factory=list)


def read_sections(path: Path) -> list[Section]:
    """Every section of a Markdown file, in order."""
    module = require("markdown_it", what="the request and spec checks", package="markdown-it-py",
                     extra="gate")  # fmt: skip
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CheckError(f"{path} cannot be read: {exc}") from exc
    tokens = module.MarkdownIt("commonmark").parse(text)
    walk = _SectionWalk()
    for index in range(len(tokens)):
        walk.take(tokens, index)
    return walk.finished()


class _SectionWalk:
    """The sections met so far, and those a piece of text belongs to (the headings above it)."""

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.open_sections: list[Section] = []
        self.in_item = 0

    def take(self, tokens: Sequence[Token], index: int) -> None:
        """Walk past ``tokens[index]``: a heading, a list item opened or closed, or text (the
        text of a heading is its title, not text under it)."""
        token = tokens[index]
        if token.type == "heading_open":
            line = (token.map[0] + 1) if token.map else 0
            self.heading(tokens[index + 1].content.strip(), line, int(token.tag[1:]))
        elif token.type == "list_item_open":
            self.open_item()
        elif token.type == "list_item_close":
            self.in_item -= 1
        elif token.type == "inline" and index and tokens[index - 1].type != "heading_open":
            self.inline(token.content)

    def heading(self, title: str, line: int, level: int) -> None:
        section = Section(title, line, level)
        self.open_sections = [s for s in self.open_sections if s.level < level] + [section]
        self.sections.append(section)

    def open_item(self) -> None:
        self.in_item += 1
        if self.in_item == 1:
            for section in self.open_sections:
                section.items.append("")

    def inline(self, content: str) -> None:
        for section in self.open_sections:
            section.text = f"{section.text} {content}".strip()
            if self.in_item and section.items:
                section.items[-1] = f"{section.items[-1]} {content}".strip()

    def finished(self) -> list[Section]:
        for section in self.sections:
            section.items = [item for item in section.items if item]
        return self.sections


def find_section(sections: Sequence[Section], names: Sequence[str]) -> Section | None:
    """The first section whose title is one of ``names`` (any case, spacing and ':')."""
    wanted = {_normal(name) for name in names}
    for section in sections:
        if _normal(section.title) in wanted:
            return section
    return None


def expand(patterns: Sequence[str], root: Path, instance: str | None) -> list[Path]:
    """The files the glob ``patterns`` match under ``root``, ``{instance}`` filled in.

    Without an instance (a gate run by hand), ``{instance}`` matches any name.
    """
    files: set[Path] = set()
    for pattern in patterns:
        filled = pattern.replace("{instance}", instance if instance else "*")
        files.update(path for path in root.glob(filled) if path.is_file())
    return sorted(files)


def _normal(title: str) -> str:
    return _SPACES.sub(" ", title.strip().rstrip(":").lower())


def document_measurement(
    what: str,
    documents: Sequence[Path],
    findings: list[Finding],
    patterns: Sequence[str],
    instance: str | None,
) -> Measurement:
    """The measurement of a document check: how many documents, how many parts missing."""
    metrics = {"documents": len(documents), "missing": len(findings)}
    if not documents:
        filled = ", ".join(p.replace("{instance}", instance or "*") for p in patterns)
        summary = f"no {what} document found at {filled}"
    elif findings:
        first = findings[0]
        summary = f"{len(findings)} part(s) missing, first in {first.path}: {first.message}"
    else:
        summary = f"{len(documents)} {what} document(s) complete"
    return Measurement(
        summary=summary,
        score=1.0 if documents and not findings else 0.0,
        metrics=dict(metrics),
        new_code_metrics=dict(metrics),
        findings=findings,
    )
