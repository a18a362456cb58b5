"""Which functions each template version has: the version × function matrix as data.

Built by composition, one version from the previous (heat-semantics §1.4 and §1.5); a
function whose arguments changed between versions is registered with the options that
version needs. Nothing here branches on versions at run time.
"""

from __future__ import annotations

from functools import cache, partial
from typing import Any

from stoker.functions.base import FunctionFactory, FunctionTable
from stoker.functions.collections import (
    Contains,
    Filter,
    FindInMap,
    ListConcat,
    MapMerge,
    MapReplace,
    MemberListToMap,
    Repeat,
    Select,
)
from stoker.functions.conditions import And, Equals, If, Not, Or
from stoker.functions.refs import (
    CfnGetAtt,
    GetAttr,
    GetAZs,
    GetFile,
    GetParam,
    GetResource,
    Ref,
    ResourceFacade,
)
from stoker.functions.strings import (
    Base64,
    CfnJoin,
    CfnReplace,
    CfnSplit,
    Digest,
    ListJoin,
    StrReplace,
    StrSplit,
)
from stoker.functions.urls import MakeUrl
from stoker.functions.yaql_function import Yaql
from stoker.template.versions import (
    CFN_AWS,
    CFN_HEAT,
    HOT_VERSIONS,
    Format,
    TemplateVersion,
)

Table = dict[str, FunctionFactory]


def _with(cls: Any, **options: Any) -> FunctionFactory:
    return partial(cls, **options) if options else cls


_CFN_IN_HOT_2013: Table = {
    "Fn::Select": Select,
    "Ref": Ref,
    "Fn::GetAZs": GetAZs,
    "Fn::Join": CfnJoin,
    "Fn::Split": CfnSplit,
    "Fn::Replace": CfnReplace,
    "Fn::Base64": Base64,
    "Fn::MemberListToMap": MemberListToMap,
    "Fn::ResourceFacade": _with(ResourceFacade, cfn=True),
}

# heat_template_version -> (functions added or changed, names removed, condition functions)
_HOT: dict[str, tuple[Table, set[str]]] = {
    "2013-05-23": (
        {
            "get_param": GetParam,
            "get_resource": GetResource,
            "get_file": GetFile,
            "resource_facade": ResourceFacade,
            "get_attr": _with(GetAttr, path_to_resource=False, all_attributes=False),
            "str_replace": _with(StrReplace, json_values=False),
            "list_join": _with(ListJoin, multiple_lists=False),
            **_CFN_IN_HOT_2013,
        },
        set(),
    ),
    "2014-10-16": (
        {"get_attr": _with(GetAttr, path_to_resource=True, all_attributes=False)},
        set(_CFN_IN_HOT_2013) - {"Fn::Select"},  # until 2015-10-15
    ),
    "2015-04-30": (
        {
            "repeat": _with(Repeat, maps_allowed=False, permutations_allowed=False),
            "digest": Digest,
        },
        set(),
    ),
    "2015-10-15": (
        {
            "get_attr": _with(GetAttr, path_to_resource=True, all_attributes=True),
            "str_replace": _with(StrReplace, json_values=True),
            "list_join": _with(ListJoin, multiple_lists=True),
            "str_split": StrSplit,
        },
        {"Fn::Select"},
    ),
    "2016-04-08": ({"map_merge": MapMerge}, set()),
    "2016-10-14": (
        {
            "yaql": Yaql,
            "map_replace": MapReplace,
            "if": _with(If, two_arguments=False),
            "repeat": _with(Repeat, maps_allowed=True, permutations_allowed=False),
        },
        set(),
    ),
    "2017-02-24": (
        {
            "filter": Filter,
            "str_replace_strict": _with(StrReplace, json_values=True, strict=True),
        },
        set(),
    ),
    "2017-09-01": (
        {
            "make_url": MakeUrl,
            "list_concat": _with(ListConcat, unique=False),
            "list_concat_unique": _with(ListConcat, unique=True),
            "str_replace_vstrict": _with(StrReplace, json_values=True, strict=True, nonempty=True),
            "contains": Contains,
            "repeat": _with(Repeat, maps_allowed=True, permutations_allowed=True),
        },
        set(),
    ),
    "2018-03-02": ({}, set()),
    "2018-08-31": ({}, set()),
    "2021-04-16": ({"if": _with(If, two_arguments=True)}, set()),
}

