"""Cases where stoker does not (yet) show what Heat shows, each with a one-line reason.

Both tables run as ``xfail(strict=True)``: when a fix makes a case match, its test fails
and the entry must go. Every entry left in ``MISMATCHES`` is a deliberate difference that
docs/heat-differences.md lists with its reason. ``HEAT_BUGS`` are differences on purpose
too: Heat is plainly wrong there, and docs/heat-differences.md ("Recorded Heat bugs")
says what stoker does instead.
"""

from __future__ import annotations

# ------------------------------------------- deliberate differences, each documented
CAPABILITIES = (
    "deliberate (docs/heat-differences.md): the capabilities section is stoker's template "
    "capabilities extension, unknown to Heat 24.1.2, which refuses it; lint warns (W1004)"
)
GET_AZS = (
    "deliberate (docs/heat-differences.md): Fn::GetAZs asks Nova, which the reference Heat "
    "lacks (output_error); stoker, with no cloud, answers ['nova'] as Heat does without one"
)

MISMATCHES: dict[str, str] = {
    "cfn/get_azs": GET_AZS,
    "collections/fn_getazs_hot@2013-05-23": GET_AZS,
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
}
