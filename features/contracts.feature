Feature: A step declares the context it needs and produces; a mismatch blocks or holds it

  Background:
    Given a workflow file "piped.toml":
      """
      name = "piped"
      phases = ["design", "implement"]

      [phase.design]
      inputs = { feature = "string" }
      outputs = { design = "object" }

      [phase.implement]
      inputs = { design = "object" }
      """

  Scenario: Started without its input, the instance is blocked until the input is given
    When "ann" starts an instance "auth" of the "piped" workflow
    Then "auth" is BLOCKED
    And the events of "auth" include "context.invalid" and "escalation.required"
    When "ann" resumes "auth"
    Then it was refused with an error mentioning "the context still does not match the inputs of design: feature is missing"
    When "ann" outputs feature = "log in by e-mail" on "auth"
    And "ann" resumes "auth"
    Then "auth" is RUNNING

  Scenario: A phase is left only with its outputs, of the declared type
    When "ann" starts an instance "auth" of the "piped" workflow with feature = "log in"
    And "ann" advances "auth"
    Then the advance halted with a diagnosis mentioning "design must produce design is missing"
    When "ann" outputs design = "a sketch" on "auth"
    And "ann" advances "auth"
    Then the advance halted with a diagnosis mentioning "design = 'a sketch' is not an object"
    When "ann" outputs design = {"components": ["AuthService"]} on "auth"
    And "ann" advances "auth"
    Then "auth" is in phase implement
    And the context of "auth" holds "feature" and "design"
