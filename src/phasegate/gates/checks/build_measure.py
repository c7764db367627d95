"""The build check's judgements that need ``packaging``: build requirements, built metadata.

Whether this environment satisfies the build requirements (to build without isolation), and
whether each built file's metadata is valid, agrees with its file name and agrees between the
sdist and the wheel. Every problem found is appended to the caller's list as (rule, message).
The sdist's metadata can be read while the wheel is built from it (:class:`SdistReading`).

Apart from :mod:`phasegate.gates.checks.build` because planning a gate imports every check's
module, in the pytest process too, which has no use for ``packaging`` (its metadata module,
with the email parser it needs, is the costliest import of the checks); the build check
imports this module where it measures, in the static checks' process.
"""

from __future__ import annotations

import importlib.metadata
import tarfile
import zipfile
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future
from pathlib import Path

from packaging.metadata import ExceptionGroup, InvalidMetadata, Metadata
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)

__all__ = [
    "SdistReading",
    "compare_metadata",
    "read_sdist_metadata",
    "read_wheel_metadata",
    "unmet_requirements",
    "validated_metadata",
]

#: A problem found: its rule and its message.
Problem = tuple[str, str]


def unmet_requirements(requires: Iterable[str]) -> list[str]:
    """The requirements (PEP 508 strings) this environment does not satisfy."""
    unmet: list[str] = []
    for text in requires:
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            unmet.append(text)  # let build report it with its own words
            continue
        if not _satisfied(requirement, seen=set()):
            unmet.append(text)
    return unmet


def _satisfied(requirement: Requirement, *, seen: set[str], extra: str = "") -> bool:
    """Whether the requirement (needed for ``extra`` of its parent) is installed here."""
    if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
        return True
    name = canonicalize_name(requirement.name)
    try:
        version = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    if not requirement.specifier.contains(version, prereleases=True):
        return False
    return all(_extra_satisfied(name, wanted, seen) for wanted in sorted(requirement.extras))


def _extra_satisfied(name: str, extra: str, seen: set[str]) -> bool:
    """Whether what the extra ``name[extra]`` adds is installed here."""
    key = f"{name}[{extra}]"
    if key in seen:
        return True
    seen.add(key)
    for text in importlib.metadata.requires(name) or []:
        try:
            needed = Requirement(text)
        except InvalidRequirement:
            continue  # broken installed metadata: pip check (the deps check) reports it
        # Requirements without a marker come with the distribution itself.
        if needed.marker is not None and not _satisfied(needed, seen=seen, extra=extra):
            return False
    return True


def read_sdist_metadata(path: Path) -> str:
    """The text of an sdist's ``<name>-<version>/PKG-INFO``."""
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            parts = member.name.split("/")
            if len(parts) == 2 and parts[1] == "PKG-INFO" and member.isfile():
                extracted = archive.extractfile(member)
                if extracted is not None:
                    return extracted.read().decode("utf-8")
    raise ValueError("it has no <name>-<version>/PKG-INFO")


def read_wheel_metadata(path: Path) -> str:
    """The text of a wheel's ``<name>-<version>.dist-info/METADATA``."""
    with zipfile.ZipFile(path) as archive:
        found = [
            name
            for name in archive.namelist()
            if name.count("/") == 1 and name.endswith(".dist-info/METADATA")
        ]
        if len(found) != 1:
            raise ValueError(f"it has {len(found)} .dist-info/METADATA files, not one")
        return archive.read(found[0]).decode("utf-8")


def validated_metadata(
    path: Path, reader: Callable[[Path], str], problems: list[Problem]
) -> Metadata | None:
    """The validated metadata of a built file; each problem is added to ``problems``."""
    try:
        text = reader(path)
    except (OSError, ValueError, tarfile.TarError, zipfile.BadZipFile) as exc:
        problems.append(("metadata-missing", f"{path.name}: {exc}"))
        return None
    try:
        metadata = Metadata.from_email(text, validate=True)
    except ExceptionGroup as group:
        for error in group.exceptions:
            problems.append(("metadata-invalid", f"{path.name}: {error}"))
        return None
    except InvalidMetadata as exc:
        problems.append(("metadata-invalid", f"{path.name}: {exc}"))
        return None
    _check_file_name(path, metadata, problems)
    return metadata


def _check_file_name(path: Path, metadata: Metadata, problems: list[Problem]) -> None:
    """A problem in ``problems`` unless the file's name is valid and says the metadata's
    name and version."""
    try:
        if path.suffix == ".whl":
            name, version, _build_tag, _tags = parse_wheel_filename(path.name)
        else:
            name, version = parse_sdist_filename(path.name)
    except (InvalidWheelFilename, InvalidSdistFilename) as exc:
        problems.append(("file-name", str(exc)))
        return
    if name != canonicalize_name(metadata.name) or version != metadata.version:
        problems.append(
            (
                "file-name",
                f"{path.name} does not match its metadata ({metadata.name} {metadata.version})",
            )
        )


def compare_metadata(
    sdist: Metadata | None, wheel: Metadata | None, problems: list[Problem]
) -> None:
    """A problem in ``problems`` for each of name and version the sdist and wheel disagree on."""
    if sdist is None or wheel is None:
        return
    if canonicalize_name(sdist.name) != canonicalize_name(wheel.name):
        problems.append(
            ("name-mismatch", f"the sdist is named {sdist.name!r} but the wheel {wheel.name!r}")
        )
    if sdist.version != wheel.version:
        problems.append(
            (
                "version-mismatch",
                f"the sdist has version {sdist.version} but the wheel {wheel.version}",
            )
        )


class SdistReading:
    """Sdists' metadata read and validated in ``pool``'s thread, each as soon as it is built
    (:meth:`start`: the wheel's build from it, in processes, takes longer); a file not started
    is read when it is asked for."""

    def __init__(self, pool: Executor) -> None:
        self._pool = pool
        self._started: dict[str, Future[tuple[Metadata | None, list[Problem]]]] = {}

    def start(self, sdist: Path) -> None:
        """Read and validate ``sdist``'s metadata in the pool's thread."""
        self._started[sdist.name] = self._pool.submit(self._read, sdist)

    def validated(self, sdist: Path, problems: list[Problem]) -> Metadata | None:
        """``sdist``'s validated metadata (waited for, if it was started), its problems added
        to ``problems``."""
        started = self._started.get(sdist.name)
        metadata, found = started.result() if started is not None else self._read(sdist)
        problems.extend(found)
        return metadata

    @staticmethod
    def _read(sdist: Path) -> tuple[Metadata | None, list[Problem]]:
        problems: list[Problem] = []
        return validated_metadata(sdist, read_sdist_metadata, problems), problems
