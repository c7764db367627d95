"""Changes to the gate itself: gate files, ``[tool.phasegate]`` and the baseline of findings.

A gate file (a changed ``.toml`` file with a ``[checks]`` table) or a check override in
``[tool.phasegate.checks.<id>]`` is compared check by check with the base: a check removed, no
longer required, allowed to be skipped, its conditions removed or loosened (``line_rate < 0.8``
to ``< 0.5``; a condition on a check's defaults compares with the defaults the check declares),
its ``severity`` option raised; a new gate file is compared with the gate its name asked for at
the base (a project's gate of that name, or the built-in one it now shadows).
``[tool.phasegate]`` may also switch the gate (``gate``), change where gates are found
(``gate_paths``), leave files out of every check (``exclude``) or grow the baseline file of
accepted findings. Each is a
trick marked as a gate change: the project's policy may allow it when an approved review is
recorded for the commit (see :mod:`phasegate.gates.checks.integrity`).
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import PurePosixPath
from typing import TypeGuard

from phasegate import tomlfile
from phasegate.gates.protocol import CheckError
from phasegate.integrity.sources import ChangedSources
from phasegate.integrity.trick import Trick, line_of
from phasegate.jsonvalues import is_int, is_number, value_at

__all__ = ["excluded_at_base", "gate_tricks"]

_REQUIRED_RANK = {True: 2, "in-pull-request": 1, False: 0}
_SEVERITY_RANK = {"low": 0, "medium": 1, "high": 2, "critical": 3}
_DEFAULT_BASELINE = "phasegate-baseline.json"


def gate_tricks(sources: ChangedSources) -> list[Trick]:
    """Each way the change loosens the gate, its overrides or its baseline."""
    tricks: list[Trick] = []
    for path in sources.paths:
        if path.endswith(".toml") and PurePosixPath(path).name != "pyproject.toml":
            tricks.extend(_gate_file(sources, path))
    if "pyproject.toml" in sources.paths:
        tricks.extend(_phasegate_table(sources))
    tricks.extend(_baseline(sources))
    return tricks


def excluded_at_base(sources: ChangedSources, patterns: Sequence[str]) -> list[str]:
    """The ``patterns`` of ``[tool.phasegate] exclude`` the base had too: a change cannot leave
    its own files (its ``pyproject.toml`` first) out of the judgement of it."""
    was = _table(_toml(sources.base_text("pyproject.toml"), "pyproject.toml"))
    return [pattern for pattern in patterns if pattern in _strings(was.get("exclude"))]


def _toml(text: str | None, path: str) -> dict[str, object] | None:
    if text is None:
        return None
    try:
        return tomlfile.loads(text)
    except tomlfile.TOMLDecodeError as exc:
        raise CheckError(f"{path} is not valid TOML: {exc}") from exc


def _checks(data: Mapping[str, object] | None) -> dict[str, dict[str, object]] | None:
    checks = data.get("checks") if data is not None else None
    if not isinstance(checks, Mapping):
        return None
    return {name: dict(spec) for name, spec in checks.items() if isinstance(spec, Mapping)}


def _gate_file(sources: ChangedSources, path: str) -> list[Trick]:
    head_text = sources.head_text(path)
    was = _gate_at_base(sources, path)
    now = _checks(_toml(head_text, path))
    if was is None:
        return []  # a new gate file of a new name, or not a gate file: it loosens no gate
    if now is None:
        return [Trick("configuration", "gate-loosened", path, None, "gate file deleted", True)]
    tricks: list[Trick] = []
    for check_id, old_spec in was.items():
        if check_id not in now:
            message = f"the {check_id} check removed from the gate: its problems no longer count"
            tricks.append(Trick("configuration", "gate-loosened", path, None, message, True))
            continue
        line = line_of(head_text or "", rf"\[checks\.{re.escape(check_id)}\]")
        tricks += [
            Trick("configuration", "gate-loosened", path, line, message, True)
            for message in _spec_loosened(check_id, old_spec, now[check_id], override=False)
        ]
    return tricks


def _gate_at_base(sources: ChangedSources, path: str) -> dict[str, dict[str, object]] | None:
    """The checks of the gate file at the base; for a new file in a folder of ``gate_paths``,
    of the gate its name asked for at the base."""
    base_text = sources.base_text(path)
    if base_text is None:
        return _named_gate(sources, path) if _in_gate_paths(sources, path) else None
    return _checks(_toml(base_text, path))


def _in_gate_paths(sources: ChangedSources, path: str) -> bool:
    """Whether ``path`` is in a folder the work tree's ``gate_paths`` lists."""
    table = _table(_toml(sources.head_text("pyproject.toml"), "pyproject.toml"))
    folders = {PurePosixPath(folder) for folder in _string_list(table.get("gate_paths"))}
    return PurePosixPath(path).parent in folders


