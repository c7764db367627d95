"""The check-test helpers of tests/gates, for the SDLC checks tested here."""

from __future__ import annotations

from tests.gates.conftest import make_context, write_files

__all__ = ["make_context", "write_files"]
