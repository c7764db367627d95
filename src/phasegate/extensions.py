"""The one extension system: a pluggy plugin manager shared by the pytest plugin and the CLI.

Plugins come from the ``phasegate`` entry-point group of installed distributions and from the
``plugins`` list of ``[tool.phasegate]``.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

import pluggy

from phasegate import hookspecs
from phasegate.errors import ConfigError

__all__ = ["make_plugin_manager"]


def make_plugin_manager(configured: Sequence[str] = ()) -> pluggy.PluginManager:
    """A plugin manager with phasegate's specs, the entry points and the configured modules."""
    manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    manager.load_setuptools_entrypoints(hookspecs.PROJECT_NAME)
    for name in configured:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise ConfigError(
                f"key tool.phasegate.plugins names {name!r}, which cannot be imported: {exc}"
            ) from exc
        if manager.is_registered(module):
            continue
        manager.register(module, name=name)
    manager.check_pending()
    return manager
