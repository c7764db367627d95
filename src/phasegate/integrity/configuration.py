"""Configuration weakened by the change: tool settings loosened so a problem stops counting.

The settings of every configuration file at the root (:mod:`~phasegate.integrity.settings_files`)
are merged at the base and in the work tree (a setting moved from ``setup.cfg`` to
``pyproject.toml`` is not a change) and compared key by key, each in the direction that loosens
it: coverage ``omit`` and ``exclude_lines`` grown or ``fail_under`` lowered; ruff ``ignore`` /
``extend-ignore`` / ``per-file-ignores`` / ``exclude`` grown or ``select`` shrunk (naming the
``S`` rules the security check relies on); mypy ``ignore_errors`` (or another loosening flag)
turned on, a strictness flag turned off, error codes disabled, for all modules or in an
override; bandit ``skips`` and exclusions grown; pytest ``addopts`` that drop tests or plugins,
``testpaths`` shrunk, ``norecursedirs`` grown, collection patterns changed, ``xfail_strict``
turned off.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from phasegate.integrity.settings_files import SETTINGS_FILES, Setting, joined, read_settings
from phasegate.integrity.settings_readers import edited_nested_ruff, reader_tricks
from phasegate.integrity.sources import ChangedSources
from phasegate.integrity.trick import Trick, line_of, listed

__all__ = ["configuration_tricks"]

#: Set-valued settings that loosen the check as they grow: (tool, key) -> what it means.
_LOOSER_AS_GROWS: dict[tuple[str, str], str] = {
    ("coverage", "omit"): "the omitted files' missing coverage no longer counts",
    ("coverage", "report omit"): "the omitted files' missing coverage no longer counts",
    ("coverage", "report exclude_lines"): "the excluded lines' missing coverage no longer counts",
    ("coverage", "report exclude_also"): "the excluded lines' missing coverage no longer counts",
    ("ruff", "ignore"): "the linter no longer reports them",
    ("ruff", "extend-ignore"): "the linter no longer reports them",
    ("ruff", "per-file-ignores"): "the linter no longer reports them in those files",
    ("ruff", "extend-per-file-ignores"): "the linter no longer reports them in those files",
    ("ruff", "exclude"): "the linter no longer reads those files",
    ("ruff", "extend-exclude"): "the linter no longer reads those files",
    ("mypy", "disable_error_code"): "the type checker no longer reports them",
    ("mypy", "exclude"): "the type checker no longer reads those files",
    ("bandit", "skips"): "the security check no longer reports them",
    ("bandit", "exclude_dirs"): "the security check no longer reads those folders",
    ("bandit", "exclude"): "the security check no longer reads those files",
    ("pytest", "norecursedirs"): "pytest no longer collects tests there",
}
#: Set-valued settings that loosen the check as they shrink.
_LOOSER_AS_SHRINKS: dict[tuple[str, str], str] = {
    ("ruff", "select"): "the linter no longer checks them",
    ("ruff", "extend-select"): "the linter no longer checks them",
    ("mypy", "enable_error_code"): "the type checker no longer checks them",
    ("pytest", "testpaths"): "pytest no longer collects tests there",
}
#: mypy flags that loosen when turned on; the others named ``_STRICT_MYPY`` loosen when off.
_LOOSE_MYPY = frozenset(
    {"ignore_errors", "allow_untyped_defs", "allow_untyped_calls", "allow_untyped_globals",
     "allow_incomplete_defs", "allow_any_generics", "allow_subclassing_any", "implicit_optional",
     "implicit_reexport", "allow_redefinition"}
)  # fmt: skip
_STRICT_MYPY = re.compile(
    r"^(strict|strict_\w+|disallow_\w+|warn_\w+|check_untyped_defs|extra_checks|no_implicit_\w+)$"
)
#: pytest options in ``addopts`` that leave tests or plugins (``-p no:...``) out of the run, or
#: load a plugin (``-p pkg.module``: its hooks can change what a test is reported as).
#: ``--base`` moves what the change is judged against (review finding 18: ``--base=HEAD``).
_WITH_VALUE = frozenset(
    {"-k", "-m", "--deselect", "--ignore", "--ignore-glob", "-p", "--maxfail", "--base"}
)
#: pytest's collection rules when the configuration sets none.
_COLLECTION_DEFAULTS = {
    "python_files": "test_*.py *_test.py",
    "python_classes": "Test",
    "python_functions": "test",
}
_FLAGS = frozenset(
    {"--lf", "--last-failed", "--sw", "--stepwise", "--co", "--collect-only", "--noconftest",
     "--exitfirst", "-x"}
)  # fmt: skip


@dataclass(frozen=True)
class _Merged:
    """A setting as all the configuration files hold it together, and the file it came from."""

    setting: Setting
    path: str


_Settings = dict[tuple[str, str, str], _Merged]


def configuration_tricks(
    sources: ChangedSources, security_rules: Iterable[str] = ("S",)
) -> list[Trick]:
    """Each setting the change loosens, at the file and line that holds it, and each tool it
    makes read another file (:mod:`~phasegate.integrity.settings_readers`)."""
    switched = reader_tricks(sources) + _nested_ruff_loosened(sources, tuple(security_rules))
    changed = [name for name in sources.paths if name in SETTINGS_FILES]
    if not changed:
        return switched
    present = _present_files(sources, changed)
    base = _merge(
        present,
        lambda name: sources.base_text(name) if name in changed else sources.head_text(name),
    )
    head = _merge(present, sources.head_text)
    return [
        *switched,
        *_loosened_tricks(base, head, sources, tuple(security_rules)),
        *_removed_tricks(base, head),
    ]


def _nested_ruff_loosened(sources: ChangedSources, security: tuple[str, ...]) -> list[Trick]:
    """Each ruff setting loosened in a configuration below the root the change edited."""
    tricks: list[Trick] = []
    for path in edited_nested_ruff(sources):
        was = _ruff_settings(path, sources.base_text(path))
        for key, now in _ruff_settings(path, sources.head_text(path)).items():
            message = _loosened(now, was.get(key), security)
            line = _key_line(sources.head_text(path) or "", now.key.split()[-1])
            tricks += (
                [Trick("configuration", "ruff-loosened", path, line, message)] if message else []
            )
    return tricks


def _ruff_settings(path: str, text: str | None) -> dict[tuple[str, str, str], Setting]:
    found = read_settings(path, text or "")
    return {key: setting for key, setting in found.items() if setting.tool == "ruff"}


def _present_files(sources: ChangedSources, changed: list[str]) -> list[str]:
    """The settings files to merge: those the change touched, and those in the work tree."""
    return [
        name
        for name in sorted(SETTINGS_FILES)
        if name in changed or sources.head_text(name) is not None
    ]


def _loosened_tricks(
    base: _Settings, head: _Settings, sources: ChangedSources, security: tuple[str, ...]
) -> list[Trick]:
    """A trick for each setting still there that the change loosened, at its line."""
    tricks: list[Trick] = []
    for key, now in head.items():
        was = base.get(key)
        message = _loosened(now.setting, was.setting if was else None, security)
        if message is not None:
            line = _key_line(sources.head_text(now.path) or "", now.setting.key.split()[-1])
            tricks.append(
                Trick("configuration", f"{now.setting.tool}-loosened", now.path, line, message)
            )
    return tricks


def _removed_tricks(base: _Settings, head: _Settings) -> list[Trick]:
    """A trick for each deleted setting whose absence loosens; mypy flags grouped by file."""
    strict = _strict_scopes(head)
    tricks: list[Trick] = []
    strict_flags: dict[str, list[Setting]] = {}  # file -> mypy strictness flags removed
    for key, was in base.items():
        if key in head or _kept_by_strict(was.setting, strict):
            continue
        if _is_strict_flag(was.setting):
            strict_flags.setdefault(was.path, []).append(was.setting)
        else:
            tricks += _setting_removed(was)
    tricks += [_strict_flags_removed(path, flags) for path, flags in strict_flags.items()]
    return tricks


def _setting_removed(was: _Merged) -> list[Trick]:
    """A trick for a deleted setting whose absence loosens the check; none otherwise."""
    message = _removed(was.setting)
    if not message:
        return []
    return [Trick("configuration", f"{was.setting.tool}-loosened", was.path, None, message)]


def _strict_flags_removed(path: str, flags: list[Setting]) -> Trick:
    """One trick per file: a mypy section deleted takes all its flags with it."""
    names = listed([f"{flag.key}{_where(flag)}" for flag in flags])
    message = f"mypy {names} removed: the type checker checks less"
    return Trick("configuration", "mypy-loosened", path, None, message)


def _strict_scopes(head: _Settings) -> set[str]:
    """The scopes ("" for all modules) where mypy's ``strict = true`` is on in the work tree."""
    return {
        s.setting.scope
        for s in head.values()
        if s.setting.tool == "mypy" and s.setting.key == "strict" and s.setting.value is True
    }


