"""``SyntaxError`` and ``IndentationError``: small edits near the error that make the file compile.

The exception's own fields say where (``lineno``, ``offset``, ``end_lineno``, ``end_offset``)
and, through its ``msg``, which family of fault CPython saw: a missing colon, an unclosed
bracket, a missing comma, indentation, or an unterminated string. Each family generates
edits near that place; only edits after which the whole file compiles become candidates.
The family CPython named is tried first; the others follow, because CPython's message is a
guess too (an unclosed bracket often reads as "invalid syntax").
"""

from __future__ import annotations

import ast
import io
import itertools
import tokenize
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypedDict

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.live import project_path
from phasegate.autodebug.patterns.base import short
from phasegate.autodebug.source import compiles, line_indent, parse, split_lines
from phasegate.failures import exception_type_name

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure
    from phasegate.autodebug.project import Project

__all__ = ["SyntaxFacts", "SyntaxPattern", "syntax_kind"]

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_MAX_CANDIDATES = 8
_PHRASES = {
    "missing-colon": "a missing colon",
    "unclosed-bracket": "an unclosed or unmatched bracket",
    "missing-comma": "a missing comma",
    "indentation": "wrong indentation",
    "unterminated-string": "an unterminated string",
    "invalid-syntax": "invalid syntax",
}

# The family of each CPython message: (family, the message starts with one of, or contains one of).
_MESSAGE_KINDS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("missing-colon", ("expected ':'",), ()),
    ("unclosed-bracket", ("unmatched", "closing parenthesis"), ("was never closed",)),
    ("missing-comma", (), ("forgot a comma",)),
    ("unterminated-string", ("unterminated",), ("while scanning",)),
)
# Tokens that only lay out the code.
_LAYOUT = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT}
_VALUES = {tokenize.NAME, tokenize.NUMBER, tokenize.STRING}
_STRING_PREFIXES = "rRbBfFuU"

Edit = tuple[str, str]  # new text, description


def syntax_kind(exc: SyntaxError) -> str:
    """The family of a syntax error, from its class and CPython's message."""
    if isinstance(exc, IndentationError):
        return "indentation"
    message = exc.msg or ""
    for kind, starts, parts in _MESSAGE_KINDS:
        if message.startswith(starts) or any(part in message for part in parts):
            return kind
    return "invalid-syntax"


class SyntaxFacts(TypedDict):
    """CPython's message, and the text of the line it points at."""

    msg: str
    text: str


class SyntaxPattern:
    """Code that does not compile."""

    name = "syntax"
    error_class = "syntax"

    def classify(self, failure: LiveFailure) -> Diagnosis | None:
        exc = failure.exc
        if not isinstance(exc, SyntaxError):
            return None
        path = project_path(exc.filename, failure.root) if exc.filename else None
        line, col, end_line, end_col = _error_span(exc) if path else (None, None, None, None)
        facts: SyntaxFacts = {"msg": exc.msg, "text": (exc.text or "").rstrip("\n")[:300]}
        return Diagnosis(
            pattern=self.name,
            error_class=self.error_class,
            kind=syntax_kind(exc),
            exc_type=exception_type_name(exc),
            message=str(exc)[:500],
            path=path,
            line=line,
            col=col,
            end_line=end_line,
            end_col=end_col,
            facts=dict(facts),
        )

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        path = diagnosis.path
        text = project.read_editable(path) if diagnosis.line is not None else None
        if path is None or text is None or compiles(text, path):
            return []
        candidates: list[Candidate] = []
        seen: set[str] = set()
        for kind in _generator_order(diagnosis.kind):
            base = _base_score(kind, diagnosis.kind)
            candidates += _compiling_edits(kind, text, path, diagnosis, seen, base)
        return sorted(candidates, key=lambda c: -c.score)[:_MAX_CANDIDATES]

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        where = f"{diagnosis.path}:{diagnosis.line}" if diagnosis.path else "outside the project"
        head = f"{short(diagnosis.exc_type)}: {diagnosis.facts.get('msg')} at {where}"
        if candidate is None:
            return f"{head}; no small edit nearby makes the file compile"
        return f"{head}: {_PHRASES.get(candidate.kind, candidate.kind)}; {candidate.description}"


def _error_span(exc: SyntaxError) -> tuple[int | None, int | None, int | None, int | None]:
    """``(line, col, end_line, end_col)`` of a syntax error, 0-based columns; the end only
    when CPython gives a valid one."""
    end_col = _column(exc.end_offset) if exc.end_lineno is not None else None
    end_line = exc.end_lineno if end_col is not None else None
    return exc.lineno, _column(exc.offset), end_line, end_col


