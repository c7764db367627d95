"""Read a git repository for the checks that depend on its history (commit, breaking, build).

Only reading commands run here. A git that cannot be started or does not answer in time is
a :class:`~phasegate.gates.protocol.CheckError`; a command that fails (an unknown ref, no
commits yet) answers ``None``, for the caller to explain.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from phasegate.gates.protocol import CheckError

__all__ = ["GIT_TIMEOUT_S", "git_bytes", "git_state_files", "git_text"]

#: git answers in milliseconds; this guards against a hung repository or file system.
GIT_TIMEOUT_S = 60.0


def git_bytes(root: Path, args: list[str], *, timeout_s: float = GIT_TIMEOUT_S) -> bytes | None:
    """What ``git args`` printed in ``root``, or ``None`` when it exited with an error."""
    try:
        completed = subprocess.run(
            ["git", *args],
            cwd=root,
            capture_output=True,
            timeout=min(timeout_s, GIT_TIMEOUT_S),
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise CheckError(
            f"git {args[0]} did not answer within {min(timeout_s, GIT_TIMEOUT_S):.0f}s in {root}"
        ) from exc
    except OSError as exc:
        raise CheckError(
            f"git could not be started: {exc}", fix="install git and put it on PATH"
        ) from exc
    return completed.stdout if completed.returncode == 0 else None


def git_text(
    root: Path, args: list[str], *, timeout_s: float = GIT_TIMEOUT_S, strip: bool = True
) -> str | None:
    """Like :func:`git_bytes`, decoded as UTF-8 (bad bytes replaced), trailing newlines cut."""
    output = git_bytes(root, args, timeout_s=timeout_s)
    if output is None:
        return None
    text = output.decode("utf-8", errors="replace")
    return text.strip("\n") if strip else text


def git_state_files(root: Path) -> list[Path]:
    """The files that say which commit and tags the work tree is at (for cache keys).

    ``HEAD``, the branch file it points to, ``packed-refs`` and the tag files: when any of them
    changes, a version derived from git (hatch-vcs, setuptools-scm) may change too.
    """
    found = git_text(root, ["rev-parse", "--absolute-git-dir"])
    if found is None:
        return []
    git_dir = Path(found)
    files = [git_dir / "HEAD", git_dir / "packed-refs"]
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        head = ""
    if head.startswith("ref: "):
        files.append(git_dir / head.removeprefix("ref: "))
    tags = git_dir / "refs" / "tags"
    if tags.is_dir():
        files.extend(path for path in tags.rglob("*") if path.is_file())
    return [path for path in files if path.is_file()]
