"""Which file each tool reads its settings from, and a change that makes it read another.

A tool reads one configuration file: pytest the first of ``pytest.toml``, ``.pytest.toml``,
``pytest.ini``, ``.pytest.ini`` (each even empty), ``pyproject.toml`` with a ``[tool.pytest]``
table (pytest 9's native one, or ``ini_options``: the parsed table, as pytest reads it, not a
text match), ``tox.ini`` with ``[pytest]``, ``setup.cfg`` with ``[tool:pytest]``; ruff
``.ruff.toml``, ``ruff.toml``, then ``pyproject.toml``'s ``[tool.ruff]``; mypy ``mypy.ini``,
``.mypy.ini``, then ``pyproject.toml``, ``setup.cfg``; coverage (as phasegate's coverage run
finds it) ``.coveragerc``, then the first of ``pyproject.toml``, ``setup.cfg``, ``tox.ini`` with
a coverage section. The file first in that order wins whole: its settings are not merged with
the others'. So a change that adds an empty ``ruff.toml`` drops every rule ``[tool.ruff.lint]
select`` named (the ``S`` rules the security check relies on, say), and an empty ``pytest.ini``
drops the base's ``addopts``, ``xfail_strict`` and ``filterwarnings``.
:mod:`~phasegate.integrity.configuration` merges every file's settings, so it sees those
settings as still there; this module reports the switch itself (review s16r, finding 29).

ruff also reads the configuration file nearest each linted file: a ``.ruff.toml`` (or
``ruff.toml``, or a ``pyproject.toml`` with ``[tool.ruff]``) in ``src/calc/`` lints that folder
by its own settings alone, the root's unread (``ignore = ["F401"]`` there hid the unused import
the change added, review s16r, finding 30). One added below the root is reported; one the
change edited is compared, setting by setting, by the configuration check's loosening rules
(:func:`edited_nested_ruff`): a tightening passes (review of the session's diff, finding 10).
One in a folder the root's ruff settings exclude (``exclude``, ``extend-exclude``: a fixture
project under ``tests/data/``) is not read, as ruff lints nothing below it (review s17r).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from pathlib import PurePosixPath

from phasegate import tomlfile
from phasegate.integrity.sources import ChangedSources
from phasegate.integrity.trick import Trick

__all__ = ["READ_ORDER", "edited_nested_ruff", "file_read_by", "reader_tricks"]

#: The marker of a ``pyproject.toml`` read by pytest: a non-empty parsed ``[tool.pytest]``.
PYPROJECT_PYTEST = "[tool.pytest]"

#: Per tool, the files it may read, first found first, each with the text that says the file
#: holds the tool's settings ("": the file is read whatever it holds).
READ_ORDER: dict[str, tuple[tuple[str, str], ...]] = {
    "pytest": (
        ("pytest.toml", ""),
        (".pytest.toml", ""),
        ("pytest.ini", ""),
        (".pytest.ini", ""),
        ("pyproject.toml", PYPROJECT_PYTEST),
        ("tox.ini", "[pytest]"),
        ("setup.cfg", "[tool:pytest]"),
    ),
    "ruff": ((".ruff.toml", ""), ("ruff.toml", ""), ("pyproject.toml", "[tool.ruff")),
    "mypy": (
        ("mypy.ini", ""),
        (".mypy.ini", ""),
        ("pyproject.toml", "[tool.mypy"),
        ("setup.cfg", "[mypy"),
    ),
    "coverage": (
        (".coveragerc", ""),
        ("pyproject.toml", "[tool.coverage"),
        ("setup.cfg", "[coverage:"),
        ("tox.ini", "[coverage:"),
    ),
}


def reader_tricks(sources: ChangedSources) -> list[Trick]:
    """A trick for each tool the change makes read another file while the one it read at the
    base still holds settings for it."""
    nested = _nested_ruff_files(sources)
    tricks = [_nested(path) for path in nested if sources.base_text(path) is None]
    for tool in _touched(set(sources.paths)):
        tricks += _switched(sources, tool, READ_ORDER[tool])
    return tricks


def _nested_ruff_files(sources: ChangedSources) -> list[str]:
    """The ruff configurations below the root the change added or edited, in folders ruff
    lints (the root's ruff settings do not exclude them)."""
    excluded = _ruff_excludes(sources)
    nested = [path for path in sources.paths if _nested_ruff(sources, path)]
    return [path for path in nested if not _excluded(path.rpartition("/")[0], excluded)]


def _ruff_excludes(sources: ChangedSources) -> list[str]:
    """The ``exclude`` and ``extend-exclude`` patterns of the root's ruff settings."""
    name = file_read_by("ruff", sources.head_text)
    try:
        data = tomlfile.loads(sources.head_text(name) or "") if name else {}
    except tomlfile.TOMLDecodeError:
        return []  # the configuration check reports the file
    table = tomlfile.table_in(data, "tool", "ruff") if name == "pyproject.toml" else data
    return [*_strings(table.get("exclude")), *_strings(table.get("extend-exclude"))]


def _strings(value: object) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []


def _excluded(folder: str, patterns: list[str]) -> bool:
    """Whether ruff skips ``folder``: a pattern matches it or a folder above it, by name
    (``data``) or by its path from the root (``tests/data``, ``tests/*``)."""
    parts = PurePosixPath(folder).parts
    prefixes = ["/".join(parts[: end + 1]) for end in range(len(parts))]
    return any(_matches(prefix, pattern) for prefix in prefixes for pattern in patterns)


def _matches(prefix: str, pattern: str) -> bool:
    pattern = pattern.strip("/").removeprefix("./")
    if "/" not in pattern:
        return fnmatch.fnmatchcase(prefix.rpartition("/")[2], pattern)
    return fnmatch.fnmatchcase(prefix, pattern)


def _nested_ruff(sources: ChangedSources, path: str) -> bool:
    """Whether ``path`` is a ruff configuration below the root that the change added or edited."""
    folder, _, name = path.rpartition("/")
    marker = dict(READ_ORDER["ruff"]).get(name)
    return bool(folder) and marker is not None and _holds(sources.head_text(path), marker)


def edited_nested_ruff(sources: ChangedSources) -> list[str]:
    """The ruff configurations below the root that the change edited (the base had them)."""
    return [path for path in _nested_ruff_files(sources) if sources.base_text(path) is not None]


def _nested(path: str) -> Trick:
    folder = path.rpartition("/")[0]
    message = (
        f"a ruff configuration in {folder}/: ruff lints the files below it by these settings "
        "alone, not the root's"
    )
    return Trick("configuration", "ruff-loosened", path, None, message)


def _touched(changed: set[str]) -> list[str]:
    """The tools one of whose files the change touched (the others read what they read)."""
    return [tool for tool, order in READ_ORDER.items() if changed & dict(order).keys()]


_Order = tuple[tuple[str, str], ...]


def _switched(sources: ChangedSources, tool: str, order: _Order) -> list[Trick]:
    was = _reader(order, sources.base_text)
    now = _reader(order, sources.head_text)
    if was is None or now in (None, was) or not _holds(sources.head_text(was), dict(order)[was]):
        return []
    message = (
        f"{tool} now reads its settings from {now}, not {was}: the settings {was} holds for it "
        "are no longer read"
    )
    return [Trick("configuration", f"{tool}-loosened", now, None, message)]


def file_read_by(tool: str, read: Callable[[str], str | None]) -> str | None:
    """The file ``tool`` reads its settings from, of those ``read`` gives the text of."""
    return _reader(READ_ORDER[tool], read)


def _reader(order: _Order, read: Callable[[str], str | None]) -> str | None:
    """The file the tool reads, of those ``read`` gives the text of."""
    return next((name for name, marker in order if _holds(read(name), marker)), None)


def _holds(text: str | None, marker: str) -> bool:
    if text is None or marker != PYPROJECT_PYTEST:
        return text is not None and marker in text
    return _has_pytest_table(text)


def _has_pytest_table(text: str) -> bool:
    """Whether a pyproject.toml has a non-empty ``[tool.pytest]``; one that does not parse is
    pytest's error, and the configuration check's: its text is matched here."""
    try:
        return bool(tomlfile.table_in(tomlfile.loads(text), "tool", "pytest"))
    except tomlfile.TOMLDecodeError:
        return "[tool.pytest" in text
