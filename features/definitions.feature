Feature: A bad workflow file gets a clear error naming the file, the key and the value

  Scenario: A transition to nowhere is refused
    Given a workflow file "loop.toml":
      """
      name = "loop"
      phases = ["write", "review"]

      [phase.review]
      on_reject = "rewrite"
      """
    When the workflow file "loop.toml" is loaded
    Then it was refused with an error mentioning "key phase.review.on_reject = 'rewrite' is a transition to nowhere; it must name one of the phases: write, review"

  Scenario: A table for an unknown phase is refused
    Given a workflow file "typo.toml":
      """
      name = "typo"
      phases = ["write", "review"]

      [phase.reveiw]
      review = true
      """
    When the workflow file "typo.toml" is loaded
    Then it was refused with an error mentioning "table [phase.reveiw] names an unknown phase 'reveiw'; the phases are: write, review"

  Scenario: An exit gate that does not exist is refused before the instance starts
    Given a workflow file "gated.toml":
      """
      name = "gated"
      phases = ["write"]

      [phase.write]
      exit_gate = "no-such-gate"
      """
    When "ann" starts an instance "doc" of the "gated" workflow
    Then it was refused with an error mentioning "key phase.write.exit_gate = 'no-such-gate' names no gate"
