"""Phase workflows: definitions, instances, reviews, events, and the handoff queue.

One job per module, none of them importing pytest:

========================  ==============================================================
``definition``            workflow files (TOML): phases, exit gates, loops, bounds
``definitions/``          the bundled workflows: EDRR, SDLC, golden path, DPTR
``settings``              ``[tool.phasegate.workflow]``: where workflows come from, instances
``machine``               the state machine: what each action does to an instance
``instances``             instance files in ``.phasegate/workflows/``, locked and atomic
``engine``                the coordinator: runs gates, flushes memory, emits events
``gating``                runs a phase's exit gate through the gate engine
``roles``                 the role map reassessed at every phase boundary
``memory_queue``          ``flush_memory_queue`` / ``restore_memory_queue``
``reviews``               peer-review outcomes, and GitHub ``pull_request_review`` payloads
``events``                ``workflow.{name}.{id}.{event}`` to ``events.jsonl`` and observers
``queue``                 the file-system handoff queue shared by several workers
``children``              child instances for complex subtasks (the rules)
``spawning``              who may spawn (the primus), measured complexity, children back
``design_loop``           the DPTR design loop's rules: ACCEPT / REVISE / REJECT per item
``plan_loop``             the DPTR plan loop's rules: PC PR DG / NR PA EN DA
``loops``                 the loops' commands: read the documents, apply the rules
``contracts``             a phase's inputs and outputs checked against the context
``liveness``              crashed work: heartbeats, retry then fail
``dependencies``          a task is claimed only when its dependencies are completed
``plan_tasks``            the approved plan's tasks as handoff-queue tasks
``handoff``               the handoff's moves, messages, task gates and sweep
``inbox``                 the worker's and the supervisor's inboxes
``gate_records``          every gate verdict kept per instance and per task
``phase_facts``           what leaving a phase needs from the project (documents, tasks)
========================  ==============================================================
"""