_HOT_CONDITIONS_2016: Table = {
    "get_param": GetParam,
    "equals": Equals,
    "not": Not,
    "and": And,
    "or": Or,
}
_HOT_CONDITIONS_2017_09: Table = {**_HOT_CONDITIONS_2016, "yaql": Yaql, "contains": Contains}

# The CFN format has what HOT 2013-05-23 borrowed from it, plus mappings and Fn::GetAtt.
_CFN_2012: Table = {**_CFN_IN_HOT_2013, "Fn::FindInMap": FindInMap, "Fn::GetAtt": CfnGetAtt}
_CFN_2010: Table = {**_CFN_2012, "Fn::If": _with(If, two_arguments=False, cfn=True)}
_CFN_2010_CONDITIONS: Table = {
    "Fn::Equals": Equals,
    "Ref": _with(Ref, parameters_only=True),
    "Fn::FindInMap": FindInMap,
    "Fn::Not": _with(Not, cfn=True),
    "Fn::And": And,
    "Fn::Or": Or,
}


def _build() -> dict[TemplateVersion, tuple[Table, frozenset[str], Table]]:
    tables: dict[TemplateVersion, tuple[Table, frozenset[str], Table]] = {}
    functions: Table = {}
    removed: set[str] = set()
    for version in HOT_VERSIONS:
        added, dropped = _HOT[version.value]
        functions = {name: f for name, f in {**functions, **added}.items() if name not in dropped}
        removed |= dropped
        if version.value >= "2017-09-01":
            conditions = _HOT_CONDITIONS_2017_09
        elif version.value >= "2016-10-14":
            conditions = _HOT_CONDITIONS_2016
        else:
            conditions = {}
        tables[version] = (functions, frozenset(removed), conditions)
    tables[CFN_HEAT] = (_CFN_2012, frozenset(), {})
    tables[CFN_AWS] = (_CFN_2010, frozenset(), _CFN_2010_CONDITIONS)
    return tables


_TABLES = _build()


def _where(name: str, version: TemplateVersion) -> str | None:
    """Where a function exists, phrased for the literal-data warning."""
    same_format = [v for v in _TABLES if v.format is version.format and name in _TABLES[v][0]]
    if same_format:
        first = min(same_format, key=lambda v: v.order)
        alias = f" ({first.alias})" if first.alias else ""
        return f"from {first.key}: {first.value}{alias} on"
    other = [v for v in _TABLES if name in _TABLES[v][0]]
    if other:
        return "only in CFN templates" if version.format is Format.HOT else "only in HOT templates"
    return None


@cache
def table_for(version: TemplateVersion) -> FunctionTable:
    functions, removed, conditions = _TABLES[version]
    every_name = {name for table in _TABLES.values() for name in table[0]}
    first_version = {
        name: where
        for name in every_name - set(functions) - removed
        if (where := _where(name, version)) is not None
    }
    return FunctionTable(version, functions, removed, conditions, first_version)


def describe(factory: FunctionFactory) -> str:
    """One-line description of a function class, for ``function list``."""
    cls = getattr(factory, "func", factory)
    text = getattr(cls, "summary", "") or (cls.__doc__ or "").strip()
    return text.splitlines()[0] if text else ""


def function_rows(
    table: FunctionTable, with_conditions: bool, condition_mark: str = ""
) -> list[dict[str, str]]:
    """``function list``'s rows (Heat's template_functions), one per function of ``table``
    in name order; ``with_conditions``: then its condition functions that are not functions
    too, their description after ``condition_mark``."""
    rows = [
        {"functions": name, "description": describe(factory)}
        for name, factory in sorted(table.functions.items())
    ]
    if with_conditions:
        rows += [
            {"functions": name, "description": condition_mark + describe(factory)}
            for name, factory in sorted(table.conditions.items())
            if name not in table.functions
        ]
    return rows
