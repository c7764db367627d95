"""The gate engine: gate definitions, the check protocol, the checks, the runner and its cache.

Nothing here imports pytest; ``phasegate.plugin.gate`` (with
``phasegate.plugin.gate_session``) and ``phasegate.cli.gate`` are the front ends. This
package's ``__init__`` stays empty so that reading a gate definition does not import every
check.
"""
