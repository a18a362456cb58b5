"""ONAP's numbered requirements on VNF Heat templates and environment files, as data.

Transcribed from ONAP's VNF requirements (section 5.2.2, "ONAP Heat Orchestration Template
Format"): id, keyword, validation mode and text. Every requirement a static check can
decide is a rule of the ``onap`` profile, with the requirement id as rule id (ONAP's
validation_mode does not decide it: R-26124 is marked ``none`` yet a package answers it);
the others are listed by ``stoker lint --list-rules`` as not checked, each with the reason.
"""

from __future__ import annotations

from stoker.lint.onap.naming import BEYOND_SEED
from stoker.lint.onap.requirement import KEYWORD_SEVERITY, PERMISSION, SOURCE_DOCUMENT, Requirement

__all__ = [
    "BEYOND_SEED",
    "BY_ID",
    "KEYWORD_SEVERITY",
    "REQUIREMENTS",
    "SOURCE_DOCUMENT",
    "Requirement",
    "not_checked",
    "requirement",
]

_NO_MODE = "the document gives it no validation_mode; " + PERMISSION
_NONE_MODE = "ONAP marks it validation_mode: none; " + PERMISSION


def _permission(rid: str, mode: str | None, section: str, text: str) -> Requirement:
    """A MAY of the seed, not checked: ONAP marks it validation_mode none, or gives none."""
    reason = _NONE_MODE if mode == "none" else _NO_MODE
    return Requirement(rid, "MAY", mode, section, text, not_checked=reason)


REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement(
        "R-92635",
        "MUST",
        "static",
        "5.2.2",
        "A VNF's Heat Orchestration Template MUST be compliant with the OpenStack Template Guide.",
    ),
    Requirement(
        "R-27078",
        "MUST",
        "static",
        "5.2.2.1.1 heat_template_version",
        "A VNF's Heat Orchestration template MUST contain the section heat_template_version:.",
    ),
    Requirement(
        "R-39402",
        "MUST",
        "static",
        "5.2.2.1.2 description",
        "A VNF's Heat Orchestration Template MUST contain the section description:.",
    ),
    Requirement(
        "R-35414",
        "MUST",
        "static",
        "5.2.2.1.4 parameters",
        "A VNF Heat Orchestration's template MUST contain the section parameters: with at "
        "least one parameter defined.",
    ),
    Requirement(
        "R-90279",
        "MUST",
        "static",
        "5.2.2.1.4 parameters",
        "A VNF Heat Orchestration's template's parameter MUST be used in a resource AND/OR "
        "in a output parameter (in the outputs section), with the exception of the "
        "parameters for the OS::Nova::Server resource property availability_zone which is "
        "defined in R-98450.",
    ),
    Requirement(
        "R-91273",
        "MAY NOT",
        "none",
        "5.2.2.1.4 parameters",
        "A VNF Heat Orchestration's template's parameter for the OS::Nova::Server resource "
        "property availability_zone MAY NOT be used in any OS::Nova::Server.",
        not_checked=(
            "ONAP marks it validation_mode: none; it is a permission, honoured as the "
            "exception in R-90279 (availability_zone_<index> parameters may be unused)"
        ),
    ),
    Requirement(
        "R-25877",
        "MUST",
        "static",
        "5.2.2.1.4.1 <param name>",
        "A VNF's Heat Orchestration Template's parameter name (i.e., <param name>) MUST "
        "contain only alphanumeric characters and underscores ('_').",
    ),
    Requirement(
        "R-36772",
        "MUST",
        "static",
        "5.2.2.1.4.2 type",
        "A VNF's Heat Orchestration Template's parameter MUST include the attribute type:.",
    ),
    Requirement(
        "R-11441",
        "MUST",
        "static",
        "5.2.2.1.4.2 type",
        "A VNF's Heat Orchestration Template's parameter type MUST be one of the following "
        "values: string, number, json, comma_delimited_list, boolean.",
    ),
    _permission(
        "R-32094",
        "none",
        "5.2.2.1.4.3 label",
        "A VNF's Heat Orchestration Template parameter declaration MAY contain the attribute "
        "label:.",
    ),
    Requirement(
        "R-44001",
        "MUST",
        "static",
        "5.2.2.1.4.4 description",
        "A VNF's Heat Orchestration Template parameter declaration MUST contain the "
        "attribute description.",
    ),
    Requirement(
        "R-90526",
        "MUST NOT",
        "static",
        "5.2.2.1.4.5 default",
        "A VNF Heat Orchestration Template parameter declaration MUST NOT contain the "
        "default attribute.",
    ),
    Requirement(
        "R-26124",
        "MUST",
        "none",
        "5.2.2.1.4.5 default",
        "If a VNF Heat Orchestration Template parameter has a default value, it MUST be "
        "enumerated in the environment file.",
    ),
    _permission(
        "R-32557",
        "none",
        "5.2.2.1.4.6 hidden",
        "A VNF's Heat Orchestration Template parameter declaration MAY contain the attribute "
        "hidden:.",
    ),
    _permission(
        "R-88863",
        "none",
        "5.2.2.1.4.7 constraints",
        "A VNF's Heat Orchestration Template's parameter defined in a non-nested YAML file "
        "as type number MAY have a parameter constraint defined.",
    ),
    _permission(
        "R-40518",
        None,
        "5.2.2.1.4.7 constraints",
        "A VNF's Heat Orchestration Template's parameter defined in a non-nested YAML file "
        "as type string MAY have a parameter constraint defined.",
    ),
    _permission(
        "R-96227",
        None,
        "5.2.2.1.4.7 constraints",
        "A VNF's Heat Orchestration Template's parameter defined in a non-nested YAML file "
        "as type json MAY have a parameter constraint defined.",
    ),
    _permission(
        "R-79817",
        None,
        "5.2.2.1.4.7 constraints",
        "A VNF's Heat Orchestration Template's parameter defined in a non-nested YAML file "
        "as type comma_delimited_list MAY have a parameter constraint defined.",
    ),
    _permission(
        "R-06613",
        None,
        "5.2.2.1.4.7 constraints",
        "A VNF's Heat Orchestration Template's parameter defined in a non-nested YAML file "
        "as type boolean MAY have a parameter constraint defined.",
    ),
    Requirement(
        "R-00011",
        "SHOULD NOT",
        "static",
        "5.2.2.1.4.7 constraints",
        "A VNF's Heat Orchestration Template's parameter defined in a nested YAML file "
        "SHOULD NOT have a parameter constraint defined.",
    ),
    _permission(
        "R-22589",
        None,
        "5.2.2.1.4.8 immutable",
        "A VNF's Heat Orchestration Template parameter declaration MAY contain the attribute "
        "immutable:.",
    ),
    _permission(
        "R-225891",
        None,
        "5.2.2.1.4.9 tags",
        "A VNF's Heat Orchestration Template parameter declaration MAY contain the attribute "
        "tags:.",
    ),
    Requirement(
        "R-23663",
        "MAY",
        None,
        "5.2.2.1.5 resources",
        "A VNF's Heat Orchestration template's base module MAY (or MAY NOT) contain the "
        "section resources:.",
        not_checked=(
            "the document gives it no validation_mode; a permission, honoured by R-23664 "
            "(only incremental and volume modules must have resources:)"
        ),
    ),
    Requirement(
        "R-23664",
        "MUST",
        "static",
        "5.2.2.1.5 resources",
        "A VNF's Heat Orchestration template's incremental module and volume module MUST "
        "contain the section resources:.",
    ),
    Requirement(
        "R-90152",
        "MUST",
        "static",
        "5.2.2.1.5 resources",
        "A VNF's Heat Orchestration Template's resources: section MUST contain the "
        "declaration of at least one resource.",
    ),
    Requirement(
        "R-40551",
        "MAY",
        None,
        "5.2.2.1.5 resources",
        "A VNF's Heat Orchestration Template's Nested YAML files MAY (or MAY NOT) contain "
        "the section resources:.",
        not_checked=(
            "the document gives it no validation_mode; a permission, honoured by R-23664 "
            "(nested files need no resources:)"
        ),
    ),
    Requirement(
        "R-75141",
        "MUST",
        "static",
        "5.2.2.1.5.1 resource ID",
        "A VNF's Heat Orchestration Template's resource name (i.e., <resource ID>) MUST "
        "only contain alphanumeric characters and underscores ('_').",
    ),
    Requirement(
        "R-16447",
        "MUST",
        "static",
        "5.2.2.1.5.1 resource ID",
        "A VNF's <resource ID> MUST be unique across all Heat Orchestration Templates and "
        "all HEAT Orchestration Template Nested YAML files that are used to create the VNF.",
    ),
    Requirement(
        "R-53952",
        "MUST NOT",
        "static",
        "5.2.2.1.5.2 type",
        "A VNF's Heat Orchestration Template's Resource MUST NOT reference a HTTP-based "
        "resource definitions.",
    ),
    Requirement(
        "R-71699",
        "MUST NOT",
        "static",
        "5.2.2.1.5.2 type",
        "A VNF's Heat Orchestration Template's Resource MUST NOT reference a HTTP-based "
        "Nested YAML file.",
    ),
    Requirement(
        "R-10834",
        "MUST NOT",
        "static",
        "5.2.2.1.5.3 properties",
        "A VNF's Heat Orchestration Template resource attribute property: MUST NOT use more "
        "than two levels of nested get_param intrinsic functions when deriving a property "
        "value. SDC does not support nested get_param with recursive lists (i.e., a list "
        "inside list). The second get_param in a nested lookup must directly derive its "
        "value without further calls to get_param functions.",
    ),
    Requirement(
        "R-67386",
        "MAY",
        "static",
        "5.2.2.1.5.4 metadata",
        "A VNF's Heat Orchestration Template's Resource MAY declare the attribute metadata.",
    ),
    _permission(
        "R-46968",
        None,
        "5.2.2.1.5.5 depends_on",
        "VNF's Heat Orchestration Template's Resource MAY declare the attribute depends_on:.",
    ),
    _permission(
        "R-63137",
        None,
        "5.2.2.1.5.6 update_policy",
        "VNF's Heat Orchestration Template's Resource MAY declare the attribute update_policy:.",
    ),
    Requirement(
        "R-43740",
        "MAY",
        None,
        "5.2.2.1.5.7 deletion_policy",
        "VNF's Heat Orchestration Template's Resource MAY declare the attribute deletion_policy:.",
        not_checked=_NO_MODE + " (the values themselves are Heat's rule: E1010)",
    ),
    _permission(
        "R-78569",
        None,
        "5.2.2.1.5.8 external_id",
        "VNF's Heat Orchestration Template's Resource MAY declare the attribute external_id:.",
    ),
    _permission(
        "R-36982",
        None,
        "5.2.2.1.6 outputs",
        "A VNF's Heat Orchestration template MAY contain the outputs: section.",
    ),
    Requirement(
        "R-86285",
        "MUST",
        "static",
        "5.2.2.2 Environment File Format",
        "A VNF's Heat Orchestration template MUST have a corresponding environment file.",
    ),
    Requirement(
        "R-03324",
        "MUST",
        "static",
        "5.2.2.2 Environment File Format",
        "A VNF's Heat Orchestration template's Environment File MUST contain the "
        "parameters: section.",
    ),
    _permission(
        "R-68198",
        None,
        "5.2.2.2 Environment File Format",
        "A VNF's Heat Orchestration template's Environment File's parameters: section MAY "
        "(or MAY NOT) enumerate parameters.",
    ),
    _permission(
        "R-59930",
        None,
        "5.2.2.2 Environment File Format",
        "A VNF's Heat Orchestration template's Environment File's MAY contain the "
        "parameter_defaults: section.",
    ),
    _permission(
        "R-46096",
        None,
        "5.2.2.2 Environment File Format",
        "A VNF's Heat Orchestration template's Environment File's MAY contain the "
        "encrypted_parameters: section.",
    ),
    _permission(
        "R-24893",
        None,
        "5.2.2.2 Environment File Format",
        "A VNF's Heat Orchestration template's Environment File's MAY contain the "
        "event_sinks: section.",
    ),
    _permission(
        "R-42685",
        None,
        "5.2.2.2 Environment File Format",
        "A VNF's Heat Orchestration template's Environment File's MAY contain the "
        "parameter_merge_strategies: section.",
    ),
    Requirement(
        "R-67231",
        "MUST NOT",
        "static",
        "5.2.2.2 Environment File Format",
        "A VNF's Heat Orchestration template's Environment File's MUST NOT contain the "
        "resource_registry: section.",
    ),
)

BY_ID: dict[str, Requirement] = {
    requirement.id: requirement for requirement in (*REQUIREMENTS, *BEYOND_SEED)
}


def requirement(requirement_id: str) -> Requirement:
    return BY_ID[requirement_id]


def not_checked() -> list[Requirement]:
    """The requirements the onap profile does not check, each with its reason: the seed's
    first, then those of the naming conventions beyond it."""
    return [r for r in (*REQUIREMENTS, *BEYOND_SEED) if not r.checked]
