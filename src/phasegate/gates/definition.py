"""Gate definitions: TOML files naming the checks a gate requires and when each one fails.

A gate file looks like this (the built-in ones are in the ``gates/`` folder)::

    name = "default"
    description = "..."

    [checks.coverage]
    required = true                 # or false, or "in-pull-request"
    skip_allowed = false            # may the check report "skipped" (with its reason)?
    timeout_s = 600
    options = { source = ["src"] }  # check-specific, see docs/gates.md
    fail_when = [                   # replaces the check's default conditions
        { metric = "line_rate", scope = "new", op = "<", value = 0.8 },
    ]

Conditions are stated as failures: the check fails when ``actual <op> value`` holds. A
project tunes any gate from ``[tool.phasegate.checks.<id>]`` with the same keys, and adds its
own gate files through ``gate_paths``. A malformed file is a usage error (exit code 4) that
names the file and the key. A gate remembers which keys of each check the project's table
replaced (:meth:`GateDefinition.blame`), so that a bad value found when the gate is planned
(an unknown check id, a threshold of the wrong type for its metric) names the file it is in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field, PrivateAttr, ValidationError

from phasegate import tomlfile
from phasegate.errors import UsageError
from phasegate.gates import RECORD_ONLY
from phasegate.settings import Section, describe_errors

__all__ = [
    "RECORD_ONLY",
    "CheckOverride",
    "CheckSpec",
    "ConditionSpec",
    "GateDefinition",
    "GateSource",
    "find_gates",
    "load_gate",
]


Comparator = Literal["<", "<=", ">", ">=", "==", "!="]
Required = bool | Literal["in-pull-request"]


class ConditionSpec(Section):
    """Fail the check when ``<metric on scope> <op> <value>``."""

    metric: str = Field(min_length=1, description="a metric the check reports")
    scope: Literal["new", "overall"] = Field(
        default="overall", description="'new': lines changed against the base; 'overall': all"
    )
    op: Comparator = Field(description="how the actual value is compared with value")
    value: float | int | bool | str = Field(description="the threshold")


class CheckSpec(Section):
    """One check of a gate."""

    required: Required = Field(
        default=True,
        description="true: it must pass; false: it is reported only; 'in-pull-request': "
        "required when the run belongs to a pull request",
    )
    skip_allowed: bool = Field(
        default=False, description="whether a 'skipped' result (with its reason) is acceptable"
    )
    timeout_s: float | None = Field(
        default=None, gt=0, description="seconds before the check is stopped and reported as error"
    )
    options: dict[str, object] = Field(default_factory=dict, description="check-specific settings")
    fail_when: list[ConditionSpec] | None = Field(
        default=None, description="conditions that fail the check; replaces its defaults"
    )


class CheckOverride(Section):
    """``[tool.phasegate.checks.<id>]``: the keys given replace the gate's, for every gate."""

    required: Required | None = None
    skip_allowed: bool | None = None
    timeout_s: float | None = Field(default=None, gt=0)
    options: dict[str, object] | None = Field(
        default=None, description="merged over the gate's options, key by key"
    )
    fail_when: list[ConditionSpec] | None = None


class GateDefinition(Section):
    """A whole gate file."""

    name: str = Field(min_length=1)
    description: str = ""
    checks: dict[str, CheckSpec] = Field(min_length=1, description="the checks, by id")

    #: Per check id of ``[tool.phasegate.checks]``: the keys the project's table gave.
    _overridden: dict[str, frozenset[str]] = PrivateAttr(default_factory=dict)
    #: The file that table is in.
    _overrides_file: str = PrivateAttr(default="pyproject.toml")

    @property
    def overridden_checks(self) -> list[str]:
        """Every check id ``[tool.phasegate.checks]`` names, in the gate or not."""
        return sorted(self._overridden)

    def blame(self, check_id: str, key: str, gate_file: Path) -> tuple[str, str]:
        """``(file, dotted key)`` where ``checks.<check_id>.<key>...`` was written."""
        parts = key.split(".")
        given = self._overridden.get(check_id, frozenset())
        if key == "" or parts[0] in given or ".".join(parts[:2]) in given:
            dotted = f"tool.phasegate.checks.{check_id}" + (f".{key}" if key else "")
            return self._overrides_file, dotted
        return str(gate_file), f"checks.{check_id}.{key}"


#: What a gate's name may look like: it names ``gates/<name>.json`` and the kept copies.
_GATE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class GateSource:
    """Where a gate definition was found."""

    name: str
    path: Path
    origin: Literal["built-in", "project", "file"]


