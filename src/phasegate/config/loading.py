"""Reading ``[tool.phasegate]``: :func:`load_config` and the :class:`LoadedConfig` it returns.

The settings are validated by :class:`phasegate.config.PhasegateConfig` (pydantic), which this
module imports only when it validates: with ``cache=True`` (the pytest plugin) a table already
validated by the same code is read back from :mod:`phasegate.config.settings_cache`, and a run that
only records its tests never loads pydantic. :attr:`LoadedConfig.values` holds the validated
settings as plain values for such readers; :attr:`LoadedConfig.config` is the model, built on
first use, from the table itself: the cache is trusted only for the few keys a recording run
reads, which it checks against the table. Cached values that are not what the table validates
to (a poisoned cache) are set aside; a bad table is a usage error, never an INTERNALERROR.

Paths read from the settings are confined to the project root (:meth:`LoadedConfig.inside`):
``artifacts_dir = "../x"`` is refused, naming the file and the key. A folder given on the
command line (``--phasegate-dir``) is the user's own choice and is not confined.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from phasegate import tomlfile
from phasegate.config import settings_cache
from phasegate.errors import ConfigError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from phasegate.config.models import PhasegateConfig

    SectionT = TypeVar("SectionT", bound=BaseModel)
    ValueT = TypeVar("ValueT")

__all__ = ["CONFIG_TABLE", "LoadedConfig", "find_project_root", "load_config"]

CONFIG_TABLE = "tool.phasegate"


@dataclass(frozen=True)
class LoadedConfig:
    """The configuration in force and where it came from.

    ``values`` are the validated settings as JSON values (every key, defaults filled in).
    """

    values: Mapping[str, object]
    project_root: Path
    source: Path | None
    #: ``{key: (flag, value)}`` given on the command line.
    overrides: Mapping[str, tuple[str, object]] = field(default_factory=dict)
    #: The settings cache :attr:`values` were read from, and the table they were made of.
    cache_file: Path | None = None
    table: Mapping[str, object] | None = None

    @classmethod
    def from_model(
        cls,
        config: PhasegateConfig,
        project_root: Path,
        source: Path | None,
        overrides: Mapping[str, tuple[str, object]] | None = None,
    ) -> LoadedConfig:
        """The loaded configuration of a validated model."""
        loaded = cls(config.model_dump(mode="json"), project_root, source, dict(overrides or {}))
        loaded.__dict__["config"] = config  # what the cached property would build
        return loaded

    @cached_property
    def config(self) -> PhasegateConfig:
        """The settings as a model (built on first use).

        Values read from the settings cache are checked there only where a run that records
        reads them; the rest (a check's ``required``, a threshold) could say anything the
        table does not, so the model is built from the table itself, which costs what
        building it from the values would, and cached values that disagree are set aside.
        """
        from phasegate.config.models import PhasegateConfig

        if self.cache_file is not None:
            return self._validated_again(only_if_different=True).config
        return PhasegateConfig.model_validate(self.values)

    def section(self, key: str, model: type[SectionT]) -> SectionT:
        """The table ``key`` as its model, without building the whole configuration.

        A feature that needs one table (``tdd``, say) spares the run the other tables' models.
        """
        if "config" in self.__dict__ or (self.cache_file is not None and key in self.overrides):
            built = getattr(self.config, key)
            if isinstance(built, model):
                return built
        if self.cache_file is None:
            return model.model_validate(self.values[key])
        return self._cached_section(key, model)

    def _cached_section(self, key: str, model: type[SectionT]) -> SectionT:
        """The table ``key`` validated from the settings, not from the cache (see
        :attr:`config`); when that differs from the cache, everything is validated again."""
        found = _valid_or_none(model, (self.table or {}).get(key, {}))
        if found is None or found.model_dump(mode="json") != self.values.get(key):
            return self._validated_again().section(key, model)
        return found

    def value_of(self, key: str, kind: type[ValueT]) -> ValueT:
        """The setting ``key`` of :attr:`values`, which validation made a ``kind`` (the
        settings cache vouches for the keys a recording run reads); else a ConfigError."""
        value = self.values.get(key)
        if not isinstance(value, kind):
            raise ConfigError(
                f"the setting {CONFIG_TABLE}.{key} is {value!r}, not of type {kind.__name__}"
                + (f" (from the settings cache {self.cache_file})" if self.cache_file else "")
            )
        return value

    @property
    def artifacts_path(self) -> Path:
        """The artifacts folder as an absolute path (inside the root unless given by flag)."""
        value = str(self.values["artifacts_dir"])
        if "artifacts_dir" in self.overrides:
            return (self.project_root / value).resolve()
        return self.inside("artifacts_dir", value)

    def inside(self, key: str, value: str) -> Path:
        """``value`` of ``key`` (dotted, under ``[tool.phasegate]``) resolved inside the root.

        A path that leaves the project root, through ``..`` or a symbolic link, is a
        :class:`ConfigError` naming the file, the key and the value.
        """
        root = self.project_root.resolve()
        path = (root / value).resolve()
        if not path.is_relative_to(root):
            where = self.source or self.project_root / "pyproject.toml"
            raise ConfigError(
                f"{where}: key {CONFIG_TABLE}.{key} = {value!r} is not allowed: it resolves to "
                f"{path}, outside the project root {root}; a folder named in the settings must "
                "stay inside the project"
            )
        return path

    def _validated_again(self, *, only_if_different: bool = False) -> LoadedConfig:
        """The table validated again; the cache set aside, unless it holds what that gives."""
        loaded = _validated(dict(self.table or {}), self.source, self.project_root, self.overrides)
        if self.cache_file is not None and (not only_if_different or loaded.values != self.values):
            settings_cache.set_aside(
                self.cache_file, "its values are not what the settings validate to"
            )
        object.__setattr__(self, "values", loaded.values)
        object.__setattr__(self, "cache_file", None)
        return loaded

    def with_overrides(self, overrides: Mapping[str, tuple[str, object]]) -> LoadedConfig:
        """A copy with ``{key: (flag, value)}`` applied, each checked like the file is."""
        from pydantic import ValidationError

        from phasegate.config.models import PhasegateConfig
        from phasegate.settings import describe_errors

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
        given = {**self.overrides, **overrides}
        return LoadedConfig.from_model(config, self.project_root, self.source, given)


def find_project_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` with a ``pyproject.toml``, else ``start``."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    return start


def _valid_or_none(model: type[SectionT], value: object) -> SectionT | None:
    """``value`` as the model, or None when it is not valid (validated again in full then)."""
    from pydantic import ValidationError

    try:
        return model.model_validate(value)
    except ValidationError:
        return None


def load_config(
    project_root: Path,
    overrides: Mapping[str, tuple[str, object]] | None = None,
    *,
    cache: bool = False,
) -> LoadedConfig:
    """Read ``[tool.phasegate]`` from ``project_root/pyproject.toml`` (defaults if absent).

    ``overrides`` maps keys to ``(flag, value)`` pairs from the command line, checked like the
    file. With ``cache``, settings validated before from the same table, overrides and code
    are read from the artifacts folder's cache instead of validated again (and a fresh
    validation is written there); a bad table is never cached, so it fails the same way, and
    ``cache = false`` in the table turns the cache off.
    """
    table, source = _read_table(project_root / "pyproject.toml")
    override_values = {key: value for key, (_flag, value) in (overrides or {}).items()}
    path = _cache_file(project_root, table, override_values) if cache else None
    if path is None:
        return _validated(table, source, project_root, overrides)
    key = settings_cache.input_key(table, override_values)
    values = settings_cache.lookup(path, key, table, override_values)
    if values is not None:
        return LoadedConfig(
            values, project_root, source, dict(overrides or {}), cache_file=path, table=table
        )
    loaded = _validated(table, source, project_root, overrides)
    settings_cache.save(path, key, loaded.values)
    return loaded


def _validated(
    table: dict[str, object],
    source: Path | None,
    project_root: Path,
    overrides: Mapping[str, tuple[str, object]] | None,
) -> LoadedConfig:
    """The table validated, with the command line's overrides applied."""
    loaded = LoadedConfig.from_model(_validate(table, source), project_root, source)
    return loaded.with_overrides(overrides) if overrides else loaded


