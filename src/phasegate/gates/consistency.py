"""Whether the installed distributions' requirements are met: ``pip check``'s rules, in-process.

``python -m pip check`` costs about half a second of CPU, nearly all of it pip importing
itself; what it computes is small. This module computes the same answer from
``importlib.metadata`` in the process already running the checks, with the rules of pip's own
``check`` command (``pip/_internal/operations/check.py`` and ``commands/check.py``, pip 23 to
26):

* the distributions are those of every ``sys.path`` entry, in order, the first of each
  (normalized) name winning; a path entry that is a wheel file is skipped; a distribution
  whose metadata names no distribution is skipped, as pip before 24.2 skips it, or named by
  its ``.dist-info`` folder, as pip 24.2 and later name it (the caller says which);
* a requirement counts when it has no marker, or its marker holds with ``extra`` empty;
* a requirement is *missing* when no distribution of its name is installed, and
  *conflicting* when the installed version is outside its specifier (pre-releases allowed);
* since pip 24.1, a distribution installed from a wheel whose tags this interpreter does not
  support is reported too (the caller says whether the installed pip does).

Each problem is worded as pip words it, so a finding reads the same either way. Installed
metadata that cannot be parsed (a ``Requires-Dist`` that is no PEP 508 requirement) makes pip
exit 1 without naming a problem; here it is a :class:`~phasegate.gates.protocol.CheckError`
naming the distribution and the requirement.

What pip also sees and ``importlib.metadata`` does not: ``.egg`` folders and archives and
``.egg-link`` files (setuptools' installs before PEP 660). Where a ``sys.path`` entry holds
one, :func:`legacy_installs` says so and the caller runs pip itself.
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from email.message import Message
from functools import cache
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.tags import Tag, parse_tag, sys_tags
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import InvalidVersion, Version

from phasegate.gates.protocol import CheckError

__all__ = ["Installed", "broken_requirements", "installed_distributions", "legacy_installs"]


@dataclass(frozen=True)
class Installed:
    """One installed distribution, as pip check reads it."""

    name: str
    version: str
    requires: tuple[str, ...]
    wheel_tags: tuple[str, ...] | None
    location: str


def installed_distributions(
    paths: Sequence[str] | None = None, *, unnamed_from_folder: bool = True
) -> list[Installed]:
    """The distributions of ``paths`` (default ``sys.path``), the first of each name only.

    ``unnamed_from_folder``: a distribution whose metadata has no ``Name`` is named by its
    ``.dist-info`` folder (pip 24.2 and later); otherwise it is skipped (pip before 24.2).
    """
    found: dict[NormalizedName, Installed] = {}
    for location in sys.path if paths is None else paths:
        if _looks_like_wheel(location):
            continue
        for dist in importlib.metadata.distributions(path=[location]):
            installed = _installed(dist, location, unnamed_from_folder)
            # pip skips a distribution without a name ("Skipping ... due to invalid metadata")
            if installed is not None:
                found.setdefault(canonicalize_name(installed.name), installed)
    return list(found.values())


def _installed(
    dist: importlib.metadata.Distribution, location: str, unnamed_from_folder: bool
) -> Installed | None:
    """What pip check knows of ``dist``; None when it has no name pip would use."""
    metadata: Message | None = dist.metadata  # type: ignore[assignment]
    raw = metadata.get("Name") if metadata is not None else None
    if not raw and unnamed_from_folder:
        raw = _folder_name(dist)
    if not raw:
        return None
    return Installed(
        name=str(raw),
        version=str(metadata.get("Version", "") if metadata is not None else ""),
        requires=_requires(dist, metadata),
        wheel_tags=_wheel_tags(dist),
        location=location,
    )


def _requires(dist: importlib.metadata.Distribution, metadata: Message | None) -> tuple[str, ...]:
    """``dist.requires``, from the metadata read already: ``Distribution.requires`` reads and
    parses the metadata again, which only an egg-info ``requires.txt`` needs (it is read when
    the metadata lists no ``Requires-Dist``)."""
    listed = metadata.get_all("Requires-Dist") if metadata is not None else None
    if listed:
        return tuple(listed)
    if dist.read_text("requires.txt") is None:
        return ()
    return tuple(dist.requires or ())


def _folder_name(dist: importlib.metadata.Distribution) -> str | None:
    """The distribution name in a ``NAME-VERSION.dist-info`` folder's name, or None."""
    folder = getattr(dist, "_path", None)  # PathDistribution's folder; no public accessor
    if not isinstance(folder, Path) or folder.suffix != ".dist-info":
        return None
    name = folder.stem.partition("-")[0]
    return name or None


