"""Heat's property translation: deprecated property names mapped onto their successors.

Before it validates, Heat rewrites a resource's properties by the type's translation rules
(a port's ``network_id`` becomes ``network``, a server network's ``uuid`` becomes
``network``), so a template using the old names is valid. The catalog records the rules;
the linter applies the renaming ones (Replace, and the Delete half of Add/Delete pairs)
to a copy that keeps every position, then validates that copy.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from stoker.resources import load_document
from stoker.template.nodes import MappingNode, SequenceNode

Rule = Mapping[str, Any]


@cache
def _all_rules() -> dict[str, tuple[Rule, ...]]:
    types = load_document()["types"]
    return {
        name: tuple(r for r in entry.get("translation_rules", ()) if r["rule"] != "Resolve")
        for name, entry in types.items()
        if entry.get("translation_rules")
    }


def translation_rules(type_name: str) -> tuple[Rule, ...]:
    return _all_rules().get(type_name, ())


def _copy(mapping: Mapping[Any, Any]) -> MappingNode:
    copy = MappingNode(getattr(mapping, "span", None))
    copy.update(mapping)
    if isinstance(mapping, MappingNode):
        copy.key_spans.update(mapping.key_spans)
        copy.value_spans.update(mapping.value_spans)
    return copy


def _rename(mapping: MappingNode, old: str, new: str) -> None:
    """Move ``old`` to ``new`` (unless ``new`` is set too: then Heat reports the clash and
    the old one is dropped here, leaving the new one to be checked)."""
    if old not in mapping:
        return
    value = mapping.pop(old)
    key_span = mapping.key_spans.pop(old, None)
    value_span = mapping.value_spans.pop(old, None)
    if new in mapping:
        return
    mapping[new] = value
    if key_span is not None:
        mapping.key_spans[new] = key_span
    if value_span is not None:
        mapping.value_spans[new] = value_span


def translate(properties: Mapping[Any, Any], rules: tuple[Rule, ...]) -> Mapping[Any, Any]:
    """``properties`` with the renaming rules applied (the input is left as it is)."""
    if not rules:
        return properties
    result = _copy(properties)
    for rule in rules:
        path = list(rule["path"])
        if rule["rule"] == "Replace" and "custom_value_path" not in rule:
            if "value_path" in rule and len(path) == 1 and len(rule["value_path"]) == 1:
                _rename(result, rule["value_path"][0], path[0])
            elif "value_name" in rule and len(path) == 2:
                _rename_in_items(result, path[0], rule["value_name"], path[1])
        elif rule["rule"] == "Delete" and len(path) == 1 and path[0] in result:
            result.pop(path[0])
    return result


def _rename_in_items(result: MappingNode, prop: str, old: str, new: str) -> None:
    """Rename a key in every map item of the list property ``prop``."""
    items = result.get(prop)
    if not isinstance(items, list) or not any(isinstance(i, dict) and old in i for i in items):
        return
    renamed = SequenceNode(getattr(items, "span", None))
    renamed.item_spans = list(getattr(items, "item_spans", [None] * len(items)))
    for item in items:
        if isinstance(item, dict) and old in item:
            item = _copy(item)
            _rename(item, old, new)
        renamed.append(item)
    result[prop] = renamed
