"""The version × function matrix of heat-semantics §1.4/§1.5, written out independently of
`stoker.functions.tables`: where a function exists, where it is removed (parses, fails
validation) and where it is only literal data (with a W1036 warning naming where it exists).
"""

from __future__ import annotations

from typing import Any

import pytest

from stoker import codes
from stoker.errors import FunctionError
from stoker.functions.base import Function, Parser, Removed, Scope, resolve, validate_tree
from stoker.functions.tables import table_for
from stoker.template.versions import CFN_AWS, CFN_HEAT, HOT_VERSIONS, TemplateVersion

from .conftest import DictContext

# name -> (first HOT version, first HOT version where it is removed)
HOT_MATRIX: dict[str, tuple[str, str | None]] = {
    "str_replace": ("2013-05-23", None),
    "list_join": ("2013-05-23", None),
    "repeat": ("2015-04-30", None),
    "digest": ("2015-04-30", None),
    "str_split": ("2015-10-15", None),
    "map_merge": ("2016-04-08", None),
    "yaql": ("2016-10-14", None),
    "map_replace": ("2016-10-14", None),
    "if": ("2016-10-14", None),
    "filter": ("2017-02-24", None),
    "str_replace_strict": ("2017-02-24", None),
    "make_url": ("2017-09-01", None),
    "list_concat": ("2017-09-01", None),
    "list_concat_unique": ("2017-09-01", None),
    "str_replace_vstrict": ("2017-09-01", None),
    "contains": ("2017-09-01", None),
    "Fn::Select": ("2013-05-23", "2015-10-15"),
    "Fn::Join": ("2013-05-23", "2014-10-16"),
    "Fn::Split": ("2013-05-23", "2014-10-16"),
    "Fn::Replace": ("2013-05-23", "2014-10-16"),
    "Fn::Base64": ("2013-05-23", "2014-10-16"),
    "Fn::MemberListToMap": ("2013-05-23", "2014-10-16"),
}
CFN_BOTH = ["Fn::Select", "Fn::Join", "Fn::Split", "Fn::Replace", "Fn::Base64"]
CFN_MATRIX: dict[str, tuple[TemplateVersion, ...]] = {
    **{name: (CFN_HEAT, CFN_AWS) for name in CFN_BOTH},
    "Fn::MemberListToMap": (CFN_HEAT, CFN_AWS),
    "Fn::FindInMap": (CFN_HEAT, CFN_AWS),
    "Fn::If": (CFN_AWS,),
}

PROBE_ARGUMENT: Any = ["x", "y"]


def _parse(version: TemplateVersion, name: str) -> tuple[Any, Parser]:
    parser = Parser(table_for(version))
    return parser.parse({name: PROBE_ARGUMENT}, ("outputs", "o", "value")), parser


def _state(name: str, version: TemplateVersion) -> str:
    if version.format == "cfn":
        return "function" if version in CFN_MATRIX.get(name, ()) else "data"
    if name not in HOT_MATRIX:
        return "data"
    first, removed = HOT_MATRIX[name]
    if version.value < first:
        return "data"
    if removed and version.value >= removed:
        return "removed"
    return "function"


ROWS = [
    pytest.param(
        name, version, _state(name, version), id=f"{name}-{version.format}-{version.value}"
    )
    for name in sorted(set(HOT_MATRIX) | set(CFN_MATRIX))
    for version in (*HOT_VERSIONS, CFN_HEAT, CFN_AWS)
]


@pytest.mark.parametrize("name,version,state", ROWS)
def test_matrix(name: str, version: TemplateVersion, state: str) -> None:
    tree, parser = _parse(version, name)
    if state == "function":
        assert isinstance(tree, Function) and not isinstance(tree, Removed)
        assert parser.diagnostics == []
    elif state == "removed":
        assert isinstance(tree, Removed)
        found = validate_tree(tree, Scope(version=version))
        assert [d.code for d in found] == [codes.FUNCTION_REMOVED]
        assert f"The function {name} is not supported in this version of HOT" in found[0].message
    else:
        assert tree == {name: PROBE_ARGUMENT}
        assert [d.code for d in parser.diagnostics] == [codes.FUNCTION_NOT_IN_VERSION]
        message = parser.diagnostics[0].message
        if name in HOT_MATRIX and version.format == "hot":
            assert f"from heat_template_version: {HOT_MATRIX[name][0]}" in message
        elif name in HOT_MATRIX and name not in CFN_MATRIX:
            assert "only in HOT templates" in message
        elif version.format == "hot":
            assert "only in CFN templates" in message
        else:
            assert "from AWSTemplateFormatVersion: 2010-09-09" in message


@pytest.mark.parametrize("version", [v for v in HOT_VERSIONS if v.value >= "2015-10-15"])
def test_removed_select_fails_when_resolved(version: TemplateVersion) -> None:
    tree, _ = _parse(version, "Fn::Select")
    with pytest.raises(FunctionError, match="not supported in this version of HOT"):
        resolve(tree, DictContext())


def test_alias_named_in_warning() -> None:
    _, parser = _parse(HOT_VERSIONS[0], "yaql")
    assert "2016-10-14 (newton)" in parser.diagnostics[0].message
