"""Template format versions: which keys select them, their sections and definition keys.

Heat-compatibility facts live here as data (see heat-semantics §1.1, §1.3); the function
tables per version are in `stoker.functions.tables`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from stoker import codes
from stoker.diagnostics import Diagnostic, Span


class Format(StrEnum):
    HOT = "hot"
    CFN = "cfn"


@dataclass(slots=True, frozen=True)
class TemplateVersion:
    """One template version: the key/value that selects it and what it allows. Immutable,
    compared and hashed by value."""

    #: heat_template_version | AWSTemplateFormatVersion | HeatTemplateFormatVersion
    key: str
    #: canonical date
    value: str
    format: Format
    alias: str | None
    sections: frozenset[str]
    resource_keys: frozenset[str]
    output_keys: frozenset[str]
    #: position in release order; HOT versions compare by it
    order: int

    @property
    def name(self) -> str:
        return f"{self.key}.{self.value}"

    @property
    def alias_name(self) -> str:
        """``heat_template_version.newton``: the alias as a name ("" without one)."""
        return f"{self.key}.{self.alias}" if self.alias else ""

    def listed(self) -> dict[str, Any]:
        """Its row in Heat's template_versions listing."""
        aliases = [self.alias_name] if self.alias else []
        return {"version": self.name, "type": self.format.value, "aliases": aliases}

    @property
    def has_conditions(self) -> bool:
        return ("conditions" in self.sections) or ("Conditions" in self.sections)

    @property
    def has_capabilities(self) -> bool:
        return "capabilities" in self.sections

    def __str__(self) -> str:
        return f"{self.key}: {self.value}"


def cfn_spelling(name: str) -> str:
    """How CFN, and Heat's class names, spell a HOT snake_case name: ``depends_on`` is
    ``DependsOn``, ``comma_delimited_list`` ``CommaDelimitedList``."""
    return "".join(word.capitalize() for word in name.split("_"))


_HOT_BASE_SECTIONS = frozenset(
    {
        "heat_template_version",
        "description",
        "parameter_groups",
        "parameters",
        "resources",
        "outputs",
    }
)
_HOT_BASE_RESOURCE_KEYS = frozenset(
    {
        "type",
        "properties",
        "metadata",
        "depends_on",
        "deletion_policy",
        "update_policy",
        "description",
    }
)
_CFN_BASE_SECTIONS = frozenset(
    {
        "AWSTemplateFormatVersion",
        "HeatTemplateFormatVersion",
        "Description",
        "Mappings",
        "Parameters",
        "Resources",
        "Outputs",
    }
)
_CFN_RESOURCE_KEYS = frozenset(cfn_spelling(key) for key in _HOT_BASE_RESOURCE_KEYS)

_HOT_RELEASES: list[tuple[str, str | None]] = [
    ("2013-05-23", None),
    ("2014-10-16", None),
    ("2015-04-30", None),
    ("2015-10-15", None),
    ("2016-04-08", None),
    ("2016-10-14", "newton"),
    ("2017-02-24", "ocata"),
    ("2017-09-01", "pike"),
    ("2018-03-02", "queens"),
    ("2018-08-31", "rocky"),
    ("2021-04-16", "wallaby"),
]
CONDITIONS_FROM = "2016-10-14"
# The capabilities annotation (heat-specs "resource-capabilities", targeted at Mitaka and
# never merged into Heat) was proposed for 2015-10-15; stoker reads it from there on.
CAPABILITIES_FROM = "2015-10-15"


def _hot(order: int, date: str, alias: str | None) -> TemplateVersion:
    with_conditions = date >= CONDITIONS_FROM
    with_capabilities = date >= CAPABILITIES_FROM
    return TemplateVersion(
        key="heat_template_version",
        value=date,
        format=Format.HOT,
        alias=alias,
        sections=_HOT_BASE_SECTIONS
        | ({"conditions"} if with_conditions else set())
        | ({"capabilities"} if with_capabilities else set()),
        resource_keys=_HOT_BASE_RESOURCE_KEYS
        | ({"external_id", "condition"} if with_conditions else set()),
        output_keys=frozenset(
            {"description", "value"} | ({"condition"} if with_conditions else set())
        ),
        order=order,
    )


HOT_VERSIONS: tuple[TemplateVersion, ...] = tuple(
    _hot(index, date, alias) for index, (date, alias) in enumerate(_HOT_RELEASES)
)
CFN_HEAT = TemplateVersion(
    key="HeatTemplateFormatVersion",
    value="2012-12-12",
    format=Format.CFN,
    alias=None,
    sections=_CFN_BASE_SECTIONS,
    resource_keys=_CFN_RESOURCE_KEYS,
    output_keys=frozenset({"Description", "Value"}),
    order=-1,
)
CFN_AWS = TemplateVersion(
    key="AWSTemplateFormatVersion",
    value="2010-09-09",
    format=Format.CFN,
    alias=None,
    sections=_CFN_BASE_SECTIONS | {"Conditions"},
    resource_keys=_CFN_RESOURCE_KEYS | {"Condition"},
    output_keys=frozenset({"Description", "Value", "Condition"}),
    order=-1,
)
ALL_VERSIONS: tuple[TemplateVersion, ...] = (CFN_AWS, CFN_HEAT, *HOT_VERSIONS)
VERSION_KEYS = ("heat_template_version", "AWSTemplateFormatVersion", "HeatTemplateFormatVersion")


def is_template_data(data: object) -> bool:
    """What Heat's ``template_format.parse`` takes for a template: a mapping with a version
    key (environments, role data and other YAML files in a tree have none)."""
    return isinstance(data, Mapping) and any(key in data for key in VERSION_KEYS)


_BY_KEY_VALUE: dict[tuple[str, str], TemplateVersion] = {}
for _version in ALL_VERSIONS:
    _BY_KEY_VALUE[(_version.key, _version.value)] = _version
    if _version.alias:
        _BY_KEY_VALUE[(_version.key, _version.alias)] = _version

LATEST_HOT = HOT_VERSIONS[-1]


def lookup(key: str, value: str) -> TemplateVersion | None:
    return _BY_KEY_VALUE.get((key, value))


def unknown_version(key: str, value: Any, span: Span | None) -> Diagnostic:
    """The finding for a ``key: value`` no version has, with the values accepted for
    ``key`` (dates and aliases, sorted as Heat lists them)."""
    accepted = ", ".join(sorted(v for (k, v) in _BY_KEY_VALUE if k == key))
    message = f'The template version is invalid: "{key}: {value}". "{key}" should be one of: '
    return Diagnostic(codes.VERSION, message + accepted, (key,), span)


def hot(date_or_alias: str) -> TemplateVersion:
    version = lookup("heat_template_version", date_or_alias)
    if version is None:
        raise KeyError(date_or_alias)
    return version
