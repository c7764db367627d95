"""The tool settings a change can loosen, read from the configuration files it touches.

Each file is parsed at the base and in the work tree: TOML (``pyproject.toml``, ``ruff.toml``,
``.ruff.toml``, ``pytest.toml``, ``.pytest.toml``) with :mod:`phasegate.tomlfile`, INI
(``setup.cfg``, ``tox.ini``, ``pytest.ini``, ``.coveragerc``, ``mypy.ini``, ``.mypy.ini``,
``.bandit``) with :mod:`configparser`. What the tools read is flattened into :class:`Setting`
values keyed by tool, key and, for mypy, the module pattern a section applies to, so that the
same setting compares across files and formats. A file that does not parse is a
:class:`~phasegate.gates.protocol.CheckError`: its loosened settings could not be seen.
"""

from __future__ import annotations

import configparser
import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from phasegate import tomlfile
from phasegate.gates.protocol import CheckError
from phasegate.integrity.search_path import overrides
from phasegate.jsonvalues import is_number
from phasegate.tomlfile import table_in

__all__ = ["SETTINGS_FILES", "Setting", "SettingValue", "joined", "read_settings"]

#: pytest 9's own TOML files: their ``[pytest]`` table, read before ``pytest.ini``.
PYTEST_TOML_FILES = frozenset({"pytest.toml", ".pytest.toml"})
TOML_FILES = frozenset({"pyproject.toml", "ruff.toml", ".ruff.toml"}) | PYTEST_TOML_FILES
INI_FILES = frozenset(
    {"setup.cfg", "tox.ini", "pytest.ini", ".coveragerc", "mypy.ini", ".mypy.ini", ".bandit"}
)
#: The configuration files read (by name, at the project root).
SETTINGS_FILES = TOML_FILES | INI_FILES

SettingValue = frozenset[str] | float | bool | str


@dataclass(frozen=True)
class Setting:
    """One setting of one tool: ``key`` is the tool's own name for it."""

    tool: str
    key: str
    value: SettingValue
    #: The module pattern of a mypy per-module section, else "".
    scope: str = ""


def read_settings(name: str, text: str) -> dict[tuple[str, str, str], Setting]:
    """The settings a configuration file holds, by (tool, key, scope)."""
    if PurePosixPath(name).name in TOML_FILES:
        try:
            data = tomlfile.loads(text)
        except tomlfile.TOMLDecodeError as exc:
            raise CheckError(f"{name} is not valid TOML: {exc}") from exc
        found = _from_toml(PurePosixPath(name).name, data)
    else:
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(text, source=name)
        except configparser.Error as exc:
            raise CheckError(f"{name} cannot be read as an INI file: {exc}") from exc
        found = _from_ini(PurePosixPath(name).name, parser)
    return {(s.tool, s.key, s.scope): s for s in found}


def _from_toml(name: str, data: Mapping[str, object]) -> list[Setting]:
    if name in PYTEST_TOML_FILES:
        return _pytest(table_in(data, "pytest"))
    found: list[Setting] = []
    if name == "pyproject.toml":
        tool = table_in(data, "tool")
        found += _coverage(table_in(tool, "coverage", "run"), table_in(tool, "coverage", "report"))
        found += _ruff(table_in(tool, "ruff"))
        found += _mypy_table(table_in(tool, "mypy"))
        found += _bandit(table_in(tool, "bandit"))
        pytest_table = dict(table_in(tool, "pytest"))
        pytest_table.update(table_in(tool, "pytest", "ini_options"))
        found += _pytest(pytest_table)
    else:
        found += _ruff(data)
    return found


#: Where an INI file keeps coverage's settings: file name -> its run and report sections.
_INI_COVERAGE = {
    ".coveragerc": ("run", "report"),
    "setup.cfg": ("coverage:run", "coverage:report"),
    "tox.ini": ("coverage:run", "coverage:report"),
}
#: Where an INI file keeps pytest's settings: file name -> section.
_INI_PYTEST = {"pytest.ini": "pytest", "tox.ini": "pytest", "setup.cfg": "tool:pytest"}
#: INI files mypy reads its ``[mypy]`` and ``[mypy-<module>]`` sections from.
_INI_MYPY = frozenset({"setup.cfg", "mypy.ini", ".mypy.ini"})


def _from_ini(name: str, parser: configparser.ConfigParser) -> list[Setting]:
    def section(title: str) -> Mapping[str, str]:
        return parser[title] if parser.has_section(title) else {}

    found: list[Setting] = []
    if name in _INI_COVERAGE:
        run, report = _INI_COVERAGE[name]
        found += _coverage(section(run), section(report))
    if name in _INI_MYPY:
        found += _mypy_sections(parser)
    if name == ".bandit":
        found += _bandit(section("bandit"))
    if name in _INI_PYTEST:
        found += _pytest(section(_INI_PYTEST[name]))
    return found


def _mypy_sections(parser: configparser.ConfigParser) -> list[Setting]:
    """``[mypy]`` for all modules, ``[mypy-<pattern>]`` for the modules it names."""
    found: list[Setting] = []
    for title in parser.sections():
        if title == "mypy":
            found += _mypy_flags(parser[title], "")
        elif title.startswith("mypy-"):
            found += _mypy_flags(parser[title], title.removeprefix("mypy-"))
    return found