def _kept_by_strict(setting: Setting, strict: set[str]) -> bool:
    """`strict = true` turns the strictness flags on: one removed beside it loosens nothing."""
    return setting.tool == "mypy" and ("" in strict or setting.scope in strict)


def _is_strict_flag(setting: Setting) -> bool:
    return (
        setting.tool == "mypy" and setting.value is True and bool(_STRICT_MYPY.match(setting.key))
    )


def _merge(names: list[str], read: Callable[[str], str | None]) -> _Settings:
    """The settings of the files together: a list setting in several files holds the items
    of all (at the first file's path); any other setting is the first file's."""
    merged: _Settings = {}
    for name in names:
        text = read(name)
        if text is None:
            continue
        for key, setting in read_settings(name, text).items():
            old = merged.get(key)
            if old is None:
                merged[key] = _Merged(setting, name)
                continue
            both = joined(old.setting, setting)
            if both is not None:
                merged[key] = _Merged(both, old.path)
    return merged


def _where(setting: Setting) -> str:
    return f" for {setting.scope}" if setting.scope else ""


def _loosened(now: Setting, was: Setting | None, security: tuple[str, ...]) -> str | None:
    """The sentence for a setting the change loosened; ``None`` when it did not."""
    old = was.value if was is not None else None
    if now.tool == "mypy":
        return _mypy_loosened(now, old)
    if now.tool == "pytest":
        return _pytest_loosened(now, old)
    return _lists_loosened(now, old, security)