def _named_gate(sources: ChangedSources, path: str) -> dict[str, dict[str, object]] | None:
    """The checks of the gate a new gate file's name asked for at the base: a file of that name
    in a folder of the base's ``gate_paths``, else the built-in gate. A project's folders are
    searched before the built-in gates, so a new ``ci/twelve-check.toml`` replaces the built-in
    ``twelve-check`` when ``gate_paths`` lists ``ci``."""
    from phasegate.resources import bundled_path

    name = PurePosixPath(path).name
    folders = _table(_toml(sources.base_text("pyproject.toml"), "pyproject.toml"))
    for folder in _string_list(folders.get("gate_paths")):
        checks = _checks(_toml(sources.base_text(str(PurePosixPath(folder, name))), path))
        if checks is not None:
            return checks
    built_in = bundled_path("gates") / name
    return (
        _checks(_toml(built_in.read_text(encoding="utf-8"), name)) if built_in.is_file() else None
    )


def _string_list(value: object) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []


def _phasegate_table(sources: ChangedSources) -> list[Trick]:
    """``[tool.phasegate]`` loosened: another gate, files excluded, check overrides."""
    path = "pyproject.toml"
    head_text = sources.head_text(path) or ""
    was = _table(_toml(sources.base_text(path), path))
    now = _table(_toml(head_text, path))
    found = [
        *_gate_switched(was, now),
        *_gate_paths_changed(was, now),
        *_base_moved(was, now),
        *_exclude_grown(was, now),
        *_overrides_loosened(was, now),
    ]
    return [
        Trick("configuration", "gate-loosened", path, line_of(head_text, pattern), message, True)
        for message, pattern in found
    ]


#: A loosening of ``[tool.phasegate]``: the sentence, and the pattern of the line it is on.
_Loosening = tuple[str, str]


def _gate_switched(was: Mapping[str, object], now: Mapping[str, object]) -> list[_Loosening]:
    old_gate, new_gate = was.get("gate", "default"), now.get("gate", "default")
    if old_gate == new_gate:
        return []
    message = (
        f"[tool.phasegate] gate changed from {old_gate!r} to {new_gate!r}: another gate "
        "judges the change"
    )
    return [(message, r"gate\s*=")]


def _gate_paths_changed(was: Mapping[str, object], now: Mapping[str, object]) -> list[_Loosening]:
    """``gate_paths`` changed: a gate's name may now ask for another file (the first folder
    holding a file of that name wins, before the built-in gates)."""
    old, new = _string_list(was.get("gate_paths")), _string_list(now.get("gate_paths"))
    if old == new:
        return []
    message = (
        f"[tool.phasegate] gate_paths changed from {old} to {new}: a gate's name may now ask "
        "for another gate file"
    )
    return [(message, r"gate_paths\s*=")]


def _base_moved(was: Mapping[str, object], now: Mapping[str, object]) -> list[_Loosening]:
    """``base`` set or changed: judged against ``HEAD`` (review finding 18), the change shows
    none of its lines to integrity, mutation and the new-code conditions."""
    old, new = was.get("base"), now.get("base")
    if old == new:
        return []
    message = (
        f"[tool.phasegate] base set to {new!r}: the change is judged against another commit "
        f"(it was {old!r}), which decides the lines integrity, mutation and new code read"
    )
    return [(message, r"base\s*=")]


def _exclude_grown(was: Mapping[str, object], now: Mapping[str, object]) -> list[_Loosening]:
    excluded = sorted(_strings(now.get("exclude")) - _strings(was.get("exclude")))
    if not excluded:
        return []
    message = (
        f"[tool.phasegate] exclude adds {', '.join(excluded)}: every check leaves those files out"
    )
    return [(message, r"exclude\s*=")]


