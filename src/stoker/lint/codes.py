"""Ids of the findings the linter's own machinery reports (not any one rule's check).

Their rules (documentation only) are in `stoker.lint.rules.internal`.
"""

from __future__ import annotations

INTERNAL_ERROR = "E0100"  # a rule (or building a file's context) raised an exception
PACKAGE_UNREADABLE = "E0101"  # an input package that cannot be opened
BLUEPRINT_NOT_LINTED = "I0102"  # a blueprint found among the inputs, compiled not linted

# The default profile's own checks (beyond the codes of `stoker.codes`, which validation
# reports and the linter exposes under the same ids). House style: a severity letter, a
# section digit (1 template and functions, 2 parameters, 3 resources, 6 outputs,
# 8 conditions), three digits.
DEPRECATED_FUNCTION = "W1090"
DEPRECATED_VERSION = "W1091"
UNUSED_PARAMETER = "W2001"
PARAMETER_DESCRIPTION = "I2002"
UNKNOWN_TYPE = "E3001"
IMPLIED_DEPENDS_ON = "I3005"
DEPRECATED_TYPE = "W3010"
DEPRECATED_PROPERTY = "W3011"
PROVIDER_OUTPUT = "E3020"
HIDDEN_OUTPUT = "W6001"
NEVER_EXISTS = "W8003"
