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

from stoker.resources import load_document, property_renames
from stoker.template.nodes import MappingNode, SequenceNode

#: a type's renaming rules (the reader the JSON schemas use too), read once per type
_renames = cache(property_renames)


@cache
def _deleted(type_name: str) -> tuple[str, ...]:
    """The top-level properties the type's Delete rules drop."""
    entry = load_document()["types"].get(type_name) or {}
    rules = entry.get("translation_rules", ())
    return tuple(r["path"][0] for r in rules if r["rule"] == "Delete" and len(r["path"]) == 1)


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


def translate(properties: Mapping[Any, Any], type_name: str) -> Mapping[Any, Any]:
    """``properties`` with the type's renaming rules applied (the input is left as it is)."""
    renames, deleted = _renames(type_name), _deleted(type_name)
    if not renames and not deleted:
        return properties
    result = _copy(properties)
    for where, names in renames.items():
        for new, olds in names.items():
            for old in olds:
                if where:
                    _rename_in_items(result, where[0], old, new)
                else:
                    _rename(result, old, new)
    for name in deleted:
        result.pop(name, None)
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
