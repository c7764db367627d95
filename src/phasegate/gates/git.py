"""Read a git repository for the checks that depend on its history (commit, breaking, build).

Only reading commands run here, each in a process group of its own (killed whole at the
timeout) and with ``LC_ALL=C``, so that git's messages are the English ones matched below.

Fail closed: git exiting with an error is a :class:`~phasegate.gates.protocol.CheckError`
with what it said, unless the caller named that error as an answer (``none_when``: "not a git
repository", "no names found"...), in which case the answer is ``None``. A corrupt index or a
broken ref is never taken for "no files" or "no commits".
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import overload

from phasegate.gates.protocol import CheckError
from phasegate.processes import Finished, GroupTimeout, run_in_group

__all__ = [
    "GIT_TIMEOUT_S",
    "NOT_A_REPOSITORY",
    "NO_SUCH_REVISION",
    "git_bytes",
    "git_environment",
    "git_state_files",
    "git_text",
    "git_toplevel",
    "git_work_tree",
]

#: git answers in milliseconds; this guards against a hung repository or file system.
GIT_TIMEOUT_S = 60.0

#: How git says the folder is not in a repository.
NOT_A_REPOSITORY = ("not a git repository",)
#: How git says a question needs a work tree where there is none (inside a ``.git`` folder).
_NO_WORK_TREE = "must be run in a work tree"
#: How ``git rev-parse --verify`` says a revision does not exist (a repository without commits).
NO_SUCH_REVISION = ("needed a single revision",)

_STDERR_CHARS = 600

#: Environment variables that can move the repository away from the top folder's ``.git``.
_GIT_DIR_VARIABLES = ("GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE")
#: Asks git for a work tree's repository folder and the common folder, both absolute.
#: Both known since git 2.13; ``--git-common-dir`` may answer relative to the folder git ran in.
_REV_PARSE_FOLDERS = ("rev-parse", "--absolute-git-dir", "--git-common-dir")


def git_environment() -> dict[str, str]:
    """The environment git runs with: English messages, no prompts, no optional locks."""
    return {
        **os.environ,
        "LC_ALL": "C",
        "GIT_TERMINAL_PROMPT": "0",
        # Reading commands (status) must not write the index of the project.
        "GIT_OPTIONAL_LOCKS": "0",
    }


@overload
def git_bytes(
    root: Path,
    args: list[str],
    *,
    timeout_s: float = ...,
    fix: str | None = ...,
    stdin: str | None = ...,
    ok_codes: Sequence[int] = ...,
) -> bytes: ...


@overload
def git_bytes(
    root: Path,
    args: list[str],
    *,
    timeout_s: float = ...,
    none_when: Sequence[str],
    fix: str | None = ...,
    stdin: str | None = ...,
    ok_codes: Sequence[int] = ...,
) -> bytes | None: ...


def git_bytes(
    root: Path,
    args: list[str],
    *,
    timeout_s: float = GIT_TIMEOUT_S,
    none_when: Sequence[str] = (),
    fix: str | None = None,
    stdin: str | None = None,
    ok_codes: Sequence[int] = (0,),
) -> bytes | None:
    """What ``git args`` printed in ``root`` (given ``stdin``, if any).

    ``None`` when git failed and every line it printed on stderr contains one of the phrases
    of ``none_when`` (compared without case); so without ``none_when`` the answer is never
    ``None``, as the overloads say. Any other exit status outside ``ok_codes``, a git that
    cannot be started or that does not answer in time is a :class:`CheckError` quoting git.
    """
    shown = " ".join(["git", *args[:4]]) + (" ..." if len(args) > 4 else "")
    finished = _run_git(root, args, shown, min(timeout_s, GIT_TIMEOUT_S), stdin)
    if finished.returncode in ok_codes:
        return finished.stdout
    said = finished.stderr.decode("utf-8", errors="replace").strip()
    if _only_said(said, none_when):
        return None
    raise CheckError(
        f"{shown} failed in {root} (exit status {finished.returncode}): "
        f"{said[-_STDERR_CHARS:] or '(it printed nothing)'}",
        fix=fix or f"run `{shown}` in {root} to see why; a corrupt repository needs repairing",
    )


def _run_git(root: Path, args: list[str], shown: str, limit: float, stdin: str | None) -> Finished:
    """git's finished process; a CheckError when it cannot start or does not answer in time."""
    try:
        return run_in_group(
            ["git", *args],
            cwd=root,
            timeout_s=limit,
            env=git_environment(),
            input=stdin.encode("utf-8") if stdin is not None else None,
        )
    except GroupTimeout as exc:
        raise CheckError(f"{shown} did not answer within {limit:.0f}s in {root}") from exc
    except OSError as exc:
        raise CheckError(
            f"git could not be started: {exc}", fix="install git and put it on PATH"
        ) from exc


