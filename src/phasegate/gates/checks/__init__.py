"""The built-in checks, one module each (see :data:`phasegate.gates.registry.BUILT_IN`)."""
