Feature: Updates queued in a phase are flushed when it completes
  flush_memory_queue returns what it flushed; restore_memory_queue puts items back in their
  original order. When flushing fails, or there is no store, the final sync hook gets None
  and nothing is lost.

  Scenario: Flushing returns the items and restoring re-queues them in order
    Given a memory queue holding "a", "b" and "c"
    When the queue is flushed to the memory store
    Then the flushed items are "a", "b" and "c", in that order
    And the memory queue holds nothing
    When "d" is queued and the flushed items are restored
    Then the memory queue holds "a", "b", "c" and "d"

  Scenario: A phase's updates are flushed when it completes
    Given an instance "cycle" of the "edrr" workflow
    And "ann" queues the update "option" = "caching" on "cycle"
    When "ann" advances "cycle"
    Then the memory store holds "option" from "cycle"
    And the final sync hook received "option" for EXPAND
    And "cycle" still has 0 queued update(s)

  Scenario: Without a memory store the sync hook gets None and the updates stay queued
    Given no memory store is configured
    And an instance "cycle" of the "edrr" workflow
    And "ann" queues the update "option" = "caching" on "cycle"
    When "ann" advances "cycle"
    Then the final sync hook was called with None for EXPAND
    And "cycle" still has 1 queued update(s)

  Scenario: A failing store gets None to the hook, and the retrospective flushes what remains
    Given the memory store cannot be written
    And an instance "cycle" of the "edrr" workflow
    And "ann" queues the update "option" = "caching" on "cycle"
    When "ann" advances "cycle"
    Then the final sync hook was called with None for EXPAND
    And "cycle" still has 1 queued update(s)
    And the events of "cycle" include "memory.flush_failed"
    When the memory store is mended
    And "cycle" has advanced to RETROSPECT
    And "ann" advances "cycle"
    Then "cycle" is COMPLETE
    And the memory store holds "option" from "cycle"
    And the final sync hook received "option" for RETROSPECT
    And "cycle" still has 0 queued update(s)
