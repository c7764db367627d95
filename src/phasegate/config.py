"""``[tool.phasegate]`` in ``pyproject.toml``, read into a model that forbids unknown keys.

A bad key or value is a :class:`~phasegate.errors.ConfigError` naming the file, the key, the
value and what is allowed. Command-line flags override the file and are checked the same way.
The full reference is ``docs/configuration.md``; a test keeps it in step with this model.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from phasegate.errors import ConfigError
from phasegate.settings import Section, describe_errors
from phasegate.tdd.config import TddConfig

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = [
    "CONFIG_TABLE",
    "LoadedConfig",
    "PhasegateConfig",
    "find_project_root",
    "load_config",
]

CONFIG_TABLE = "tool.phasegate"


class PhasegateConfig(Section):
    """Every key of ``[tool.phasegate]``."""

    artifacts_dir: str = Field(
        default=".phasegate",
        min_length=1,
        description="folder for phasegate's artifacts, relative to the project root",
    )
    gate: str = Field(
        default="default",
        min_length=1,
        description="the gate `pytest --gate` evaluates when no name is given",
    )
    plugins: list[str] = Field(
        default_factory=list,
        description="modules to load as phasegate plugins, besides the entry points",
    )
    max_traceback_chars: int = Field(
        default=4000,
        ge=200,
        le=100_000,
        description="characters of failure text kept per failing test (the end is kept)",
    )
    tdd: TddConfig = Field(
        default_factory=TddConfig,
        description="[tool.phasegate.tdd]: the red/green/refactor rules (docs/tdd.md)",
    )


@dataclass(frozen=True)
class LoadedConfig:
    """The configuration in force and where it came from."""

    config: PhasegateConfig
    project_root: Path
    source: Path | None

    @property
    def artifacts_path(self) -> Path:
        """The artifacts folder as an absolute path."""
        return (self.project_root / self.config.artifacts_dir).resolve()

    def with_overrides(self, overrides: Mapping[str, tuple[str, Any]]) -> LoadedConfig:
        """A copy with ``{key: (flag, value)}`` applied, each checked like the file is."""
        merged = self.config.model_dump()
        for key, (_flag, value) in overrides.items():
            merged[key] = value
        try:
            config = PhasegateConfig.model_validate(merged)
        except ValidationError as exc:
            flags = {key: flag for key, (flag, _value) in overrides.items()}
            message = describe_errors(
                exc, model=PhasegateConfig, where="command line", table=CONFIG_TABLE, flags=flags
            )
            raise ConfigError(message) from exc
        return LoadedConfig(config, self.project_root, self.source)


def find_project_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` with a ``pyproject.toml``, else ``start``."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    return start


def load_config(project_root: Path) -> LoadedConfig:
    """Read ``[tool.phasegate]`` from ``project_root/pyproject.toml`` (defaults if absent)."""
    pyproject = project_root / "pyproject.toml"
    if not pyproject.is_file():
        return LoadedConfig(PhasegateConfig(), project_root, None)
    try:
        document = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{pyproject}: not valid TOML: {exc}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{pyproject}: cannot be read: {exc}") from exc
    table = document.get("tool", {}).get("phasegate", {})
    if not isinstance(table, dict):
        raise ConfigError(
            f"{pyproject}: {CONFIG_TABLE} must be a table, not {type(table).__name__}"
        )
    try:
        config = PhasegateConfig.model_validate(table)
    except ValidationError as exc:
        message = describe_errors(
            exc, model=PhasegateConfig, where=str(pyproject), table=CONFIG_TABLE
        )
        raise ConfigError(message) from exc
    return LoadedConfig(config, project_root, pyproject)
