"""A lost None guard where the failure shows the None only in its words, or not at all: a None
spread with ``**``/``*`` (``argument after ** must be a mapping, not NoneType``), a ``raise``
of the code's own ``isinstance`` check, an ``assert`` of the code under test; and a regular
expression's other group as a guard's body."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from phasegate.autodebug.patterns.match_groups import match_group_bodies
from phasegate.autodebug.project import Project, TestFiles
from tests.autodebug_support import diagnose, restores

CONTEXTS = """\
def new_context(template, shared=False, vars=None, globals=None):
    if vars is None:
        vars = {}
    if shared:
        parent = vars
    else:
        parent = dict(globals or (), **vars)
    return template, parent


def call_all(functions, args=None):
    if args is None:
        args = []
    return [function(*args) for function in functions]
"""

REQUESTS = """\
class Request:
    def __init__(self):
        self._body = b""

    @property
    def body(self):
        return self._body

    @body.setter
    def body(self, value):
        if value is None:
            value = b""
        if not isinstance(value, bytes):
            raise TypeError("You can only set Request.body to bytes (not %r)" % type(value))
        self._body = value
"""

LINKS = """\
def parse_angle(src, pos):
    end = src.find(">", pos)
    if end < 0:
        return None, None
    return src[pos + 1 : end], end + 1


def parse_href(src, pos):
    if pos >= len(src):
        return None, None, pos
    if src[pos] == "<":
        href, href_pos = parse_angle(src, pos)
        if href is None:
            return None, None, pos
        assert href_pos is not None
        return href, href_pos, href_pos
    return src[pos:], len(src), len(src)
"""

MATH = """\
import re

BLOCK = re.compile(r"\\$\\$(?P<single>[^\\n]*?)\\$\\$|\\$\\$\\n(?P<multi>[\\s\\S]*?)\\n\\$\\$")


def parse_block(src):
    m = BLOCK.match(src)
    text = m.group("single")
    if text is None:
        text = m.group("multi")
    return text.strip()
"""


def _without(text: str, guard: str) -> str:
    assert guard in text
    return text.replace(guard, "")


@pytest.mark.needs_columns
def test_a_none_spread_with_two_stars_gets_its_parameter_guarded_with_an_empty_mapping(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {"nm_contexts.py": _without(CONTEXTS, "    if vars is None:\n        vars = {}\n")},
        "import nm_contexts as m; m.new_context('t')",
        monkeypatch,
    )
    assert (diagnosis.error_class, diagnosis.facts["expr"]) == ("none", "vars")
    assert restores(candidates[0], CONTEXTS)


@pytest.mark.needs_columns
def test_a_none_spread_with_one_star_gets_its_parameter_guarded_with_an_empty_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {"nm_calls.py": _without(CONTEXTS, "    if args is None:\n        args = []\n")},
        "import nm_calls as m; m.call_all([print])",
        monkeypatch,
    )
    assert (diagnosis.error_class, diagnosis.facts["expr"]) == ("none", "args")
    assert restores(candidates[0], CONTEXTS)


@pytest.mark.needs_columns
def test_a_none_the_code_raises_on_is_guarded_with_the_empty_value_of_the_type_it_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {
            "nm_requests.py": _without(
                REQUESTS, '        if value is None:\n            value = b""\n'
            )
        },
        "import nm_requests as m; m.Request().body = None",
        monkeypatch,
    )
    assert (diagnosis.kind, diagnosis.facts["expr"], diagnosis.facts["usage"]) == (
        "none-refused",
        "value",
        "bytes",
    )
    assert any(restores(candidate, REQUESTS) for candidate in candidates[:3])


def test_a_raise_on_another_value_is_not_read_as_a_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    diagnosis, _, _ = diagnose(
        tmp_path,
        {"nm_requests2.py": REQUESTS},
        "import nm_requests2 as m; m.Request().body = 'text'",
        monkeypatch,
    )
    assert diagnosis.kind != "none-refused"


@pytest.mark.needs_columns
def test_an_assertion_of_the_code_under_test_guards_the_first_value_set_with_the_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard = "        if href is None:\n            return None, None, pos\n"
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {
            "nm_links.py": _without(LINKS, guard),
            "nm_use.py": "import nm_links\n\ndef use(s):\n    return nm_links.parse_href(s, 0)\n",
        },
        "import nm_use; nm_use.use('<abc')",
        monkeypatch,
    )
    assert (diagnosis.kind, diagnosis.facts["expr"]) == ("none-asserted", "href")
    assert any(restores(candidate, LINKS) for candidate in candidates[:3])


def test_a_match_groups_guard_reads_the_other_group_of_its_pattern(tmp_path: Path) -> None:
    faulty = _without(MATH, '    if text is None:\n        text = m.group("multi")\n')
    (tmp_path / "math.py").write_text(faulty)
    project = Project(tmp_path, TestFiles([]))
    function = next(n for n in ast.walk(ast.parse(faulty)) if isinstance(n, ast.FunctionDef))
    bodies = match_group_bodies(project, "math.py", function, "text")
    assert [body for body, _, _ in bodies] == ["text = m.group('multi')"]
    assert match_group_bodies(project, "math.py", function, "m") == []


class _Box:
    def __init__(self) -> None:
        self.label: bytes | None = None


def _refuse(box: _Box, size: int) -> None:
    if not isinstance(box.label, bytes) or size < 0:
        raise TypeError(f"label must be bytes, not {type(box.label).__name__}")


def test_the_none_read_is_the_first_name_or_attribute_chain_the_frame_holds_none(
    tmp_path: Path,
) -> None:
    # The one reader the none-refused and none-asserted shapes share (and nones' spans).
    from phasegate.autodebug.live import LiveFailure, holds_none, none_read

    with pytest.raises(TypeError) as caught:
        _refuse(_Box(), 3)
    failure = LiveFailure.capture(caught.value, tmp_path)
    frame = failure.innermost
    assert frame is not None
    assert frame.function == "_refuse"
    test = ast.parse("not isinstance(box.label, bytes) or size < 0", mode="eval").body
    read = none_read(failure, frame, test)
    assert read is not None
    assert ast.unparse(read) == "box.label"
    assert none_read(failure, frame, ast.parse("size + 1", mode="eval").body) is None
    assert holds_none(failure, frame, ast.Name("size")) is False
    assert holds_none(failure, frame, ast.Name("not_bound_here")) is None
