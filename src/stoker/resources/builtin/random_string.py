"""``OS::Heat::RandomString``: a random secret (a password, a salt) made once at create.

Its reference id is the string itself, so ``get_resource`` hands it straight to other
resources. Characters come from ``secrets``: at least ``min`` from each character class
and sequence, the rest from all of them together, then shuffled. Nothing can be updated
in place, so any property change (``salt`` is there for that) makes a new string.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Mapping, Sequence
from typing import Any

from stoker.resources.base import (
    ResourceContext,
    ResourceFailure,
    ResourcePlugin,
    ResourceView,
    Traits,
)
from stoker.resources.constraints import allowed_values, value_range
from stoker.resources.schema import (
    SHOW,
    AttributeSchema,
    AttributeType,
    PropertySchema,
    PropertyType,
    SupportLevel,
    SupportStatus,
)

CHARACTER_CLASSES: dict[str, str] = {
    "lettersdigits": string.ascii_letters + string.digits,
    "letters": string.ascii_letters,
    "lowercase": string.ascii_lowercase,
    "uppercase": string.ascii_uppercase,
    "digits": string.digits,
    "hexdigits": string.digits + "ABCDEF",
    "octdigits": string.octdigits,
}
"""The named classes; Heat's ``hexdigits`` is upper case only."""

DEFAULT_CLASSES = [{"class": "lettersdigits", "min": 1}]

_CLASS_NAMES = allowed_values(*CHARACTER_CLASSES)
_MINIMUM = PropertySchema(
    PropertyType.INTEGER,
    "How many characters, at least, come from this class or sequence.",
    default=1,
    constraints=(value_range(1, 512),),
)


class RandomString(ResourcePlugin):
    """A random string; attribute ``value`` and the reference id are the string."""

    type_name = "OS::Heat::RandomString"
    traits = Traits(external_effect=False)
    properties_schema = {
        "length": PropertySchema(
            PropertyType.INTEGER,
            "How many characters to generate.",
            default=32,
            constraints=(value_range(1, 512),),
        ),
        "sequence": PropertySchema(
            PropertyType.STRING,
            "Replaced by character_classes: the one class to draw from.",
            constraints=(_CLASS_NAMES,),
            support_status=SupportStatus(
                SupportLevel.HIDDEN, "5.0.0", SupportStatus(SupportLevel.DEPRECATED, "2014.2")
            ),
        ),
        "character_classes": PropertySchema(
            PropertyType.LIST,
            "Named classes of characters to draw from, each with a minimum count.",
            default=DEFAULT_CLASSES,
            schema={
                "*": PropertySchema(
                    PropertyType.MAP,
                    schema={
                        "class": PropertySchema(
                            PropertyType.STRING,
                            "The class of characters.",
                            default="lettersdigits",
                            constraints=(_CLASS_NAMES,),
                        ),
                        "min": _MINIMUM,
                    },
                )
            },
        ),
        "character_sequences": PropertySchema(
            PropertyType.LIST,
            "Literal sets of characters to draw from, each with a minimum count.",
            schema={
                "*": PropertySchema(
                    PropertyType.MAP,
                    schema={
                        "sequence": PropertySchema(
                            PropertyType.STRING, "The characters to draw from.", required=True
                        ),
                        "min": _MINIMUM,
                    },
                )
            },
        ),
        "salt": PropertySchema(
            PropertyType.STRING,
            "Not used in the string; change it to get a new string.",
        ),
    }
    attributes_schema = {
        "value": AttributeSchema(AttributeType.STRING, "The generated string.", cache_none=True),
        "show": SHOW,
    }

    def validate(self, properties: Mapping[str, Any]) -> list[str]:
        pools = _pools(properties)
        problems: list[str] = []
        if sum(minimum for _, minimum in pools) > (properties.get("length") or 0):
            problems.append(
                "Length property cannot be smaller than combined character class and "
                "character sequence minimums"
            )
        if not pools:
            problems.append("character_classes and character_sequences are both empty")
        if any(not characters for characters, _ in pools):
            problems.append("a character sequence must hold at least one character")
        return problems

    async def create(self, context: ResourceContext) -> None:
        problems = self.validate(context.properties)
        if problems:
            raise ResourceFailure("; ".join(problems))
        context.data["value"] = generate(_pools(context.properties), context.properties["length"])
        context.physical_id = context.physical_name

    def reference_id(self, view: ResourceView) -> str | None:
        if view.physical_id is not None:
            value: str | None = view.data.get("value")
            return value
        return view.name

    def attribute(self, view: ResourceView, name: str) -> Any:
        return view.data.get("value") if name == "value" else None


def _pools(properties: Mapping[str, Any]) -> list[tuple[str, int]]:
    """(characters, minimum) for every class and sequence that applies.

    The hidden ``sequence`` property is Heat's older spelling of one class: Heat adds it
    to the classes the template gave (replacing the default), and so does this.
    """
    classes = list(properties.get("character_classes") or [])
    legacy = properties.get("sequence")
    if legacy:
        if classes == DEFAULT_CLASSES:
            classes = []
        classes.append({"class": legacy, "min": 1})
    # Tolerant of values the schema already rejected: those are reported there.
    pools = [
        (CHARACTER_CLASSES[item["class"]], item.get("min") or 0)
        for item in classes
        if item.get("class") in CHARACTER_CLASSES
    ]
    pools.extend(
        (item.get("sequence") or "", item.get("min") or 0)
        for item in properties.get("character_sequences") or []
    )
    return pools


def generate(pools: Sequence[tuple[str, int]], length: int) -> str:
    """``length`` characters: each pool's minimum from that pool, the rest from the union of
    all pools (each distinct character once, so overlapping pools do not skew the draw)."""
    chosen = [secrets.choice(characters) for characters, minimum in pools for _ in range(minimum)]
    everything = "".join(dict.fromkeys("".join(characters for characters, _ in pools)))
    chosen.extend(secrets.choice(everything) for _ in range(length - len(chosen)))
    secrets.SystemRandom().shuffle(chosen)
    return "".join(chosen)
