"""The corpus (``tests/corpus/data``) as seeds for the fuzzing: its files parsed to plain
data, the words and calls it uses, and pools of odd values to put in their place (see
`mutations`)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from stoker.functions.tables import table_for
from stoker.template.loader import load_document
from stoker.template.nodes import plain
from stoker.template.versions import ALL_VERSIONS

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "data"


@dataclass(frozen=True)
class Seed:
    """A corpus file as plain data: where it lives (its get_file neighbours) and its tree."""

    path: Path
    data: Any


@dataclass
class Case:
    """One fuzz input: the template's bytes, its environments' bytes, and what was done."""

    origin: Path
    template: bytes
    environments: list[bytes] = field(default_factory=list)
    parameters: dict[str, str] = field(default_factory=dict)
    steps: list[str] = field(default_factory=list)
    suffix: str = ".yaml"
    #: a provider template beside it (``fuzz_input_nested.yaml``), mutated too
    nested: bytes | None = None

    def describe(self) -> str:
        return f"{self.origin.relative_to(CORPUS)}: {'; '.join(self.steps)}"


def _load(path: Path) -> Any:
    try:
        return plain(load_document(path.read_bytes(), str(path)).data)
    except Exception:
        return None


@cache
def corpus() -> tuple[list[Seed], list[Seed], list[Seed]]:
    """Templates, environments and doc fragments of the corpus, parsed once."""
    records = json.loads((CORPUS / "index.json").read_text())
    templates, environments, fragments = [], [], []
    for record in records:
        kind = record["kind"]
        if kind not in ("hot", "cfn", "env", "fragment"):
            continue
        path = CORPUS / record["path"]
        data = _load(path)
        if not isinstance(data, dict):
            continue
        seed = Seed(path, data)
        {"env": environments, "fragment": fragments}.get(kind, templates).append(seed)
    return templates, environments, fragments


@cache
def function_names() -> tuple[str, ...]:
    names: set[str] = set()
    for version in ALL_VERSIONS:
        table = table_for(version)
        names.update(table.functions)
        names.update(table.conditions)
    return tuple(sorted(names))


@cache
def vocabulary() -> tuple[str, ...]:
    """Every mapping key seen in the corpus, every function and section name."""
    words: set[str] = set(function_names())
    for version in ALL_VERSIONS:
        words.update(version.sections)
        words.update(version.resource_keys)
        words.update(version.output_keys)
    words.update(
        (
            "parameters",
            "parameter_defaults",
            "resource_registry",
            "event_sinks",
            "parameter_merge_strategies",
            "encrypted_param_names",
            "resources",
            "hooks",
            "restricted_actions",
            "type",
            "default",
            "hidden",
            "constraints",
            "allowed_values",
            "allowed_pattern",
            "length",
            "range",
            "modulo",
            "custom_constraint",
            "immutable",
            "tags",
            "label",
            "condition",
            "value",
            "count",
            "resource_def",
            "index_var",
            "removal_policies",
            "for_each",
            "template",
            "permutations",
            "step",
            "offset",
        )
    )
    templates, environments, _ = corpus()
    for seed in (*templates, *environments):
        words.update(_keys(seed.data))
    return tuple(sorted(words))


@cache
def observed_calls() -> dict[str, tuple[Any, ...]]:
    """The arguments each function is called with in the corpus, by function name."""
    names = set(function_names())
    calls: dict[str, list[Any]] = {}
    templates, _, fragments = corpus()
    for seed in (*templates, *fragments):
        for container, key in all_places(seed.data):
            value = container[key]
            if isinstance(value, dict) and len(value) == 1:
                name = next(iter(value))
                if name in names:
                    calls.setdefault(name, []).append(value[name])
    return {name: tuple(found) for name, found in calls.items()}


def _keys(data: Any) -> set[str]:
    found: set[str] = set()
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.update(k for k in node if isinstance(k, str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


# sorted: a set's order changes with PYTHONHASHSEED, and input N must be the same input
# in every process
VERSION_VALUES = tuple(
    sorted(
        {(v.key, v.value) for v in ALL_VERSIONS}
        | {(v.key, v.alias) for v in ALL_VERSIONS if v.alias}
        | {
            ("heat_template_version", "2012-12-12"),
            ("heat_template_version", "2099-01-01"),
            ("AWSTemplateFormatVersion", "2013-05-23"),
            ("HeatTemplateFormatVersion", "2010-09-09"),
        }
    )
)

ODD_STRINGS = (
    "",
    " ",
    "0",
    "1",
    "-1",
    "1.5",
    "1e400",
    "nan",
    "inf",
    "-inf",
    "0x1f",
    "true",
    "false",
    "yes",
    "null",
    "~",
    "a,b,c",
    ",",
    "[1, 2]",
    '{"a": 1}',
    "{",
    "2024-02-30",
    "2024-01-01T00:00:00Z",
    "10.0.0.0/33",
    "256.1.1.1",
    "::1",
    "aa:bb:cc:dd:ee:ff",
    "* * * * *",
    "$x",
    "%s",
    "{{a}}",
    "<%a%>",
    "\\",
    "'",
    '"',
    "\u00e9\u2603",
    "a" * 300,
    "OS::Heat::None",
    "OS::Heat::RandomString",
    "OS::Heat::ResourceGroup",
    "OS::Heat::Value",
    "OS::Nova::Server",
    "AWS::EC2::Instance",
    "OS::Heat::*",
    "file:///etc/passwd",
    "nested.yaml",
    "../x.yaml",
    "http://127.0.0.1:1/x.yaml",
    "OS::stack_name",
    "OS::project_id",
    "AWS::Region",
    "$.data",
    "$.data.where($ > 1)",
    "%index%",
)


def random_scalar(rng: random.Random) -> Any:
    kind = rng.randrange(9)
    if kind == 0:
        return rng.choice((0, 1, -1, 2, 3, 7, 10**6, -(10**18), 2**63, 10**30))
    if kind == 1:
        return rng.choice((0.0, -0.5, 1.5, 1e300, float("inf"), float("-inf"), float("nan")))
    if kind == 2:
        return rng.choice((True, False, None))
    if kind == 3:
        return rng.choice(vocabulary())
    if kind == 4:
        return rng.choice(function_names())
    return rng.choice(ODD_STRINGS)


def random_value(rng: random.Random, depth: int = 0) -> Any:
    """A value of any type: scalars, small lists and mappings, function calls."""
    kind = rng.randrange(10) if depth < 3 else 0
    if kind <= 4:
        return random_scalar(rng)
    if kind == 5:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 6:
        return {
            str(random_scalar(rng)): random_value(rng, depth + 1) for _ in range(rng.randrange(3))
        }
    if kind == 7:
        return {rng.choice(function_names()): random_arguments(rng, depth + 1)}
    if kind == 8:
        return {rng.choice(function_names()): random_value(rng, depth + 1)}
    return {rng.choice(vocabulary()): random_value(rng, depth + 1)}


def random_arguments(rng: random.Random, depth: int = 0) -> Any:
    """Argument shapes functions take: a name, a list of names and values, a mapping."""
    shape = rng.randrange(6)
    if shape == 0:
        return rng.choice(vocabulary())
    if shape == 1:
        return [rng.choice(vocabulary()) for _ in range(rng.randrange(5))]
    if shape == 2:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    if shape == 3:
        return {rng.choice(vocabulary()): random_value(rng, depth + 1) for _ in range(3)}
    if shape == 4:
        return [rng.choice(ODD_STRINGS), [random_value(rng, depth + 1) for _ in range(3)]]
    return random_value(rng, depth + 1)


def section_names(data: Any, section: str) -> list[str]:
    if not isinstance(data, dict):
        return []
    for key in (section, section.capitalize()):
        value = data.get(key)
        if isinstance(value, dict):
            return [name for name in value if isinstance(name, str)]
    return []


def resource_types(data: Any) -> list[str]:
    found = []
    for key in ("resources", "Resources"):
        section = data.get(key) if isinstance(data, dict) else None
        if isinstance(section, dict):
            for resource in section.values():
                if isinstance(resource, dict):
                    kind = resource.get("type", resource.get("Type"))
                    if isinstance(kind, str):
                        found.append(kind)
    return found


def all_places(data: Any) -> list[tuple[Any, Any]]:
    """Every (container, key-or-index) of the tree, the root's children included."""
    found: list[tuple[Any, Any]] = []
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                found.append((node, key))
                stack.append(value)
        elif isinstance(node, list):
            for index, value in enumerate(node):
                found.append((node, index))
                stack.append(value)
    return found