def _cache_file(
    project_root: Path, table: Mapping[str, object], override_values: Mapping[str, object]
) -> Path | None:
    """The settings cache to use, or None: ``cache = false`` in the table or on the command
    line turns it off, and values the cache cannot hold leave it unused."""
    if override_values.get("cache", table.get("cache")) is False:
        return None
    if not settings_cache.cacheable(table) or not settings_cache.cacheable(override_values):
        return None
    return settings_cache.cache_path(project_root, table, override_values)


def _read_table(pyproject: Path) -> tuple[dict[str, object], Path | None]:
    if not pyproject.is_file():
        return {}, None
    try:
        document = tomlfile.loads(pyproject.read_text(encoding="utf-8"))
    except tomlfile.TOMLDecodeError as exc:
        raise ConfigError(f"{pyproject}: not valid TOML: {exc}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{pyproject}: cannot be read: {exc}") from exc
    tool = document.get("tool", {})
    table = tool.get("phasegate", {}) if isinstance(tool, dict) else tool
    if not isinstance(table, dict):
        raise ConfigError(
            f"{pyproject}: {CONFIG_TABLE} must be a table, not {type(table).__name__}"
        )
    return table, pyproject


def _validate(table: dict[str, object], source: Path | None) -> PhasegateConfig:
    from pydantic import ValidationError

    from phasegate.config.models import PhasegateConfig
    from phasegate.settings import describe_errors

    try:
        return PhasegateConfig.model_validate(table)
    except ValidationError as exc:
        message = describe_errors(exc, model=PhasegateConfig, where=str(source), table=CONFIG_TABLE)
        raise ConfigError(message) from exc