def broken_requirements(
    installed: Iterable[Installed], *, unsupported_wheels: bool = True
) -> list[str]:
    """pip check's lines for ``installed``, in its words and order: missing requirements, then
    conflicting ones, then (``unsupported_wheels``: pip 24.1 and later) unsupported wheels.

    An empty list is pip's "No broken requirements found.".
    """
    by_name = {canonicalize_name(dist.name): dist for dist in installed}
    missing: list[str] = []
    conflicting: list[str] = []
    for name, dist in by_name.items():
        lacking, clashing = _requirement_problems(name, dist, by_name)
        missing.extend(sorted(lacking))
        conflicting.extend(sorted(clashing))
    if not unsupported_wheels:
        return [*missing, *conflicting]
    return [*missing, *conflicting, *_unsupported(by_name)]


def _requirement_problems(
    name: str, dist: Installed, by_name: dict[NormalizedName, Installed]
) -> tuple[set[str], set[str]]:
    """pip check's lines for the requirements of ``dist`` not installed, and not satisfied."""
    version = _shown_version(dist.version)
    lacking: set[str] = set()
    clashing: set[str] = set()
    for requirement in _requirements(dist):
        wanted = canonicalize_name(requirement.name)
        needed = by_name.get(wanted)
        if needed is None:
            lacking.add(f"{name} {version} requires {wanted}, which is not installed.")
        elif not requirement.specifier.contains(needed.version, prereleases=True):
            clashing.add(
                f"{name} {version} has requirement {requirement}, but you have "
                f"{wanted} {_shown_version(needed.version)}."
            )
    return lacking, clashing


def _unsupported(by_name: dict[NormalizedName, Installed]) -> list[str]:
    """pip check's lines for wheels whose tags this platform does not support."""
    supported = _supported_tags()
    return [
        f"{name} {_shown_version(dist.version)} is not supported on this platform"
        for name, dist in by_name.items()
        if dist.wheel_tags is not None
        and not any(tag in supported for text in dist.wheel_tags for tag in parse_tag(text))
    ]


def legacy_installs(paths: Sequence[str] | None = None) -> list[Path]:
    """``.egg`` and ``.egg-link`` entries of ``paths`` (default ``sys.path``): pip reads them,
    ``importlib.metadata`` does not."""
    return [
        found
        for location in (sys.path if paths is None else paths)
        for found in _legacy_entries(location)
    ]


def _legacy_entries(location: str) -> list[Path]:
    """``location`` itself when it is an ``.egg``, else the ``.egg`` and ``.egg-link`` entries
    of its folder (none when it cannot be read)."""
    folder = Path(location or os.curdir)
    if location.endswith(".egg"):
        return [folder]
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return [Path(entry.path) for entry in entries if entry.name.endswith((".egg", ".egg-link"))]


def _requirements(dist: Installed) -> Iterator[Requirement]:
    """The requirements pip checks: unconditional, or whose marker holds without an extra."""
    for text in dist.requires:
        try:
            requirement = Requirement(text)
        except InvalidRequirement as exc:
            raise CheckError(
                f"the installed metadata of {dist.name} {dist.version} (in {dist.location}) has "
                f"a requirement that is not PEP 508, {text!r}: {exc}; pip check cannot read it "
                "either",
                fix=f"reinstall {dist.name} (pip install --force-reinstall {dist.name})",
            ) from exc
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
            yield requirement


def _wheel_tags(dist: importlib.metadata.Distribution) -> tuple[str, ...] | None:
    """The ``Tag`` lines of the distribution's ``WHEEL`` file; ``None`` when it has none."""
    text = dist.read_text("WHEEL")
    if text is None:
        return None
    return tuple(
        line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")
    )


def _shown_version(text: str) -> str:
    """The version as pip prints it: normalized when it is a PEP 440 version."""
    try:
        return str(Version(text))
    except InvalidVersion:
        return text


@cache
def _supported_tags() -> frozenset[Tag]:
    return frozenset(sys_tags())


def _looks_like_wheel(location: str) -> bool:
    return location.endswith(".whl") and os.path.isfile(location) and zipfile.is_zipfile(location)
