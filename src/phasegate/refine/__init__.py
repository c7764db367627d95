"""The refinement loop across gate runs, its metrics, and the router's next action.

Nothing here imports pytest: the pytest plugin and ``phasegate merge`` both call
:func:`phasegate.refine.state.record_round` once a verdict is written.
"""
