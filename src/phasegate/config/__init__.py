"""``[tool.phasegate]``: the settings models, reading them, and the settings cache.

Every reader imports from here, and only from here: ``from phasegate.config import
load_config`` (a test refuses a second path). One module, one job:

===================  ========================================================================
``loading``          :func:`load_config` and the :class:`LoadedConfig` it returns: the table
                     found, read, validated (or read back from the cache), paths confined
``models``           :class:`PhasegateConfig` and its sections, pydantic models that forbid
                     unknown keys
``settings_cache``   validated settings kept on disk, so that a run that only records its
                     tests never imports pydantic
===================  ========================================================================

``loading`` imports ``models`` only when it validates, and ``models`` imports nothing of
``loading``. So that a recording run stays free of pydantic, the models are loaded on first
use: ``PhasegateConfig``, ``RefineConfig`` and ``ReportConfig`` are imported when a reader
first asks for them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from phasegate.config.loading import CONFIG_TABLE, LoadedConfig, find_project_root, load_config

if TYPE_CHECKING:
    from phasegate.config.models import PhasegateConfig, RefineConfig, ReportConfig

__all__ = [
    "CONFIG_TABLE",
    "LoadedConfig",
    "PhasegateConfig",
    "RefineConfig",
    "ReportConfig",
    "find_project_root",
    "load_config",
]

#: The names of :mod:`phasegate.config.models`, loaded on first use (they need pydantic).
_MODELS = frozenset({"PhasegateConfig", "RefineConfig", "ReportConfig"})


def __getattr__(name: str) -> object:
    """Load a settings model on first use."""
    if name not in _MODELS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.models"), name)
    globals()[name] = value
    return value