def find_gates(project_root: Path, gate_paths: Iterable[str] = ()) -> dict[str, GateSource]:
    """Every gate known to the project: its own folders first, then the built-in gates."""
    from phasegate.resources import bundled_path

    found: dict[str, GateSource] = {}
    root = project_root.resolve()
    for folder in gate_paths:
        directory = (root / folder).resolve()
        if not directory.is_relative_to(root):
            raise UsageError(
                f"{project_root / 'pyproject.toml'}: key tool.phasegate.gate_paths = "
                f"{folder!r} is not allowed: it resolves to {directory}, outside the project "
                f"root {root}; a folder named in the settings must stay inside the project"
            )
        for path in sorted(directory.glob("*.toml")):
            found.setdefault(path.stem, GateSource(path.stem, path, "project"))
    for path in sorted(bundled_path("gates").glob("*.toml")):
        found.setdefault(path.stem, GateSource(path.stem, path, "built-in"))
    return found


def load_gate(
    name_or_path: str,
    project_root: Path,
    *,
    gate_paths: Iterable[str] = (),
    overrides: Mapping[str, CheckOverride] | None = None,
    overrides_file: Path | None = None,
) -> tuple[GateDefinition, GateSource]:
    """The named gate (or the gate file at a path), with the project's overrides applied.

    ``overrides_file`` is the file ``overrides`` were read from, named in errors about them.
    """
    source = _locate(name_or_path, project_root, gate_paths)
    gate = _read(source.path)
    _refuse_bad_name(gate, source)
    applied = _apply_overrides(gate, overrides or {})
    applied._overridden = {
        check_id: _overridden_keys(override) for check_id, override in (overrides or {}).items()
    }
    applied._overrides_file = str(overrides_file or project_root / "pyproject.toml")
    return applied, source


def _refuse_bad_name(gate: GateDefinition, source: GateSource) -> None:
    """A usage error when the gate's name cannot name its verdict files or its file."""
    if not _GATE_NAME.match(gate.name):
        raise UsageError(
            f"{source.path}: key name = {gate.name!r} is not allowed: a gate's name becomes "
            "the name of its verdict files, so it starts with a letter or digit and holds "
            "only letters, digits, '.', '-' and '_'"
        )
    if gate.name != source.name and source.origin != "file":
        raise UsageError(
            f"{source.path}: key name = {gate.name!r} must match the file name "
            f"({source.name!r}), which is how the gate is asked for"
        )


def _overridden_keys(override: CheckOverride) -> frozenset[str]:
    """The keys the project's settings set for a check (``options.NAME`` for its options)."""
    return frozenset(
        [key for key in override.model_dump(exclude_none=True) if key != "options"]
        + [f"options.{name}" for name in override.options or {}]
    )


def _locate(name_or_path: str, project_root: Path, gate_paths: Iterable[str]) -> GateSource:
    if name_or_path.endswith(".toml"):
        path = (project_root / name_or_path).resolve()
        if not path.is_file():
            raise UsageError(f"gate file {path} does not exist")
        return GateSource(path.stem, path, "file")
    known = find_gates(project_root, gate_paths)
    if name_or_path not in known:
        names = ", ".join(sorted([*known, RECORD_ONLY]))
        raise UsageError(f"unknown gate {name_or_path!r}; known gates: {names}")
    return known[name_or_path]


def _read(path: Path) -> GateDefinition:
    try:
        document = tomlfile.loads(path.read_text(encoding="utf-8"))
    except tomlfile.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot be read: {exc}") from exc
    document.setdefault("name", path.stem)
    try:
        return GateDefinition.model_validate(document)
    except ValidationError as exc:
        raise UsageError(
            describe_errors(exc, model=GateDefinition, where=str(path), table="")
        ) from exc


def _apply_overrides(
    gate: GateDefinition, overrides: Mapping[str, CheckOverride]
) -> GateDefinition:
    checks: dict[str, CheckSpec] = {}
    for check_id, spec in gate.checks.items():
        override = overrides.get(check_id)
        if override is None:
            checks[check_id] = spec
            continue
        merged = {
            **spec.model_dump(),
            **override.model_dump(exclude_none=True, exclude={"options"}),
            "options": {**spec.options, **(override.options or {})},
        }
        checks[check_id] = CheckSpec.model_validate(merged)
    return gate.model_copy(update={"checks": checks})
