"""Which report formats exist: the built-in ones and those third-party packages register.

A report format is one object (see :class:`ReportFormat`): a name, which is its sub-command
(``phasegate report NAME``); what it reads (a gate verdict, a run report, or whatever the
artifacts folder holds); what it writes in the GitHub bundle (``phasegate report github``: a
file in the artifacts folder and the step output that names it, or the step's log); and
``render``, which turns a :class:`~phasegate.report.bundle.Bundle` into text. A package adds
formats by implementing the ``phasegate_report_formats`` hook (see :mod:`phasegate.hookspecs`);
the built-in formats (:mod:`phasegate.report.standard`) are registered through the same hook,
so the command line and the GitHub bundle list every format from here and name none.

A format cannot touch the verdict: its file name may not be one of the artifacts the verdict
is read from, its step output may not be one the action decides on, and a format that raises or
returns anything but text is an error naming it and its plugin, never a shorter report.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

import pluggy

from phasegate.errors import PhasegateError, UsageError
from phasegate.model.gate import GateVerdict
from phasegate.model.review import REVIEWS_FILE
from phasegate.report.bundle import Bundle
from phasegate.report.markdown import MarkdownOptions
from phasegate.store import AUTODEBUG_REPORT_FILE, REFINEMENT_FILE, RUN_REPORT_FILE

__all__ = [
    "BUILT_IN_MODULES",
    "READS",
    "FormatRegistry",
    "RegisteredFormat",
    "ReportContext",
    "ReportFormat",
    "require_verdict",
]

#: What a format may read: ``verdict`` needs a gate verdict, ``run`` a run report, ``any``
#: renders whatever the folder holds.
READS = ("verdict", "run", "any")

#: The modules of the built-in formats; each implements ``phasegate_report_formats``.
BUILT_IN_MODULES = ("phasegate.report.standard",)

#: ``phasegate report`` sub-commands that are not formats, so no format may take their names.
_COMMANDS = ("diff", "github", "comment")
#: Step outputs ``report github`` sets itself; the action decides on them.
_OUTPUTS = ("verdict", "score", "next-action", "report-path", "artifact-name")
#: Files and folders of phasegate's own in the artifacts folder, which a format may not write.
_ARTIFACTS = (
    RUN_REPORT_FILE,
    AUTODEBUG_REPORT_FILE,
    REFINEMENT_FILE,
    REVIEWS_FILE,
    "events.jsonl",
    "pr.json",
    "autodebug",
    "cache",
    "gates",
    "metrics",
)
_NAME = re.compile(r"[a-z][a-z0-9-]*\Z")
_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
_ATTRIBUTES = "name, description, reads, bundle_file, step_output and render(bundle, context)"


@dataclass
class ReportContext(MarkdownOptions):
    """What a format is given besides the bundle: the settings and the surroundings.

    The Markdown report's options (:class:`~phasegate.report.markdown.MarkdownOptions`: the
    budget, the ``[tool.phasegate.report]`` limits, ``diff``, ``extra_sections``), and
    ``path_prefix`` (the project's folder inside the repository), found only when a format asks
    for it. A format adds to ``notes`` what the person should know (what it left out, say); the
    command line prints them on standard error.
    """

    find_path_prefix: Callable[[], str] = str
    notes: list[str] = field(default_factory=list)

    @functools.cached_property
    def path_prefix(self) -> str:
        """The project's folder inside the repository, without slashes at either end."""
        return self.find_path_prefix().strip("/")


@runtime_checkable
class ReportFormat(Protocol):
    """A report format: the artifacts of one folder rendered as text.

    ``name`` is the sub-command (lower case, digits and ``-``); ``description`` its one-line
    help; ``reads`` one of :data:`READS`. ``bundle_file`` is the file ``report github`` writes
    in the artifacts folder (a plain file name), or ``None`` to print the text in the step's
    log; ``step_output`` the step output that names that file, or ``None``.
    """

    name: str
    description: str
    reads: Literal["verdict", "run", "any"]
    bundle_file: str | None
    step_output: str | None

    def render(self, bundle: Bundle, context: ReportContext) -> str:
        """The report's text; raise :class:`~phasegate.errors.UsageError` when it cannot be."""


@dataclass(frozen=True)
class RegisteredFormat:
    """A format and where it came from (``built-in`` or the registering plugin's name)."""

    format: ReportFormat
    origin: str

    @property
    def label(self) -> str:
        """How errors name it: the format and its plugin."""
        return f"report format {self.format.name!r} ({self.origin})"


def require_verdict(bundle: Bundle, name: str) -> GateVerdict:
    """The bundle's verdict, or a usage error for the format ``name``, which needs one."""
    if bundle.verdict is None:
        raise UsageError(
            f"{bundle.source} holds no gate verdict of its latest run (gates/*.json): the "
            f"{name} report shows a gate's findings; run pytest --gate=NAME first, or name an "
            "older verdict with --gate NAME"
        )
    return bundle.verdict


class FormatRegistry:
    """Every report format, built-in ones first, looked up by name and rendered safely."""

    def __init__(self, extensions: pluggy.PluginManager) -> None:
        self._formats: dict[str, RegisteredFormat] = {}
        for impl in _implementations(extensions):
            origin = _origin(impl.plugin_name)
            for returned in _called(impl, origin):
                self._add(RegisteredFormat(_checked(returned, origin), origin))

    def names(self) -> list[str]:
        """Every format's name, built-in ones first."""
        return list(self._formats)

    def formats(self) -> list[RegisteredFormat]:
        """Every format, built-in ones first."""
        return list(self._formats.values())

    def get(self, name: str) -> RegisteredFormat:
        """The format called ``name``, or a usage error that lists the known ones."""
        if name not in self._formats:
            raise UsageError(
                f"unknown report format {name!r}; known formats: {', '.join(self._formats)}"
            )
        return self._formats[name]

    def render(self, registered: RegisteredFormat, bundle: Bundle, context: ReportContext) -> str:
        """The format's text; a format that fails or returns no text is an error naming it."""
        report_format = registered.format
        if report_format.reads == "verdict":
            require_verdict(bundle, report_format.name)
        if report_format.reads == "run" and bundle.run is None:
            raise UsageError(
                f"{bundle.source} holds no run report ({RUN_REPORT_FILE}): the "
                f"{report_format.name} report shows a run's tests; run pytest first"
            )
        try:
            text: object = report_format.render(bundle, context)
        except PhasegateError:
            raise
        except Exception as exc:  # a third party's bug: say whose, never render less
            raise UsageError(f"the {registered.label} failed: {type(exc).__name__}: {exc}") from exc
        if not isinstance(text, str):
            raise UsageError(
                f"the {registered.label} returned {type(text).__name__}, not the report's "
                "text (str)"
            )
        return text

    def _add(self, registered: RegisteredFormat) -> None:
        report_format = registered.format
        if report_format.name in _COMMANDS or report_format.name in self._formats:
            raise UsageError(
                f"{registered.origin} registers the report format {report_format.name!r}, but "
                "that name is taken; give the format another name"
            )
        for attribute, does in (("bundle_file", "writes"), ("step_output", "sets the output")):
            value = getattr(report_format, attribute)
            others = [getattr(other.format, attribute) for other in self._formats.values()]
            if value is not None and value in others:
                raise UsageError(
                    f"the {registered.label} {does} {value!r}, which another format {does} "
                    f"too; give it another {attribute}"
                )
        self._formats[report_format.name] = registered


def _implementations(extensions: pluggy.PluginManager) -> list[pluggy.HookImpl]:
    """The hook's implementations, built-in ones (registered here if need be) first."""
    for module_name in BUILT_IN_MODULES:
        module = importlib.import_module(module_name)
        if not extensions.is_registered(module):
            extensions.register(module, name=module_name)
    impls = extensions.hook.phasegate_report_formats.get_hookimpls()
    built_in = [impl for impl in impls if impl.plugin_name in BUILT_IN_MODULES]
    others = [impl for impl in impls if impl.plugin_name not in BUILT_IN_MODULES]
    return built_in + sorted(others, key=lambda impl: impl.plugin_name)


def _origin(plugin_name: str) -> str:
    return "built-in" if plugin_name in BUILT_IN_MODULES else f"plugin {plugin_name!r}"


def _called(impl: pluggy.HookImpl, origin: str) -> list[object]:
    """What one ``phasegate_report_formats`` implementation returns, as a list."""
    try:
        returned: object = impl.function()
    except Exception as exc:  # a third party's bug: say whose
        raise UsageError(
            f"{origin} failed in phasegate_report_formats: {type(exc).__name__}: {exc}"
        ) from exc
    if returned is None:
        return []
    if isinstance(returned, (str, bytes)) or not isinstance(returned, Sequence):
        raise UsageError(
            f"{origin} returned {type(returned).__name__} from phasegate_report_formats; "
            "return a list of report formats"
        )
    return list(returned)


def _checked(candidate: object, origin: str) -> ReportFormat:
    """``candidate`` if it is a well-formed report format, else a usage error naming it."""
    if not isinstance(candidate, ReportFormat):
        raise UsageError(
            f"{origin} registered {candidate!r}, which is not a report format: it needs "
            f"{_ATTRIBUTES}"
        )
    name = candidate.name
    problems = [
        (
            not isinstance(name, str) or not _NAME.match(name),
            f"name {name!r}: use lower-case letters, digits and '-', starting with a letter",
        ),
        (
            candidate.reads not in READS,
            f"reads {candidate.reads!r}: use one of {', '.join(READS)}",
        ),
        (not isinstance(candidate.description, str), "description: give one line of text"),
        (
            not _plain_file(candidate.bundle_file),
            f"bundle_file {candidate.bundle_file!r}: use a plain file name (letters, digits, "
            f"'.', '_', '-'), not a folder or one of {', '.join(_ARTIFACTS)}, or None",
        ),
        (
            not _free_output(candidate.step_output, candidate.bundle_file),
            f"step_output {candidate.step_output!r}: use lower-case letters, digits and '-', "
            f"not one of {', '.join(_OUTPUTS)}, and only with a bundle_file; or None",
        ),
    ]
    for wrong, what in problems:
        if wrong:
            raise UsageError(f"{origin} registered the report format {name!r} with {what}")
    return candidate


def _plain_file(file_name: object) -> bool:
    if file_name is None:
        return True
    return (
        isinstance(file_name, str) and bool(_FILE.match(file_name)) and file_name not in _ARTIFACTS
    )


def _free_output(output: object, file_name: object) -> bool:
    if output is None:
        return True
    return (
        file_name is not None
        and isinstance(output, str)
        and bool(_NAME.match(output))
        and output not in _OUTPUTS
    )
