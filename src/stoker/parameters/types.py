"""The five parameter types and the names HOT and CFN templates give them (heat-semantics §3).

Internal code speaks `ParameterType`; the spelling a template used only matters for messages
("Range constraint invalid for String" in CFN, "... for string" in HOT) and for the
CFN-style names Heat's validate API reports.
"""

from __future__ import annotations

from enum import StrEnum

from stoker.template.versions import Format, cfn_spelling


class ParameterType(StrEnum):
    STRING = "string"
    NUMBER = "number"
    COMMA_DELIMITED_LIST = "comma_delimited_list"
    JSON = "json"
    BOOLEAN = "boolean"

    @property
    def cfn_name(self) -> str:
        """The CFN spelling, which is also what Heat's validate API shows as ``Type``."""
        return _CFN_NAMES[self]

    def name_in(self, template_format: Format) -> str:
        """How a template of that format spells this type (Heat's messages echo it)."""
        return self.cfn_name if template_format is Format.CFN else self.value


_CFN_NAMES = {kind: cfn_spelling(kind.value) for kind in ParameterType}
_BY_CFN_NAME = {name: kind for kind, name in _CFN_NAMES.items()}


def type_from_name(name: object, template_format: Format) -> ParameterType | None:
    """The type a template names, or None when ``name`` is not a type of that format.

    Heat is exact here: HOT accepts only the lowercase names and CFN only the CamelCase
    ones, so ``type: String`` in a HOT template is "Invalid type (String)".
    """
    if not isinstance(name, str):
        return None
    if template_format is Format.CFN:
        return _BY_CFN_NAME.get(name)
    try:
        return ParameterType(name)
    except ValueError:
        return None