def _column(offset: int | None) -> int | None:
    """The 0-based column of CPython's 1-based ``offset``; None when it gives none."""
    return offset - 1 if offset is not None and offset > 0 else None


def _generator_order(diagnosed: str) -> list[str]:
    """CPython's family first; deleting a token last, as it compiles most easily."""
    order = [diagnosed, *(k for k in _GENERATORS if k != diagnosed)]
    order.remove("invalid-syntax")
    order.append("invalid-syntax")
    return order


def _base_score(kind: str, diagnosed: str) -> float:
    if kind == "invalid-syntax":
        return 0.3
    return 0.9 if kind == diagnosed else 0.5


def _compiling_edits(
    kind: str, text: str, path: str, diagnosis: Diagnosis, seen: set[str], base: float
) -> list[Candidate]:
    """The first three new texts of ``kind``'s generator that compile and are new."""
    found: list[Candidate] = []
    for new, description in _GENERATORS[kind](text, diagnosis):
        if new in seen or new == text or not compiles(new, path):
            continue
        seen.add(new)
        found.append(Candidate(kind, description, [FileEdit(path, new)], base - 0.02 * len(found)))
        if len(found) >= 3:
            break
    return found


# -- tokens and where lines end --------------------------------------------------------------


def _tokens(text: str) -> Iterator[tokenize.TokenInfo]:
    """The tokens of ``text`` up to the first one the tokenizer cannot read."""
    try:
        yield from tokenize.generate_tokens(io.StringIO(text).readline)
    except (tokenize.TokenError, SyntaxError):
        return


def _all_tokens(text: str) -> list[tokenize.TokenInfo]:
    """The tokens of ``text``, or none if the tokenizer cannot read all of it."""
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return []


def _code_end(line: str) -> int:
    """The column where a line's code ends (before a comment and trailing blanks)."""
    body = line.rstrip("\r\n")
    for token in _tokens(body.lstrip() + "\n"):
        if token.type == tokenize.COMMENT:
            start = token.start[1] + (len(body) - len(body.lstrip()))
            return len(body[:start].rstrip())
    return len(body.rstrip())


def _insert(lines: list[str], line: int, col: int, new: str) -> str:
    changed = list(lines)
    text = changed[line - 1]
    changed[line - 1] = text[:col] + new + text[col:]
    return "".join(changed)


def _delete(lines: list[str], line: int, col: int, length: int = 1) -> str:
    changed = list(lines)
    text = changed[line - 1]
    changed[line - 1] = text[:col] + text[col + length :]
    return "".join(changed)


def _reindent(lines: list[str], first: int, last: int, indent: str) -> str:
    changed = list(lines)
    base = line_indent(changed[first - 1])
    for number in range(first, last + 1):
        text = changed[number - 1]
        if not text.strip():
            continue
        own = line_indent(text)
        extra = own[len(base) :] if own.startswith(base) else ""
        changed[number - 1] = indent + extra + text[len(own) :]
    return "".join(changed)


def _code_lines(lines: list[str], start: int, stop: int) -> Iterator[int]:
    for number in range(max(1, start), min(len(lines), stop) + 1):
        if lines[number - 1].strip() and not lines[number - 1].lstrip().startswith("#"):
            yield number


# -- the families ----------------------------------------------------------------------------


def _missing_colon(text: str, diagnosis: Diagnosis) -> Iterator[Edit]:
    lines = split_lines(text)
    line = diagnosis.line or 1
    for number in _code_lines(lines, line - 2, line):
        end = _code_end(lines[number - 1])
        yield _insert(lines, number, end, ":"), f"add the missing ':' at the end of line {number}"


def _unbalanced_openers(text: str, line: int) -> list[tuple[int, int, str]]:
    """Brackets opened and not closed before the end of ``line``, innermost first."""
    stack: list[tuple[int, int, str]] = []
    for token in _tokens(text):
        if token.start[0] > line:
            break
        if token.type != tokenize.OP:
            continue
        if token.string in _OPENERS:
            stack.append((token.start[0], token.start[1], token.string))
        elif token.string in _CLOSERS and stack and stack[-1][2] == _CLOSERS[token.string]:
            stack.pop()
    return list(reversed(stack))


