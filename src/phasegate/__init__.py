"""phasegate: a pytest plugin and CI quality gate with real checks and a binary verdict.

The public surface is small on purpose: the artifact models live in :mod:`phasegate.model`,
the hook specifications for third parties in :mod:`phasegate.hookspecs`, and everything else
is reached through ``pytest --gate`` or the ``phasegate`` command.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
