"""The gate engine: gate definitions, the check protocol, the checks, the runner and its cache.

Nothing here imports pytest; ``phasegate.plugin.gate`` (with
``phasegate.plugin.gate_session``) and ``phasegate.cli.gate`` are the front ends. This
package's ``__init__`` holds one name and imports nothing, so that reading a gate definition
does not import every check, and ``pytest --gate=record`` imports no model at all.
"""

__all__ = ["RECORD_ONLY"]

#: The gate name that records the run and evaluates no gate (``--gate=record``).
RECORD_ONLY = "record"
