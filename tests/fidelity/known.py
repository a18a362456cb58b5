"""Cases where stoker does not (yet) show what Heat shows, each with a one-line reason.

``MISMATCHES`` and ``HEAT_BUGS`` run as ``xfail(strict=True)``: when a fix makes a case
match, its test fails and the entry must go. Every entry left in ``MISMATCHES`` is a
deliberate difference that docs/heat-differences.md lists with its reason. ``HEAT_BUGS``
are differences on purpose too: Heat (or python-heatclient, which the CLI stands for) is
plainly wrong there, and docs/heat-differences.md ("Recorded Heat bugs") says what stoker
does instead.

``SEED_REQUIRED`` are not mismatches: the specification (``/work/shared/seeds``) defines
what stoker does there, and Heat 24.1.2 does not have it. Each entry names the one
difference the comparator must find, and the test passes only when exactly that
difference is found (so a regression on the rest of the case still fails).
"""

from __future__ import annotations

# ------------------------------------------- deliberate differences, each documented
MISMATCHES: dict[str, str] = {}

# ------------------------------------ required by the seeds (the specification), not bugs
CAPABILITIES = (
    "validate: Heat refuses (The template section is invalid: capabilities), stoker accepts",
    "seed 003 defines the template capabilities section (the heat-specs "
    '"resource-capabilities" proposal); Heat 24.1.2 does not know it and refuses it; lint '
    "warns that Heat refuses it (W1004)",
)

#: case id -> (the difference the comparator must report, exactly; why it is required)
SEED_REQUIRED: dict[str, tuple[str, str]] = {
    "versions/capabilities_section@2018-08-31": CAPABILITIES,
    "versions/capabilities_section@2021-04-16": CAPABILITIES,
}

HEAT_BUGS: dict[str, str] = {
    "refs/output_from_failed_resource@2018-08-31": (
        "a TestResource whose create failed answers get_attr with resource data left by "
        "another, deleted resource (the value changes from run to run)"
    ),
    "environments/registry_per_resource": (
        "a per-resource registry entry for one resource turns the other resources of that "
        "type into OS::Heat::None when outputs are read (their attributes become null)"
    ),
    "environments/registry_null_disables": (
        "python-heatclient crashes (TypeError: argument of type 'NoneType' is not iterable) "
        "on a null resource_registry entry; Heat's API accepts the environment"
    ),
}