def _lists_loosened(now: Setting, old: object, security: tuple[str, ...]) -> str | None:
    """A list grown or shrunk in the loosening direction, or coverage's ``fail_under`` lowered."""
    pair, value = (now.tool, now.key), now.value
    if isinstance(value, frozenset):
        if pair in _LOOSER_AS_GROWS:
            return _grown(now, value, old, security)
        return _shrunk(now, value, old) if pair in _LOOSER_AS_SHRINKS else None
    lowered = isinstance(value, float) and isinstance(old, float) and value < old
    if pair == ("coverage", "fail_under") and lowered:
        return f"coverage fail_under lowered from {old:g} to {value:g}: less coverage passes"
    return None


def _grown(
    now: Setting, value: frozenset[str], old: object, security: tuple[str, ...]
) -> str | None:
    """The items a looser-as-it-grows list gained, naming the security rules it silences."""
    added = sorted(value - (old if isinstance(old, frozenset) else frozenset()))
    if not added:
        return None
    message = f"{now.tool} {now.key}{_where(now)} adds {listed(added)}: "
    message += _LOOSER_AS_GROWS[(now.tool, now.key)]
    silenced = [code for code in added if now.tool == "ruff" and _is_rule(code, security)]
    if silenced:
        message += f"; {listed(silenced)} silence(s) rules the security check relies on"
    return message


def _shrunk(now: Setting, value: frozenset[str], old: object) -> str | None:
    """The items a looser-as-it-shrinks list lost (a list that was not there lost none)."""
    dropped = sorted(old - value) if isinstance(old, frozenset) else []
    if not dropped:
        return None
    shown = f"{now.tool} {now.key}{_where(now)}"
    return f"{shown} drops {listed(dropped)}: {_LOOSER_AS_SHRINKS[(now.tool, now.key)]}"


