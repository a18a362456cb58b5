"""Stable codes of the findings the template core reports.

The linter (issue "Linter") exposes these as rule ids; keep a code's meaning fixed once it
has shipped. ``E`` codes are errors, ``W`` warnings, ``I`` information.
"""

from __future__ import annotations

# Loading (see stoker.template.loader for E0000-E0005)
SYNTAX = "E0000"
ENCODING = "E0001"
TOO_LARGE = "E0002"
DUPLICATE_KEY = "E0003"
TOO_DEEP = "E0004"
NOT_A_MAPPING = "E0005"
LIMIT = "E0006"  # a limit of the evaluation's budget (stoker.limits) was reached

# Template structure
VERSION = "E1001"  # missing, unknown or ambiguous template version
SECTION = "E1002"  # unknown section for the version
SECTION_SHAPE = "E1003"  # a section of the wrong type
CAPABILITIES_NONPORTABLE = "W1004"  # a capabilities section: stoker reads it, Heat rejects it
CAPABILITY_VALUE = "E1005"  # a capabilities (or requires) value that is not a string or list
RESOURCE_DEFINITION = "E1010"  # bad keys or values in a resource definition
OUTPUT_DEFINITION = "E1011"
RESOURCE_NAME = "E1012"

# Parameters
PARAMETER_SCHEMA = "E1020"  # the declaration itself is wrong
PARAMETER_VALUE = "E1021"  # missing value, wrong type, constraint violated
PARAMETER_GROUPS = "E1022"
PARAMETER_UNKNOWN = "E1023"  # a value supplied for a parameter the template lacks
CONSTRAINT_NOT_CHECKED = "I1024"  # a custom constraint that needs a cloud

# Intrinsic functions
FUNCTION_ARGUMENTS = "E1030"
UNKNOWN_RESOURCE = "E1031"
UNKNOWN_PARAMETER = "E1032"
FUNCTION_REMOVED = "E1033"
FUNCTION_CONTEXT = "E1034"
FILE_MISSING = "E1035"
FUNCTION_NOT_IN_VERSION = "W1036"
UNKNOWN_ATTRIBUTE = "E1037"
FUNCTION_FAILED = "E1038"  # a function whose inputs are known failed to resolve
UNKNOWN_FUNCTION = "W1039"  # a one-key mapping whose key looks like a misspelled function

# Conditions and dependencies
CONDITION = "E1040"
DEPENDENCY_CYCLE = "E1050"
DEPENDS_ON = "E1051"

# Environments and files
ENVIRONMENT = "E1060"
ENVIRONMENT_NONPORTABLE = "W1061"
PROVIDER_CHOICE = "E1062"  # no template, or several, of a registry list meet ``requires``
FILE_OUTSIDE_TREE = "E1070"
FILE_NOT_FETCHED = "W1071"

# Resource properties
PROPERTY_VALUE = "E1080"  # wrong type, constraint violated, required property missing
PROPERTY_UNKNOWN = "E1081"  # a property the resource type does not declare
