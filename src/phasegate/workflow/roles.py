"""The role map, reassessed at every phase boundary.

The rule, deterministic so that every member (and every agent) computes the same map:

1. start from the members in their configured order, rotated left by the number of phase
   boundaries the instance has crossed, so that leading passes round the team;
2. members whose ``expertise`` names the phase move to the front (keeping their order): the
   phase is led by someone who knows it;
3. roles are handed out in order (the first role leads) to the members in that order; with
   fewer members than roles a member holds several roles; members left over join the
   ``worker`` role (or the last role when the workflow has no ``worker``).

With no members at all every role is open (an empty list), and ``phase status`` says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["UNASSIGNED", "assign_roles"]

#: How an open role is shown.
UNASSIGNED = "(open)"


def assign_roles(
    roles: Sequence[str],
    members: Sequence[str],
    *,
    phase: str,
    boundary: int,
    expertise: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, list[str]]:
    """``{role: [members]}`` for ``phase``, entered at phase boundary number ``boundary``."""
    role_map: dict[str, list[str]] = {role: [] for role in roles}
    if not members or not roles:
        return role_map
    ordered = _pick_order(members, phase=phase, boundary=boundary, expertise=expertise or {})
    for index, role in enumerate(roles):
        role_map[role].append(ordered[index % len(ordered)])
    extra_role = "worker" if "worker" in role_map else roles[-1]
    role_map[extra_role] += ordered[len(roles) :]
    return role_map


def _pick_order(
    members: Sequence[str], *, phase: str, boundary: int, expertise: Mapping[str, Sequence[str]]
) -> list[str]:
    """The members rotated by the boundary number, the phase's experts first."""
    shift = boundary % len(members)
    rotated = [*members[shift:], *members[:shift]]
    experts = [m for m in rotated if phase in expertise.get(m, ())]
    return experts + [m for m in rotated if m not in experts]