def _mypy_loosened(now: Setting, old: object) -> str | None:
    key, value, where = now.key, now.value, _where(now)
    if isinstance(value, bool):
        return _mypy_flag_loosened(key, value, old, where)
    if key == "follow_imports" and value in ("skip", "silent") and old != value:
        return f"mypy follow_imports = {value}{where}: errors in imported modules stop counting"
    return _lists_loosened(now, old, ())


def _mypy_flag_loosened(key: str, value: bool, old: object, where: str) -> str | None:
    """A loosening flag turned on, or a strictness flag turned off."""
    if key in _LOOSE_MYPY and value and old is not True:
        return f"mypy {key} = true added{where}: the type checker stops reporting errors"
    if _STRICT_MYPY.match(key) and not value and old is True:
        return f"mypy {key} turned off{where}: the type checker checks less"
    return None


def _pytest_loosened(now: Setting, old: object) -> str | None:
    key, value = now.key, now.value
    if key == "addopts" and isinstance(value, str):
        return _addopts_loosened(value, old)
    if key == "xfail_strict" and value is False and old is True:
        return "pytest xfail_strict turned off: an expected failure that passes stops failing"
    if key in _COLLECTION_DEFAULTS:
        return _collection_rule_narrowed(key, value, old)
    return _lists_loosened(now, old, ())


def _collection_rule_narrowed(key: str, value: object, old: object) -> str | None:
    """A pattern of ``python_files``/``_classes``/``_functions`` the base collected by (its
    setting, else pytest's default) that the work tree's no longer has."""
    was = old if old is not None else _COLLECTION_DEFAULTS[key]
    if _patterns(was) <= _patterns(value):
        return None
    return f"pytest {key} changed from {was!r} to {value!r}: tests may no longer be collected"


def _patterns(value: object) -> set[str]:
    """The patterns of a collection rule, written as one string or as a list."""
    if isinstance(value, str):
        return set(value.split())
    return {str(item) for item in value} if isinstance(value, list) else {str(value)}


def _addopts_loosened(value: str, old: object) -> str | None:
    added = _dropping(value) - _dropping(old if isinstance(old, str) else "")
    if not added:
        return None
    return (
        f"pytest addopts adds {listed(sorted(added))}: tests or plugins are left out, a "
        "plugin that can change outcomes is loaded, or the base the change is judged against "
        "is moved"
    )


def _removed(was: Setting) -> str:
    """The sentence for a setting the change deleted, when deleting it loosens the check."""
    if (was.tool, was.key) in _LOOSER_AS_SHRINKS and was.value:
        return f"{was.tool} {was.key} removed: {_LOOSER_AS_SHRINKS[(was.tool, was.key)]}"
    if (was.tool, was.key) == ("coverage", "fail_under"):
        return "coverage fail_under removed: any coverage passes"
    if (was.tool, was.key) == ("pytest", "xfail_strict") and was.value is True:
        return (
            "pytest xfail_strict removed: an expected failure that passes no longer fails the run"
        )
    return ""


def _dropping(addopts: str) -> set[str]:
    """The options of ``addopts`` that leave tests or plugins out, with their values."""
    try:
        words = shlex.split(addopts)
    except ValueError:
        words = addopts.split()
    found: set[str] = set()
    for index, word in enumerate(words):
        following = words[index + 1] if index + 1 < len(words) else ""
        found.update(_dropping_option(word, following))
    return found


def _dropping_option(word: str, following: str) -> list[str]:
    """``word`` as an option that leaves tests or plugins out, or loads a plugin (with its
    value), else nothing."""
    option, _, attached = word.partition("=")
    if option in _FLAGS:
        return [option]
    if option in _WITH_VALUE:
        value = attached or following
        return [f"{option} {value}".strip()]
    if word[:2] in ("-k", "-m", "-p") and len(word) > 2:
        return [word]
    return []


def _is_rule(item: str, security: tuple[str, ...]) -> bool:
    code = item.rsplit(":", 1)[-1]
    return code == "ALL" or any(re.fullmatch(rf"{prefix}\d*", code) for prefix in security)


def _key_line(text: str, key: str) -> int | None:
    """The line that sets ``key`` (quoted or not, with ``=`` or ``:``), in TOML or INI."""
    return line_of(text, rf"[\"']?{re.escape(key)}[\"']?[ \t]*[=:]")
