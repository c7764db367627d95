Feature: Phases move in order, and a failed prerequisite halts progression
  An instance moves through its workflow's phases in order. Leaving a phase needs its exit
  gate to be sufficient; when it is not, the instance stays where it is and the caller gets
  the gate's diagnosis. Roles are reassessed at every phase boundary.

  Background:
    Given the team "ann, bob, cy"
    And a gate "compiles" that requires the syntax check
    And a workflow file "build.toml":
      """
      name = "build"
      roles = ["primus", "worker", "supervisor"]
      phases = ["design", "code", "ship"]

      [phase.code]
      exit_gate = "compiles"
      """

  Scenario: An EDRR cycle runs through its four phases and completes
    Given an instance "cycle" of the "edrr" workflow
    When "ann" advances "cycle"
    And "ann" advances "cycle"
    And "bob" reviews "cycle" as approved
    And "ann" advances "cycle"
    And "ann" advances "cycle"
    Then "cycle" is COMPLETE
    And the roles of "cycle" were assessed 4 times
    And the events of "cycle" include "started", "phase.entered", "roles.assigned", "review.approved" and "complete"

  Scenario: Roles pass round the team at every phase boundary
    Given an instance "work" of the "build" workflow
    Then "ann" holds the primus role of "work"
    When "ann" advances "work"
    Then "bob" holds the primus role of "work"
    And "cy" holds the worker role of "work"

  Scenario: An expert in a phase leads it
    Given "cy" is an expert in code
    And an instance "work" of the "build" workflow
    When "ann" advances "work"
    Then "cy" holds the primus role of "work"

  Scenario: A failing exit gate halts progression with the diagnosis
    Given the file "src/app.py" contains:
      """
      def broken(:
          pass
      """
    And an instance "work" of the "build" workflow
    And "work" has advanced to code
    When "ann" advances "work"
    Then the advance halted with a diagnosis mentioning "gate compiles: syntax"
    And "work" is in phase code
    And "work" is RUNNING

  Scenario: Fixing the code releases the halted instance
    Given the file "src/app.py" contains:
      """
      def broken(:
          pass
      """
    And an instance "work" of the "build" workflow
    And "work" has advanced to code
    When "ann" advances "work"
    And the file "src/app.py" contains:
      """
      def fixed():
          pass
      """
    And "ann" advances "work"
    Then the advance moved on
    And "work" is in phase ship

  Scenario: The SDLC holds BRAINSTORM until the request names its constraints
    Given an instance "login" of the "sdlc" workflow
    And the file "docs/requirements/login_req.md" contains:
      """
      # Log in by e-mail

      ## Goal
      Users log in with their e-mail address and a one-time code.

      ## Stack
      Python 3.11 and FastAPI.
      """
    When "ann" advances "login"
    Then the advance halted with a diagnosis mentioning "the constraints section is missing"
    And "login" is in phase BRAINSTORM

  Scenario: The golden path runs design, implement and review
    Given a gate "default" that requires the syntax check
    And an instance "feature" of the "golden-path" workflow
    When "ann" advances "feature"
    And "ann" advances "feature"
    And "bob" reviews "feature" as approved
    And "ann" advances "feature"
    Then "feature" is COMPLETE