def _overrides_loosened(was: Mapping[str, object], now: Mapping[str, object]) -> list[_Loosening]:
    """``[tool.phasegate.checks.<id>]`` overrides that loosen the gate's checks."""
    old_checks = _checks(was) or {}
    return [
        (
            f"[tool.phasegate.checks.{check_id}]: {message}",
            rf"\[tool\.phasegate\.checks\.{re.escape(check_id)}\]",
        )
        for check_id, spec in (_checks(now) or {}).items()
        for message in _spec_loosened(check_id, old_checks.get(check_id, {}), spec, override=True)
    ]


def _table(data: Mapping[str, object] | None) -> dict[str, object]:
    """``[tool.phasegate]`` of a parsed ``pyproject.toml`` (empty without one)."""
    return tomlfile.table_in(data or {}, "tool", "phasegate")


def _strings(value: object) -> set[str]:
    return {str(item) for item in value} if isinstance(value, list) else set()


def _spec_loosened(
    check_id: str, was: Mapping[str, object], now: Mapping[str, object], *, override: bool
) -> list[str]:
    """What loosened in one check's spec. An override's missing key keeps the gate's value."""
    found = [
        message
        for message in (
            _no_longer_required(check_id, was, now) if "required" in now or not override else "",
            _skip_now_allowed(check_id, was, now),
            _severity_raised(check_id, was, now),
            _sample_changed(check_id, was, now),
        )
        if message
    ]
    if "fail_when" in now or "fail_when" in was:
        found.extend(_conditions_loosened(check_id, was.get("fail_when"), now.get("fail_when")))
    return found


def _no_longer_required(check_id: str, was: Mapping[str, object], now: Mapping[str, object]) -> str:
    old, new = was.get("required", True), now.get("required", True)
    if _required_rank(new) >= _required_rank(old):
        return ""
    return (
        f"the {check_id} check is no longer required (required = {json.dumps(new)}): "
        "its failure no longer fails the gate"
    )


def _required_rank(value: object) -> int:
    """How required a check is: 2 (always, also for a value phasegate does not know) to 0."""
    return _REQUIRED_RANK.get(value, 2) if isinstance(value, (bool, int, float, str)) else 2


def _skip_now_allowed(check_id: str, was: Mapping[str, object], now: Mapping[str, object]) -> str:
    if now.get("skip_allowed") is True and was.get("skip_allowed") is not True:
        return f"the {check_id} check may now be skipped (skip_allowed = true)"
    return ""


def _severity_raised(check_id: str, was: Mapping[str, object], now: Mapping[str, object]) -> str:
    old_level = _severity(was.get("options"))
    new_level = _severity(now.get("options"))
    if new_level is None:
        return ""
    if _SEVERITY_RANK.get(new_level, -1) <= _SEVERITY_RANK.get(old_level or "low", 0):
        return ""
    return (
        f"the {check_id} check's severity raised from {old_level or 'its default'} to "
        f"{new_level}: findings below it no longer count"
    )


#: The mutation check's options that draw its sample of mutants, with their defaults: a lower
#: ``budget`` or ``per_line`` draws fewer, another ``seed`` other ones (chosen until all die).
_SAMPLE_DEFAULTS: dict[str, object] = {"budget": 25, "per_line": 2, "seed": 0}


def _sample_changed(check_id: str, was: Mapping[str, object], now: Mapping[str, object]) -> str:
    changed = _sample_changes(was, now) if check_id == "mutation" else []
    if not changed:
        return ""
    return f"the mutation check's {', '.join(changed)}: fewer or other mutants are drawn"


def _sample_changes(was: Mapping[str, object], now: Mapping[str, object]) -> list[str]:
    old, new = _sample(was.get("options")), _sample(now.get("options"))
    return [f"{key} {old[key]} to {new[key]}" for key in old if _drawn_otherwise(key, old, new)]


def _sample(options: object) -> dict[str, object]:
    """The sample options given (an override's missing one keeps its default)."""
    return {key: value_at(options, key) or default for key, default in _SAMPLE_DEFAULTS.items()}