def _only_said(stderr: str, phrases: Sequence[str]) -> bool:
    """Whether git printed something, and every line of it holds one of ``phrases``."""
    lines = [line.lower() for line in stderr.splitlines() if line.strip()]
    return bool(phrases and lines) and all(any(p in line for p in phrases) for line in lines)


@overload
def git_text(
    root: Path,
    args: list[str],
    *,
    timeout_s: float = ...,
    strip: bool = ...,
    fix: str | None = ...,
    stdin: str | None = ...,
    ok_codes: Sequence[int] = ...,
) -> str: ...


@overload
def git_text(
    root: Path,
    args: list[str],
    *,
    timeout_s: float = ...,
    strip: bool = ...,
    none_when: Sequence[str],
    fix: str | None = ...,
    stdin: str | None = ...,
    ok_codes: Sequence[int] = ...,
) -> str | None: ...


def git_text(
    root: Path,
    args: list[str],
    *,
    timeout_s: float = GIT_TIMEOUT_S,
    strip: bool = True,
    none_when: Sequence[str] = (),
    fix: str | None = None,
    stdin: str | None = None,
    ok_codes: Sequence[int] = (0,),
) -> str | None:
    """Like :func:`git_bytes`, decoded as UTF-8 (bad bytes replaced), trailing newlines cut."""
    output = git_bytes(
        root,
        args,
        timeout_s=timeout_s,
        none_when=none_when,
        fix=fix,
        stdin=stdin,
        ok_codes=ok_codes,
    )
    if output is None:
        return None
    text = output.decode("utf-8", errors="replace")
    return text.strip("\n") if strip else text


def git_toplevel(root: Path, *, timeout_s: float = GIT_TIMEOUT_S) -> Path | None:
    """The top folder of the work tree ``root`` is in; ``None`` outside a repository.

    The answer is recognized: an absolute folder that holds ``root``. Anything else is a
    :class:`CheckError`.
    """
    shown = git_text(
        root, ["rev-parse", "--show-toplevel"], timeout_s=timeout_s, none_when=NOT_A_REPOSITORY
    )
    if shown is None:
        return None
    return _recognized_top(root, shown)


def git_work_tree(root: Path, *, timeout_s: float = GIT_TIMEOUT_S) -> Path | None:
    """The top folder of the git work tree ``root`` is in; ``None`` outside a repository or
    inside a ``.git`` folder, where there is no work tree.

    One ``git rev-parse --is-inside-work-tree --show-toplevel``: the answer is recognized as
    ``true`` and an absolute folder that holds ``root``; anything else is a
    :class:`CheckError`.
    """
    said = git_text(
        root,
        ["rev-parse", "--is-inside-work-tree", "--show-toplevel"],
        timeout_s=timeout_s,
        none_when=(*NOT_A_REPOSITORY, _NO_WORK_TREE),
    )
    if said is None:
        return None
    inside, _, shown = said.partition("\n")
    if inside != "true":
        raise CheckError(f"git rev-parse --is-inside-work-tree answered {said!r:.200}")
    return _recognized_top(root, shown)


def _recognized_top(root: Path, shown: str) -> Path:
    """The top folder git named for ``root``: an absolute folder that holds it, else a
    :class:`CheckError`."""
    top = Path(shown)
    if not top.is_absolute() or not top.is_dir():
        raise CheckError(f"git rev-parse --show-toplevel answered {shown!r:.200}, not a folder")
    if not root.resolve().is_relative_to(top.resolve()):
        raise CheckError(f"git rev-parse --show-toplevel answered {shown!r:.200}, not above {root}")
    return top