def _unclosed_bracket(text: str, diagnosis: Diagnosis) -> Iterator[Edit]:
    lines = split_lines(text)
    line, col = diagnosis.line or 1, diagnosis.col or 0
    here = lines[line - 1][col : col + 1] if diagnosis.col is not None else ""
    if here in _CLOSERS:
        yield from _unmatched_closer(lines, line, col, here)
    openers = _open_at_error(text, line, col, here)
    for open_line, _open_col, opener in openers[:2]:
        yield from _closed_at_line_ends(lines, open_line, opener, line)
    for open_line, open_col, opener in openers[:1]:
        yield from _closed_after_tokens(text, lines, (open_line, open_col), opener, line)


def _open_at_error(text: str, line: int, col: int, here: str) -> list[tuple[int, int, str]]:
    """The brackets left open up to the error's line, innermost first, after the opener the
    error points at (``here``, if it is one) when they do not hold it already."""
    openers = _unbalanced_openers(text, line)
    if here in _OPENERS and (line, col, here) not in openers:
        openers.insert(0, (line, col, here))
    return openers


def _closed_after_tokens(
    text: str, lines: list[str], opened: tuple[int, int], opener: str, line: int
) -> Iterator[Edit]:
    """The bracket may have been lost in the middle of a line (`f(g(x, y)` for `f(g(x), y)`):
    the opener closed after every token of the lines it spans, those before a comma first
    (a bracket is most often lost before the separator of the items around it), then left
    to right, except where the pair of brackets would change nothing (`(out).get(...)`:
    parentheses around a name that only take the place of a repair that changes the code)."""
    closer = _OPENERS[opener]
    open_line = opened[0]
    ends = list(_token_ends(text, open_line, max(line, open_line) + 3))
    before_comma = [end for end in ends if _followed_by(lines, end, ",")]
    for number, col_after in dict.fromkeys([*before_comma, *ends]):
        new = _insert(lines, number, col_after, closer)
        if _idle_pair(new, opened, (number, col_after)):
            continue
        yield new, f"close a '{opener}' at {number}:{col_after + 1}"


def _followed_by(lines: list[str], place: tuple[int, int], mark: str) -> bool:
    """Whether the code at ``place`` (line, column) goes on with ``mark``."""
    number, col = place
    return lines[number - 1][col:].lstrip().startswith(mark)


def _idle_pair(new: str, opened: tuple[int, int], closed: tuple[int, int]) -> bool:
    """Whether the brackets at ``opened`` and ``closed`` (line, column) of ``new`` change
    nothing: ``new`` parses to the same tree with both taken out."""
    lines = split_lines(new)
    without = split_lines(_delete(lines, *closed))
    before = parse(new)
    after = parse(_delete(without, *opened))
    return before is not None and after is not None and ast.dump(before) == ast.dump(after)


def _unmatched_closer(lines: list[str], line: int, col: int, here: str) -> Iterator[Edit]:
    """The closer ``here`` removed, an opener's closer put before it, or put in its place."""
    yield _delete(lines, line, col), f"remove the unmatched '{here}' on line {line}"
    for opener, closer in _OPENERS.items():
        if closer == here:
            continue
        yield (
            _insert(lines, line, col, closer),
            f"close the '{opener}' before line {line}'s '{here}'",
        )
        replaced = _delete(lines, line, col)
        yield (
            _insert(split_lines(replaced), line, col, closer),
            f"replace '{here}' with '{closer}' on line {line}",
        )


def _closed_at_line_ends(
    lines: list[str], open_line: int, opener: str, line: int
) -> Iterator[Edit]:
    """The opener on ``open_line`` closed at the end of a line up to three past ``line``
    (before its ':' or ',' too)."""
    closer = _OPENERS[opener]
    for number in _code_lines(lines, open_line, max(line, open_line) + 3):
        end = _code_end(lines[number - 1])
        code = lines[number - 1][:end]
        for mark in (":", ","):
            if code.endswith(mark):
                yield (
                    _insert(lines, number, end - 1, closer),
                    f"close the '{opener}' opened on line {open_line} "
                    f"before the '{mark}' of line {number}",
                )
        yield (
            _insert(lines, number, end, closer),
            f"close the '{opener}' opened on line {open_line} at the end of line {number}",
        )