def _items(value: object) -> frozenset[str]:
    """A list setting as a set of strings; INI lists are split on lines and commas."""
    if isinstance(value, str):
        return frozenset(part.strip() for part in re.split(r"[\n,]", value) if part.strip())
    if isinstance(value, Iterable):
        return frozenset(str(part).strip() for part in value if str(part).strip())
    return frozenset()


def _number(value: object) -> float | None:
    if is_number(value):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


#: The spellings of a boolean an INI file may use, as configparser reads them.
_FLAG_WORDS = {
    **dict.fromkeys(("true", "1", "yes", "on"), True),
    **dict.fromkeys(("false", "0", "no", "off"), False),
}


def _flag(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    return _FLAG_WORDS.get(value.strip().lower()) if isinstance(value, str) else None


def _lists(
    tool: str, table: Mapping[str, object], keys: Iterable[str], prefix: str = ""
) -> list[Setting]:
    """The list settings among ``keys`` that ``table`` holds, each as its set of items."""
    return [Setting(tool, f"{prefix}{key}", _items(table[key])) for key in keys if key in table]


def _coverage(run: Mapping[str, object], report: Mapping[str, object]) -> list[Setting]:
    found = _lists("coverage", run, ("omit",))
    found += _lists("coverage", report, ("omit", "exclude_lines", "exclude_also"), "report ")
    number = _number(report.get("fail_under"))
    if number is not None:
        found.append(Setting("coverage", "fail_under", number))
    return found


_RUFF_LISTS = ("ignore", "extend-ignore", "select", "extend-select", "exclude", "extend-exclude")
_RUFF_FILE_IGNORES = ("per-file-ignores", "extend-per-file-ignores")


def _ruff(table: Mapping[str, object]) -> list[Setting]:
    found: list[Setting] = []
    for where in (table, table_in(table, "lint")):
        found += _lists("ruff", where, _RUFF_LISTS)
        found += _ruff_file_ignores(where)
    merged: dict[str, Setting] = {}
    for setting in found:  # `lint.ignore` and the older top-level `ignore` add up
        old = merged.get(setting.key)
        both = joined(old, setting) if old is not None else None
        merged[setting.key] = both or setting
    return list(merged.values())


def _ruff_file_ignores(table: Mapping[str, object]) -> list[Setting]:
    """``per-file-ignores`` as ``pattern:code`` pairs, one per file pattern and rule."""
    found: list[Setting] = []
    for key in _RUFF_FILE_IGNORES:
        files = table.get(key)
        if isinstance(files, Mapping):
            pairs = {
                f"{pattern}:{code}" for pattern, codes in files.items() for code in _items(codes)
            }
            found.append(Setting("ruff", key, frozenset(pairs)))
    return found


def joined(old: Setting, new: Setting) -> Setting | None:
    """Two list settings of the same key as one (the items of both); None for other values."""
    if isinstance(old.value, frozenset) and isinstance(new.value, frozenset):
        return dataclasses.replace(new, value=old.value | new.value)
    return None


def _mypy_table(table: Mapping[str, object]) -> list[Setting]:
    found = _mypy_flags(table, "")
    overrides = table.get("overrides")
    if isinstance(overrides, list):
        for override in overrides:
            if isinstance(override, Mapping):
                modules = override.get("module")
                scope = ",".join(sorted(_items(modules if modules is not None else "")))
                found += _mypy_flags(override, scope or "?")
    return found


def _mypy_flags(table: Mapping[str, object], scope: str) -> list[Setting]:
    found: list[Setting] = []
    for key, value in table.items():
        key = key.replace("-", "_")
        if key in ("disable_error_code", "enable_error_code", "exclude"):
            found.append(Setting("mypy", key, _items(value), scope))
        elif key == "follow_imports" and isinstance(value, str):
            found.append(Setting("mypy", key, value.strip(), scope))
        elif (flag := _flag(value)) is not None:
            found.append(Setting("mypy", key, flag, scope))
    return found


def _bandit(table: Mapping[str, object]) -> list[Setting]:
    return _lists("bandit", table, ("skips", "exclude_dirs", "exclude"))


def _pytest(settings: Mapping[str, object]) -> list[Setting]:
    """pytest's settings, each ``-o key=value`` of ``addopts`` in place of its key (review s17d,
    finding 5: ``addopts = "-o python_functions=check_*"`` changed the key unread)."""
    table = {**settings, **overrides(settings.get("addopts"))}
    found: list[Setting] = []
    if "addopts" in table:
        value = table["addopts"]
        text = " ".join(value) if isinstance(value, list) else str(value)
        found.append(Setting("pytest", "addopts", text))
    found += _lists("pytest", table, _PYTEST_LISTS)
    found += [
        Setting("pytest", key, " ".join(sorted(_items(table[key]))))
        for key in _PYTEST_PATTERNS
        if key in table
    ]
    strict = _flag(table.get("xfail_strict"))
    if strict is not None:
        found.append(Setting("pytest", "xfail_strict", strict))
    return found


_PYTEST_LISTS = ("testpaths", "norecursedirs")
#: Collection patterns, compared as one normalized string each.
_PYTEST_PATTERNS = ("python_files", "python_classes", "python_functions")