def _drawn_otherwise(key: str, old: Mapping[str, object], new: Mapping[str, object]) -> bool:
    """A seed changed, or a budget or per-line count lowered."""
    if key == "seed":
        return new[key] != old[key]
    return _looser("<", old[key], new[key])


def _severity(options: object) -> str | None:
    value = value_at(options, "severity")
    return value if isinstance(value, str) else None


def _conditions_loosened(check_id: str, was: object, now: object) -> list[str]:
    old, new = _conditions_of(check_id, was), _conditions_of(check_id, now)
    if old is None or new is None:
        return []  # a check phasegate does not know: its defaults cannot be compared
    return [
        message for condition in old if (message := _condition_loosened(check_id, condition, new))
    ]


Condition = tuple[str, str, str, object]


def _condition_loosened(check_id: str, condition: Condition, new: list[Condition]) -> str:
    """How one condition of the base fares in the work tree: removed, loosened, or kept ("")."""
    metric, scope, op, value = condition
    same = [c for c in new if c[:3] == (metric, scope, op)]
    shown = f"`{metric} {op} {value}` {'on new code' if scope == 'new' else 'overall'}"
    if not same:
        return f"the {check_id} check's condition {shown} removed"
    if all(_looser(op, value, c[3]) for c in same):
        return (
            f"the {check_id} check's condition {shown} loosened to "
            f"`{metric} {op} {same[0][3]}`: less fails"
        )
    return ""


def _conditions_of(check_id: str, fail_when: object) -> list[Condition] | None:
    """A check's ``fail_when`` conditions, or the check's defaults when it sets none."""
    return _conditions(fail_when) if fail_when is not None else _default_conditions(check_id)


def _conditions(value: object) -> list[Condition] | None:
    if not isinstance(value, list):
        return None
    return [
        (str(c.get("metric")), str(c.get("scope", "overall")), str(c.get("op")), c.get("value"))
        for c in value
        if isinstance(c, Mapping)
    ]


def _default_conditions(check_id: str) -> list[Condition] | None:
    from phasegate.gates.registry import BUILT_IN, CheckRegistry

    if check_id not in BUILT_IN:
        return None
    check = CheckRegistry().get(check_id).check
    return [(c.metric, c.scope, c.op, c.value) for c in check.default_conditions]


def _looser(op: str, old: object, new: object) -> bool:
    """Whether a condition failing when ``actual <op> new`` fails less than with ``old``."""
    looser = _LOOSER_BOUND.get(op)
    if looser is not None and is_number(old) and is_number(new):
        return looser(new, old)
    return old != new


#: For a condition ``actual <op> bound``: whether a new bound fails less than the old one.
_LOOSER_BOUND: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.lt,
    ">": operator.gt,
    ">=": operator.gt,
}


def _baseline(sources: ChangedSources) -> list[Trick]:
    setting = _table(_toml(sources.head_text("pyproject.toml"), "pyproject.toml")).get("baseline")
    path = setting if isinstance(setting, str) else _DEFAULT_BASELINE
    if path not in sources.paths:
        return []
    was = _accepted(sources.base_text(path), path)
    now = _accepted(sources.head_text(path), path)
    if now <= was:
        return []
    return [
        Trick(
            "configuration",
            "baseline-grown",
            path,
            None,
            f"the baseline accepts {now - was} more finding(s) than at the base ({was} to "
            f"{now}): a finding added to the baseline is hidden, not fixed",
            True,
        )
    ]


def _accepted(text: str | None, path: str) -> int:
    """How many findings a baseline file accepts (0 when there is none)."""
    if text is None:
        return 0
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CheckError(f"{path} is not JSON: {exc}") from exc
    counts = [entry.get("count", 1) for entry in _baseline_entries(data, path)]
    whole = [count for count in counts if _is_count(count)]
    if len(whole) != len(counts):
        raise CheckError(f"{path} has an entry whose count is not a whole number of at least 1")
    return sum(whole)


def _baseline_entries(data: object, path: str) -> list[dict[str, object]]:
    entries = value_at(data, "entries")
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise CheckError(f"{path} has no list of entries: it is not a phasegate baseline")
    return entries


def _is_count(value: object) -> TypeGuard[int]:
    """A whole number of at least 1 (``True`` is not one)."""
    return is_int(value) and value >= 1
