Feature: Every instance ends: escalation blocks, a person resumes, COMPLETE and FAILED are final

  Background:
    Given a workflow file "short.toml":
      """
      name = "short"
      max_escalations = 1
      phases = ["do", "check"]
      """
    And an instance "task" of the "short" workflow

  Scenario: Escalation marks the instance BLOCKED with the reason
    When "ann" escalates "task" because "the API key is missing"
    Then "task" is BLOCKED
    And the history of "task" records a escalate by "ann" because "the API key is missing"
    When "ann" advances "task"
    Then it was refused with an error mentioning "blocked: the API key is missing"

  Scenario: A person resumes a blocked instance
    When "ann" escalates "task" because "the API key is missing"
    And "bob" resumes "task"
    And "ann" advances "task"
    Then "task" is in phase check

  Scenario: Escalations are bounded
    When "ann" escalates "task" because "first"
    And "bob" resumes "task"
    And "ann" escalates "task" because "second"
    Then "task" is FAILED

  Scenario: A complete instance accepts no further action
    When "ann" advances "task"
    And "ann" advances "task"
    Then "task" is COMPLETE
    When "ann" advances "task"
    Then it was refused with an error mentioning "task is COMPLETE"
    When "ann" escalates "task" because "late"
    Then it was refused with an error mentioning "task is COMPLETE"

  Scenario: A failed instance accepts no further action
    When "ann" fails "task" because "abandoned"
    And "ann" advances "task"
    Then it was refused with an error mentioning "failed: abandoned"
