Feature: Phases move in order unless explicitly rewound, and every rewind is recorded

  Background:
    Given a workflow file "steps.toml":
      """
      name = "steps"
      max_rewinds = 2
      phases = ["one", "two", "three"]
      """
    And an instance "job" of the "steps" workflow
    And "job" has advanced to three

  Scenario: A rewind goes back and records who and why
    When "cy" rewinds "job" to one because "the scope changed"
    Then "job" is in phase one
    And the history of "job" records a rewind by "cy" because "the scope changed"
    And the events of "job" include "rewound"

  Scenario: A rewind cannot go forward
    When "cy" rewinds "job" to one because "the scope changed"
    And "cy" rewinds "job" to three because "skip ahead"
    Then it was refused with an error mentioning "a rewind goes to an earlier phase"
    And "job" is in phase one

  Scenario: A rewind to a phase that does not exist is refused
    When "cy" rewinds "job" to four because "typo"
    Then it was refused with an error mentioning "no such phase in steps; the phases are: one, two, three"

  Scenario: Rewinds are bounded
    When "cy" rewinds "job" to two because "again"
    And "ann" advances "job"
    And "cy" rewinds "job" to two because "and again"
    And "ann" advances "job"
    And "cy" rewinds "job" to two because "once more"
    Then it was refused with an error mentioning "rewound 2 times already"
    And "job" is in phase three
