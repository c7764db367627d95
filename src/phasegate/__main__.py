"""``python -m phasegate``: the same command as ``phasegate``."""

from __future__ import annotations

from phasegate.cli import main

raise SystemExit(main())
