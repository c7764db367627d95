"""The refinement loop across gate runs, its metrics, and the router's next action.

Nothing here imports pytest: the pytest plugin and ``phasegate merge`` both call
:func:`phasegate.refine.state.record_round` once a verdict is written. One module, one job:

===========  ================================================================================
``state``    a gate run recorded as a round: read the loop, advance it, route, write both files
``loop``     one round: moving average, feedback kept and resolved, the loop's status
``router``   the next action and its reason, by deterministic rules taken in order
``metrics``  one loop's metrics, a summary over many loops, and the baseline comparison
===========  ================================================================================
"""
