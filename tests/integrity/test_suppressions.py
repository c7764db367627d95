"""Suppressions: each comment that silences a tool without a code and a reason is named."""

from __future__ import annotations

import pytest

from phasegate.integrity.suppressions import find_suppressions

from .conftest import BASE_FILES, MakeChange

#: The base's problems: a shell command (security), an unused import (lint), a wrong type
#: (types) and a branch no test runs (coverage).
RUN = '''\
"""Running things."""

import os
import subprocess


def run(command: str) -> int:
    """Run a command."""
    return subprocess.call(command, shell=True)


def size(name: str) -> int:
    """The length of a name."""
    return name


def rare(flag: bool) -> int:
    """Seldom used."""
    if flag:
        return 1
    return 0
'''

FILES = {**BASE_FILES, "src/calc/run.py": RUN}


def _with(old: str, new: str) -> dict[str, str]:
    assert old in RUN
    return {"src/calc/run.py": RUN.replace(old, new, 1)}


TRICKS = [
    (
        "nosec",
        _with("shell=True)", "shell=True)  # nosec"),
        "src/calc/run.py:9 # nosec added without a specific code and a reason: it silences the "
        "security check, and the problem is still there",
    ),
    (
        "nosec-with-code-only",
        _with("shell=True)", "shell=True)  # nosec B602"),
        "src/calc/run.py:9 # nosec B602 added without a reason",
    ),
    (
        "noqa",
        _with("import os\n", "import os  # noqa\n"),
        "src/calc/run.py:3 # noqa added without a specific code and a reason: it silences the "
        "linter",
    ),
    (
        "noqa-with-a-one-word-reason",
        _with("import os\n", "import os  # noqa: F401 -- needed\n"),
        "src/calc/run.py:3 # noqa F401 added without a reason",
    ),
    (
        "file-wide-noqa",
        _with('"""Running things."""\n', '"""Running things."""\n# ruff: noqa\n'),
        "src/calc/run.py:2 # ruff: noqa added without a specific code and a reason: it silences "
        "the linter for the whole file",
    ),
    (
        "type-ignore",
        _with("    return name\n", "    return name  # type: ignore\n"),
        "src/calc/run.py:14 # type: ignore added without a specific code and a reason: it "
        "silences the type checker",
    ),
    (
        "mypy-ignore-errors",
        _with('"""Running things."""\n', '# mypy: ignore-errors\n"""Running things."""\n'),
        "src/calc/run.py:1 # mypy: ignore-errors added without a reason: it silences the type "
        "checker for the whole file",
    ),
    (
        "no-type-check",
        {
            "src/calc/run.py": RUN.replace("import os\n", "import os\nimport typing\n").replace(
                "def size(", "@typing.no_type_check\ndef size("
            )
        },
        "src/calc/run.py:13 @no_type_check added without a reason: it turns type checking of "
        "the function off",
    ),
    (
        "pragma-no-cover",
        _with("    if flag:\n", "    if flag:  # pragma: no cover\n"),
        "src/calc/run.py:19 # pragma: no cover added without a reason: it hides the lines from "
        "coverage",
    ),
    (
        "pragma-no-cover-without-a-colon",
        _with("    if flag:\n", "    if flag:  # pragma no cover\n"),
        "src/calc/run.py:19 # pragma: no cover added without a reason: it hides the lines from "
        "coverage",
    ),
    (
        "pragma-nocover-in-capitals",
        _with("    if flag:\n", "    if flag:  #PRAGMA:NOCOVER\n"),
        "src/calc/run.py:19 # pragma: no cover added without a reason",
    ),
    (
        "pylint-disable",
        _with("import os\n", "import os  # pylint: disable=unused-import\n"),
        "src/calc/run.py:3 # pylint: disable unused-import added without a reason: it silences "
        "pylint",
    ),
]


@pytest.mark.parametrize(
    ("files", "expected"),
    [pytest.param(files, expected, id=case) for case, files, expected in TRICKS],
)
def test_each_added_suppression_without_a_reason_is_named(
    make_change: MakeChange, files: dict[str, str], expected: str
) -> None:
    sentences = make_change(FILES).write(files).sentences()
    assert len(sentences) == 1, sentences
    assert sentences[0].startswith(expected), sentences


HONEST = [
    pytest.param(
        _with("shell=True)", "shell=True)  # nosec B602 -- the command is a constant of ours"),
        id="nosec-with-code-and-reason",
    ),
    pytest.param(
        _with(
            "    return name\n", "    return name  # type: ignore[return-value]  # the stub lags"
        ),
        id="type-ignore-with-code-and-reason-after-a-second-hash",
    ),
    pytest.param(
        _with("    if flag:\n", "    if flag:  # pragma: no cover -- only on Windows\n"),
        id="pragma-with-reason",
    ),
    pytest.param(
        _with("import os\n", "import os\n\nTEXT = '# noqa  # type: ignore'\n"),
        id="directives-inside-a-string",
    ),
    pytest.param(
        _with("import os\n", "# os is re-exported for the plugins\nimport os  # noqa: F401\n"),
        id="reason-on-the-comment-line-above",
    ),
    pytest.param(
        _with("    return name\n", "    return len(name)\n"),
        id="the-real-fix",
    ),
]


@pytest.mark.parametrize("files", HONEST)
def test_reasoned_suppressions_and_real_fixes_pass(
    make_change: MakeChange, files: dict[str, str]
) -> None:
    assert make_change(FILES).write(files).sentences() == []


def test_a_suppression_the_base_had_is_not_the_changes(make_change: MakeChange) -> None:
    silenced = RUN.replace("import os\n", "import os  # noqa\n")
    change = make_change({**FILES, "src/calc/run.py": silenced})
    assert change.write({"src/calc/run.py": "# moved down\n" + silenced}).sentences() == []


def test_a_directive_on_the_line_above_is_no_reason(make_change: MakeChange) -> None:
    change = make_change(FILES).write(
        _with("import os\n", "# pylint: disable=unused-import\nimport os  # noqa: F401\n")
    )
    assert [sentence.split(" added")[0] for sentence in change.sentences()] == [
        "src/calc/run.py:3 # pylint: disable unused-import",
        "src/calc/run.py:4 # noqa F401",
    ]


def test_the_reason_policy_is_the_projects(make_change: MakeChange) -> None:
    change = make_change(FILES).write(_with("import os\n", "import os  # noqa\n"))
    assert change.sentences(suppression_needs_code=False, suppression_reason=".*") == []
    (sentence,) = change.sentences(suppression_reason=r"see #\d+")
    assert "without a specific code and a reason" in sentence


def test_a_reason_policy_that_is_no_regex_is_refused() -> None:
    from phasegate.gates.checks.integrity import IntegrityOptions

    with pytest.raises(ValueError, match="is not a regular expression"):
        IntegrityOptions.model_validate({"suppression_reason": "("})


def test_several_directives_in_one_comment_are_each_read() -> None:
    found = find_suppressions("x = 1  # type: ignore[misc]  # noqa: E501 -- a long line\n", "a.py")
    assert [(s.kind, s.codes, s.reason) for s in found] == [
        ("type: ignore", "misc", ""),
        ("noqa", "E501", "a long line"),
    ]