def git_state_files(toplevel: Path | None) -> list[Path]:
    """The files that say which commit and tags the work tree is at (for cache keys).

    ``HEAD``, the branch file it points to, ``packed-refs``, the tag files and reftable's
    tables: when any of them changes, a version derived from git (hatch-vcs, setuptools-scm)
    may change too. ``HEAD`` is the work tree's own; the rest is the repository's, in its common
    folder, which a linked work tree shares with the main one. ``toplevel`` is the work tree's
    top folder as git named it (asked once per run, see
    :attr:`~phasegate.gates.project.GateProject.git_toplevel`); outside a repository (``None``)
    there are none.
    """
    if toplevel is None:
        return []
    git_dir, common = _git_folders(toplevel)
    files = [git_dir / "HEAD", common / "packed-refs", *_branch_file(git_dir, common)]
    for folder in (common / "refs" / "tags", common / "reftable"):
        if folder.is_dir():
            files.extend(folder.rglob("*"))  # its sub-folders are left out below
    return [path for path in files if path.is_file()]


def _git_folders(toplevel: Path) -> tuple[Path, Path]:
    """The repository folder of the work tree whose top folder is ``toplevel``, and the common
    folder that holds its branches and tags (the same folder but in a linked work tree).

    Read from the file system only where git's own layout leaves no doubt: ``.git`` in the top
    folder is a folder holding ``HEAD`` whose refs are in git's files backend, and no
    environment variable points git elsewhere. In every other case (a linked work tree or a
    submodule, whose ``.git`` is a file naming the folder; ``GIT_DIR`` set; reftable) git is
    asked, and the common folder must hold refs in the files backend or reftable, or the key
    could not see a commit.
    """
    own = toplevel / ".git"
    if not any(os.environ.get(name) for name in _GIT_DIR_VARIABLES) and _files_backend(own):
        return own, own
    git_dir, common = _asked_folders(toplevel)
    if not (_files_backend(common) or (common / "reftable" / "tables.list").is_file()):
        raise CheckError(
            f"the refs of {common} are in neither git's files backend nor reftable",
            fix="set `cache = false` in [tool.phasegate] to build without a cache key",
        )
    return git_dir, common


def _asked_folders(toplevel: Path) -> tuple[Path, Path]:
    """git's answer for the work tree's repository folder and common folder, recognized: two
    lines, the first an absolute folder, the second a folder (git gives the common folder
    relative to ``toplevel``, where it ran, unless it is elsewhere); anything else is a
    :class:`CheckError`."""
    found = git_text(toplevel, [*_REV_PARSE_FOLDERS])
    lines = found.splitlines()
    folders = [(toplevel / line).resolve() for line in lines if line]
    recognized = len(lines) == len(folders) == 2 and Path(lines[0]).is_absolute()
    if not recognized or not all(path.is_dir() for path in folders):
        raise CheckError(
            f"git {' '.join(_REV_PARSE_FOLDERS)} answered {found!r:.200}, not two folders",
            fix=f"run it in {toplevel} to see why",
        )
    return folders[0], folders[1]


def _files_backend(git_dir: Path) -> bool:
    """Whether ``git_dir`` holds ``HEAD`` and its refs in git's files backend: a ``refs`` folder,
    no ``reftable`` folder, and a ``config`` that names no ref storage (git writes
    ``extensions.refstorage`` for any other)."""
    try:
        config = (git_dir / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    layout = (git_dir / "HEAD").is_file() and (git_dir / "refs").is_dir()
    return layout and not (git_dir / "reftable").exists() and "refstorage" not in config.lower()


def _branch_file(git_dir: Path, common: Path) -> list[Path]:
    """The file of the branch ``HEAD`` points to (none when it is detached or unreadable)."""
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return []
    return [common / head.removeprefix("ref: ")] if head.startswith("ref: ") else []
