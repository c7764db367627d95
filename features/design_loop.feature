Feature: The design loop audits the architecture, then each module, until a critic accepts it

  Background:
    Given a workflow file "designed.toml":
      """
      name = "designed"
      phases = ["DESIGN", "BUILD"]

      [phase.DESIGN.loop]
      kind = "design"
      max_rounds = 2
      max_rejections = 1
      """
    And the file "docs/design/shop/architecture.md" contains:
      """
      # Shop

      ## Modules
      - cart: holds what the customer picked
      - pay: takes the money
      """
    And the file "docs/design/shop/cart.md" contains:
      """
      # cart: a list of lines, each a product and a quantity
      """
    And the file "docs/design/shop/pay.md" contains:
      """
      # pay: one payment per order, refunded whole or not at all
      """
    And an instance "shop" of the "designed" workflow

  Scenario: The architecture and then each module, accepted in order, open the way out of DESIGN
    When "dan" submits the design of "shop"
    And "cora" gives the design of "shop" the verdict ACCEPT
    Then the design loop of "shop" has the modules "cart" and "pay"
    When "ann" advances "shop"
    Then the advance halted with a diagnosis mentioning "the design of cart is due from the designer"
    When "dan" submits the design of "shop"
    And "cora" gives the design of "shop" the verdict ACCEPT
    And "dan" submits the design of "shop"
    And "cora" gives the design of "shop" the verdict ACCEPT
    Then the design loop of "shop" is done
    When "ann" advances "shop"
    Then "shop" is in phase BUILD
    And the events of "shop" include "design.submitted", "design.accepted" and "design.done"

  Scenario: The designer cannot judge their own draft, and a REVISE wants a changed draft
    When "dan" submits the design of "shop"
    And "dan" gives the design of "shop" the verdict ACCEPT
    Then it was refused with an error mentioning "the verdict is given by a critic who did not write it"
    When "cora" gives the design of "shop" the verdict REVISE
    And "dan" submits the design of "shop"
    Then it was refused with an error mentioning "unchanged since the critic asked to REVISE it"
    When the file "docs/design/shop/architecture.md" contains:
      """
      # Shop, revised: the cart is kept per session

      ## Modules
      - cart: holds what the customer picked, per session
      - pay: takes the money
      """
    And "dan" submits the design of "shop"
    And "cora" gives the design of "shop" the verdict ACCEPT
    Then the design of "architecture" in "shop" is accepted after 2 draft(s)
    And the events of "shop" include "design.revise"

  Scenario: A REJECT discards the draft, and one REJECT too many fails the instance
    When "dan" submits the design of "shop"
    And "cora" gives the design of "shop" the verdict ACCEPT
    And "dan" submits the design of "shop"
    And "cora" gives the design of "shop" the verdict REJECT
    Then "shop" is RUNNING
    When "dan" submits the design of "shop"
    Then it was refused with an error mentioning "was rejected and discarded already"
    When the file "docs/design/shop/cart.md" contains:
      """
      # cart: a dictionary of product to quantity
      """
    And "dan" submits the design of "shop"
    And "cora" gives the design of "shop" the verdict REJECT
    Then "shop" is FAILED
    And the failure of "shop" says "rejected 2 times in this loop (max_rejections = 1)"
    And the events of "shop" include "design.rejected" and "failed"

  Scenario: A design not accepted within max_rounds drafts goes to a person
    When "dan" submits the design of "shop"
    And "cora" gives the design of "shop" the verdict REVISE
    And the file "docs/design/shop/architecture.md" contains:
      """
      # Shop, second try

      ## Modules
      - cart: holds what the customer picked
      """
    And "dan" submits the design of "shop"
    And "cora" gives the design of "shop" the verdict REVISE
    Then "shop" is BLOCKED
    And the events of "shop" include "escalation.required"

  Scenario: A document changed after it was accepted is audited again before DESIGN is left
    When "dan" submits the design of "shop"
    And "cora" gives the design of "shop" the verdict ACCEPT
    And "dan" submits the design of "shop"
    And "cora" gives the design of "shop" the verdict ACCEPT
    And "dan" submits the design of "shop"
    And "cora" gives the design of "shop" the verdict ACCEPT
    And the file "docs/design/shop/cart.md" contains:
      """
      # cart: quietly changed after the audit
      """
    And "ann" advances "shop"
    Then the advance halted with a diagnosis mentioning "docs/design/shop/cart.md changed since the design of cart was accepted"
    When "dan" submits the design of "cart" of "shop" again
    And "cora" gives the design of "shop" the verdict ACCEPT
    And "ann" advances "shop"
    Then "shop" is in phase BUILD
