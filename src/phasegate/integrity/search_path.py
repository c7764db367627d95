"""The folders pytest's settings put first on ``sys.path``, as the work tree has them.

:mod:`.shadows` asks where ``import calc`` looks before the project's own package. pytest's
``pythonpath`` setting (in the file pytest reads) inserts its entries so that the first listed
is first on ``sys.path`` (review s17r, and review s17d finding 10 for the order). The review of
session 17's diff (finding 5) put the test folder first without that key: ``addopts = "-o
'pythonpath=tests src'"`` overrides it (``-o``/``--override-ini``, the last one of a key wins,
as in pytest), so the override is read here in place of the key; :mod:`.settings_files`
reads the overrides of the other keys the configuration rules compare the same way.
"""

from __future__ import annotations

import configparser
import shlex
from collections.abc import Mapping
from itertools import pairwise
from pathlib import PurePosixPath

from phasegate import tomlfile
from phasegate.integrity.settings_readers import file_read_by
from phasegate.integrity.sources import ChangedSources

__all__ = ["OVERRIDE_OPTIONS", "override_value", "overrides", "pythonpath"]

#: pytest's options that override an ini key (``-o key=value``).
OVERRIDE_OPTIONS = frozenset({"-o", "--override-ini"})
_PYTHONPATH = "pythonpath"


def pythonpath(sources: ChangedSources) -> tuple[str, ...]:
    """The folders pytest's ``pythonpath`` setting (or its override in ``addopts``) puts on
    ``sys.path``, relative to the root, the first on ``sys.path`` first."""
    name = file_read_by("pytest", sources.head_text)
    settings = _pytest_settings(name, sources.head_text(name) or "") if name else {}
    override = _overridden(settings.get("addopts"), _PYTHONPATH)
    entries = override if override is not None else _listed(settings.get(_PYTHONPATH))
    return tuple(str(PurePosixPath(entry)) for entry in entries)


def override_value(word: str, following: str) -> str:
    """``key=value`` when ``word`` (with the word after it) overrides an ini key: ``-o
    key=value``, ``-okey=value``, ``--override-ini=key=value``; else ``""``."""
    option, _, attached = word.partition("=")
    if option in OVERRIDE_OPTIONS:
        return attached or following
    return word[2:] if word.startswith("-o") else ""


def _pytest_settings(name: str, text: str) -> Mapping[str, object]:
    return _toml_settings(text) if name.endswith(".toml") else _ini_settings(text)


def _toml_settings(text: str) -> Mapping[str, object]:
    """``[tool.pytest.ini_options]`` over ``[tool.pytest]`` over ``[pytest]``."""
    try:
        data = tomlfile.loads(text)
    except tomlfile.TOMLDecodeError:
        return {}  # the configuration check reports the file
    tables = (
        tomlfile.table_in(data, "pytest"),
        tomlfile.table_in(data, "tool", "pytest"),
        tomlfile.table_in(data, "tool", "pytest", "ini_options"),
    )
    return {key: value for table in tables for key, value in table.items()}


def _ini_settings(text: str) -> Mapping[str, object]:
    """``[pytest]`` or ``[tool:pytest]``."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}  # the configuration check reports the file
    sections = (name for name in ("pytest", "tool:pytest") if parser.has_section(name))
    return next((dict(parser[name]) for name in sections), {})


def _listed(value: object) -> list[str]:
    """A setting's entries: a list's items, or a string's words."""
    if isinstance(value, str):
        return value.split()
    return [str(entry) for entry in value] if isinstance(value, list) else []


def _overridden(addopts: object, key: str) -> list[str] | None:
    """The entries the last ``-o key=...`` of ``addopts`` sets, else None."""
    value = overrides(addopts).get(key)
    return None if value is None else value.split()


def overrides(addopts: object) -> dict[str, str]:
    """The ini keys ``-o key=value`` in ``addopts`` (a string or a TOML list) sets, the last
    one of a key winning, as in pytest."""
    pairs = [override_value(word, after) for word, after in pairwise([*_words(addopts), ""])]
    split = (pair.partition("=") for pair in pairs if "=" in pair)
    return {key.strip(): value for key, _, value in split}


def _words(addopts: object) -> list[str]:
    """``addopts`` as pytest splits it: a TOML list's items, or a string split as a shell does."""
    if isinstance(addopts, list):
        return [str(word) for word in addopts]
    try:
        return shlex.split(str(addopts or ""))
    except ValueError:
        return str(addopts).split()
