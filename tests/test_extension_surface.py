"""The public extension surface does not change by accident.

What third-party packages build on: phasegate's hook specifications, the check protocol (with
what a check is given and returns), the auto-debug pattern protocol (with what a pattern
returns), the report format protocol (with what a format is given), and the names
``phasegate.model`` exports. Their names and signatures, as written in the source, are kept
in ``tests/data/extension_surface.json``; any difference fails here.

A deliberate change updates the snapshot and says so in the changelog::

    python tests/test_extension_surface.py

(run from the repository root, in the environment the tests use).
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import json
from pathlib import Path
from typing import Any

SNAPSHOT = Path(__file__).resolve().parent / "data" / "extension_surface.json"
UPDATE = "python tests/test_extension_surface.py"

#: The classes of the surface, by module; each is recorded with its annotated attributes and
#: the signatures of the methods it defines itself or inherits from phasegate's classes.
CLASSES: dict[str, tuple[str, ...]] = {
    "phasegate.gates.protocol": (
        "Check",
        "CheckContext",
        "CheckError",
        "Measurement",
        "MetricSpec",
        "NoOptions",
        "SessionData",
    ),
    "phasegate.autodebug.patterns.base": ("Pattern",),
    "phasegate.autodebug.diagnosis": ("Candidate", "Diagnosis", "FileEdit"),
    "phasegate.report.formats": ("ReportContext", "ReportFormat"),
}


def _signature(function: Any) -> str:
    return str(inspect.signature(function))


def _hookspecs() -> dict[str, Any]:
    hookspecs = importlib.import_module("phasegate.hookspecs")
    specs: dict[str, Any] = {}
    for name in sorted(hookspecs.__all__):
        if not name.startswith("phasegate_"):
            continue
        function = getattr(hookspecs, name)
        options = function.phasegate_spec
        specs[name] = {
            "signature": _signature(function),
            "firstresult": bool(options.get("firstresult")),
            "historic": bool(options.get("historic")),
        }
    return {"__all__": sorted(hookspecs.__all__), "hooks": specs}


def _class(cls: type) -> dict[str, Any]:
    """The type parameters, annotated attributes, properties and methods of ``cls``, with
    those it inherits from phasegate's own classes (a field moved into a base class is still
    on the surface)."""
    attributes: dict[str, Any] = {}
    methods: dict[str, str] = {}
    for owner in reversed(cls.__mro__):
        if not owner.__module__.startswith("phasegate."):
            continue
        attributes.update(inspect.get_annotations(owner))
        source = inspect.getsourcefile(owner)
        for name, member in sorted(vars(owner).items()):
            if isinstance(member, property) and member.fget is not None:
                methods[name] = f"property {_signature(member.fget)}"
            # Written in the class itself: not the __init__ a dataclass, pydantic or Protocol
            # makes.
            elif (
                inspect.isfunction(member)
                and member.__code__.co_filename == source
                and (not name.startswith("_") or name == "__init__")
            ):
                methods[name] = _signature(member)
    described: dict[str, Any] = {"attributes": attributes, "methods": dict(sorted(methods.items()))}
    parameters = getattr(cls, "__parameters__", ())
    if parameters:
        described["type_parameters"] = [str(parameter) for parameter in parameters]
    return described


def _classes() -> dict[str, Any]:
    surface: dict[str, Any] = {}
    for module_name, names in CLASSES.items():
        module = importlib.import_module(module_name)
        surface[module_name] = {name: _class(getattr(module, name)) for name in names}
        if module_name == "phasegate.gates.protocol":
            surface[module_name]["__all__"] = sorted(module.__all__)
    return surface


def _model_exports() -> dict[str, str]:
    model = importlib.import_module("phasegate.model")
    exports: dict[str, str] = {}
    for name in sorted(model.__all__):
        value = getattr(model, name)
        # Where each name is defined: a name that moves is a change too.
        exports[name] = getattr(value, "__module__", None) or type(value).__name__
    return exports


def current_surface() -> dict[str, Any]:
    """The extension surface as the source defines it now."""
    return {
        "hookspecs": _hookspecs(),
        "classes": _classes(),
        "model": _model_exports(),
    }


def _dump(surface: dict[str, Any]) -> str:
    return json.dumps(surface, indent=2, sort_keys=True) + "\n"


def test_the_extension_surface_is_the_one_in_the_snapshot() -> None:
    recorded = SNAPSHOT.read_text(encoding="utf-8")
    current = _dump(current_surface())
    if current != recorded:
        difference = "".join(
            difflib.unified_diff(
                recorded.splitlines(keepends=True),
                current.splitlines(keepends=True),
                fromfile="tests/data/extension_surface.json",
                tofile="the source now",
            )
        )
        raise AssertionError(
            "the public extension surface (hookspecs, the check and pattern protocols, the "
            "model's exports) changed; third-party packages build on it. If the change is "
            f"deliberate, run `{UPDATE}` and add a line to CHANGELOG.md.\n{difference}"
        )


def test_the_snapshot_notices_a_changed_hook_signature(monkeypatch: Any) -> None:
    hookspecs = importlib.import_module("phasegate.hookspecs")

    def phasegate_report_ready(report: Any, extra: int) -> None:
        """A spec that grew an argument."""

    spec = hookspecs.phasegate_report_ready.phasegate_spec
    phasegate_report_ready.phasegate_spec = spec  # type: ignore[attr-defined]
    monkeypatch.setattr(hookspecs, "phasegate_report_ready", phasegate_report_ready)
    recorded = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    changed = current_surface()
    assert changed != recorded
    assert changed["hookspecs"]["hooks"]["phasegate_report_ready"]["signature"] == (
        "(report: 'Any', extra: 'int') -> 'None'"
    )


if __name__ == "__main__":
    SNAPSHOT.write_text(_dump(current_surface()), encoding="utf-8")
    print(f"wrote {SNAPSHOT}")
