"""Phase workflows: definitions, instances, reviews, events, and the handoff queue.

One job per module, none of them importing pytest:

========================  ==============================================================
``definition``            workflow files (TOML): phases, exit gates, loops, bounds
``machine``               the state machine: what each action does to an instance
``instances``             instance files in ``.phasegate/workflows/``, locked and atomic
``engine``                the coordinator: runs gates, flushes memory, emits events
``gating``                runs a phase's exit gate through the gate engine
``roles``                 the role map reassessed at every phase boundary
``memory_queue``          ``flush_memory_queue`` / ``restore_memory_queue``
``reviews``               peer-review outcomes, and GitHub ``pull_request_review`` payloads
``events``                ``workflow.{name}.{id}.{event}`` to ``events.jsonl`` and observers
``queue``                 the file-system handoff queue shared by several workers
``children``              child instances for complex subtasks
========================  ==============================================================
"""