def _token_ends(text: str, first: int, last: int) -> Iterator[tuple[int, int]]:
    """Where each token of lines ``first`` to ``last`` ends (before the line's last token)."""
    skip = _LAYOUT | {tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    for token in _tokens(text):
        if token.start[0] > last:
            return
        if token.type not in skip and token.end[0] >= first:
            yield token.end


def _missing_comma(text: str, diagnosis: Diagnosis) -> Iterator[Edit]:
    """A comma between two neighbouring values on the error's lines (`f(a b)`)."""
    lines = split_lines(text)
    first = diagnosis.line or 1
    last = diagnosis.end_line or first
    code = [t for t in _all_tokens(text) if t.start[0] <= last and t.type not in _LAYOUT]
    for previous, token in itertools.pairwise(code):
        if token.start[0] >= first and _ends_value(previous) and _starts_value(token):
            line, col = previous.end
            yield (
                _insert(lines, line, col, ","),
                f"add the missing ',' after `{previous.string}` on line {line}",
            )


def _ends_value(token: tokenize.TokenInfo) -> bool:
    return token.type in _VALUES or token.string in _CLOSERS


def _starts_value(token: tokenize.TokenInfo) -> bool:
    return token.type in _VALUES or token.string in _OPENERS


def _indentation(text: str, diagnosis: Diagnosis) -> Iterator[Edit]:
    lines = split_lines(text)
    line = diagnosis.line or 1
    if line > len(lines):
        return
    own = line_indent(lines[line - 1])
    block_end = _block_end(lines, line, own)
    for indent in _likely_indents(lines, line, own):
        yield _reindent(lines, line, line, indent), f"indent line {line} to {len(indent)} column(s)"
        if block_end > line:
            yield (
                _reindent(lines, line, block_end, indent),
                f"indent lines {line}-{block_end} to {len(indent)} column(s)",
            )
    yield from _tabs_expanded(lines)


def _tabs_expanded(lines: list[str]) -> Iterator[Edit]:
    """The tabs of the file's indentation, if it has any, replaced by four spaces each."""
    if "\t" in "".join(line_indent(x) for x in lines):
        expanded = "".join(line_indent(x).expandtabs(4) + x[len(line_indent(x)) :] for x in lines)
        yield expanded, "replace the tabs of the indentation with spaces"


def _likely_indents(lines: list[str], line: int, own: str) -> list[str]:
    """The indents ``line`` may have been meant to have, the likeliest first: one level
    deeper than the line before it if that opens a block, the same as it, then the file's
    other indents, the closest to its own first."""
    previous = next((text for text in reversed(lines[: line - 1]) if text.strip()), "")
    before = line_indent(previous)
    unit = "\t" if before.startswith("\t") else "    "
    wanted = [before + unit] if previous.rstrip().endswith(":") else []
    wanted += [before, *sorted(_indents_above(lines, line), key=lambda i: abs(len(i) - len(own)))]
    return [indent for indent in dict.fromkeys(wanted) if indent != own]


def _indents_above(lines: list[str], line: int) -> list[str]:
    """Each indent the non-blank lines above ``line`` have, once, in the order met."""
    return list(dict.fromkeys(line_indent(text) for text in lines[: line - 1] if text.strip()))


def _block_end(lines: list[str], line: int, own: str) -> int:
    """The last line of the block ``line`` starts: the lines under it, up to a blank line."""
    end = line
    while end < len(lines) and lines[end].strip():
        if not line_indent(lines[end]).startswith(own):
            break
        end += 1
    return end


def _unterminated_string(text: str, diagnosis: Diagnosis) -> Iterator[Edit]:
    lines = split_lines(text)
    line = diagnosis.line or 1
    body = lines[line - 1].rstrip("\r\n") if line <= len(lines) else ""
    start = _quote_start(body, diagnosis.col or 0)
    if start is None:
        return
    mark = body[start]
    if body[start : start + 3] == mark * 3:
        yield from _triple_quote_closed(lines, line, mark * 3)
    else:
        yield from _quote_placed(lines, line, start, mark)


def _quote_start(body: str, col: int) -> int | None:
    """Where the quote of the string literal at ``col`` is (after its prefix letters)."""
    start = col
    while start < len(body) and body[start] in _STRING_PREFIXES:
        start += 1
    return start if body[start : start + 1] in ("'", '"') else None


def _triple_quote_closed(lines: list[str], line: int, quote: str) -> Iterator[Edit]:
    """The triple-quoted string closed at the end of one of the next 30 lines."""
    for number in range(line, min(len(lines), line + 30) + 1):
        end = len(lines[number - 1].rstrip("\r\n"))
        yield (
            _insert(lines, number, end, quote),
            f"close the string opened on line {line} at the end of line {number}",
        )


def _quote_placed(lines: list[str], line: int, start: int, quote: str) -> Iterator[Edit]:
    """Where the quote goes: every place on the line where it makes the file compile, those
    that break the shape of fewer items of a sequence of strings first (see
    ``_misfit_items``; ranked, never dropped: the right place can break it too, as in
    ``"_", ".".join(x)``), then the one that leaves the least text inside strings (a
    misplaced quote turns code into string), then the rightmost (a closing quote is usually
    forgotten at the end)."""
    found: list[tuple[int, int, int, Edit]] = []
    for position in range(1, len(lines[line - 1].rstrip("\r\n")) + 1):
        new = _insert(lines, line, position, quote)
        if position == start or not compiles(new):
            continue
        where = "close the string opened" if position > start else "add the missing"
        description = f"{where} {quote} at {line}:{position + 1}"
        found.append(
            (_misfit_items(new, line), _string_chars(new, line), -position, (new, description))
        )
    yield from (edit for _misfits, _chars, _position, edit in sorted(found))


def _misfit_items(text: str, line: int) -> int:
    """How many items on ``line`` break the shape of the sequence of strings they are in (a
    set, list, tuple, dict, or a call's arguments, with at least two plain string literals):
    an item made with a string literal that is not one plain string literal (a quote put back
    in the wrong place makes `"a, " in "b"` or `"a," "b"` of `"a", "b"`), or a string that
    begins or ends with the sequence's own separator, a comma (it swallowed one); a name or a
    number among the strings is no misfit."""
    tree = ast.parse(text)
    return sum(
        _misfits_in(items, text, line)
        for items in _item_groups(tree)
        if any(_touches(item, line) for item in items)
    )


# The fields that hold the items of a comma-separated sequence, by node type.
_ITEM_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {
    ast.Set: ("elts",),
    ast.List: ("elts",),
    ast.Tuple: ("elts",),
    ast.Call: ("args",),
    ast.Dict: ("keys", "values"),
}


def _item_groups(tree: ast.AST) -> Iterator[list[ast.expr]]:
    """The items of each comma-separated sequence in ``tree`` (a dict's keys apart from its
    values)."""
    for node in ast.walk(tree):
        for field in _ITEM_FIELDS.get(type(node), ()):
            yield [item for item in getattr(node, field) if item is not None]


def _touches(item: ast.expr, line: int) -> bool:
    return item.lineno <= line <= (item.end_lineno or item.lineno)


def _misfits_in(items: list[ast.expr], text: str, line: int) -> int:
    plain = [_plain_string(item, text) for item in items]
    if sum(plain) < 2:
        return 0
    return sum(
        1
        for item, fits in zip(items, plain, strict=True)
        if not fits and _touches(item, line) and _holds_string(item)
    )


def _holds_string(item: ast.expr) -> bool:
    """Whether a string literal is part of ``item`` (a name or a number is no misfit)."""
    return any(
        isinstance(node, ast.Constant) and isinstance(node.value, str) for node in ast.walk(item)
    )


def _plain_string(item: ast.expr, text: str) -> bool:
    """Whether ``item`` is one string literal that neither begins nor ends with a comma."""
    value = item.value if isinstance(item, ast.Constant) else None
    if not isinstance(value, str) or "," in (value.strip()[:1], value.strip()[-1:]):
        return False
    segment = ast.get_source_segment(text, item) or ""
    return sum(token.type == tokenize.STRING for token in _tokens(segment)) == 1


def _string_chars(text: str, line: int) -> int:
    """How many characters of line ``line`` are inside string literals."""
    total = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING and token.start[0] <= line <= token.end[0]:
                total += len(token.string)
            if token.start[0] > line:
                break
    except (tokenize.TokenError, SyntaxError):
        return 1 << 30
    return total


def _generic(text: str, diagnosis: Diagnosis) -> Iterator[Edit]:
    lines = split_lines(text)
    line, col = diagnosis.line or 1, diagnosis.col
    if col is not None and line <= len(lines) and col < len(lines[line - 1].rstrip("\r\n")):
        yield (
            _delete(lines, line, col),
            f"remove the stray '{lines[line - 1][col]}' at {line}:{col + 1}",
        )


_GENERATORS: dict[str, Callable[[str, Diagnosis], Iterator[Edit]]] = {
    "missing-colon": _missing_colon,
    "unclosed-bracket": _unclosed_bracket,
    "missing-comma": _missing_comma,
    "indentation": _indentation,
    "unterminated-string": _unterminated_string,
    "invalid-syntax": _generic,
}
