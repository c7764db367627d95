"""CheckCache: which entries are believed, and why one was not (review of s16, 13 and 14)."""

from __future__ import annotations

import json
from pathlib import Path

from phasegate.gates.cache import CheckCache
from phasegate.gates.project import GateProject
from phasegate.gates.protocol import Measurement
from phasegate.store import Store
from tests.conftest import git

CLEAN = Measurement(summary="no problem", metrics={"problems": 0})


def test_an_entry_git_lists_is_refused_with_a_symbolic_link_in_the_roots_path(
    tmp_path: Path,
) -> None:
    """Finding 14: the entry's path and the project's root were compared unresolved; through
    a link in one of them the entry's name was never in git's listing, and a committed entry
    was believed."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    git(real, "init", "-q")
    store = Store(real / ".phasegate")
    CheckCache(store).put("lint", "k", CLEAN)
    git(real, "add", "-f", ".phasegate/cache/lint.json")
    cache = CheckCache(store, GateProject(tmp_path / "link", excluded=(store.root,)))
    assert cache.get("lint", "k") is None
    assert "is in git (tracked, or not ignored)" in cache.refused["lint"]


def test_a_reason_for_refusing_an_entry_is_not_kept_past_the_next_look(tmp_path: Path) -> None:
    """Finding 13: ``refused`` was never cleared: a check measured again after its entry was
    written anew was still said to have had its entry refused."""
    store = Store(tmp_path / ".phasegate")
    cache = CheckCache(store)
    cache.put("lint", "k", CLEAN)
    entry = store.path("cache/lint.json")
    edited = json.loads(entry.read_text())
    edited["measurement"]["summary"] = "edited"
    entry.write_text(json.dumps(edited))
    assert cache.get("lint", "k") is None
    assert "is not what phasegate wrote there" in cache.refused["lint"]
    cache.put("lint", "k", CLEAN)
    assert cache.get("lint", "k") == CLEAN
    assert "lint" not in cache.refused
