"""The rule registry, and the one place every rule is listed.

Nothing registers itself: `rule_classes` names each class (the linter's machinery, then
each profile's list: `stoker.lint.rules.default`, `stoker.lint.onap.rules`),
`default_registry` instantiates them, and the registry refuses a second rule with an id
already taken (a silent replacement would hide a rule). A profile's rules are imported
only when it is asked for: ``stoker lint --profile onap`` never loads the default
profile's fifty rule modules, nor the default profile the onap profile's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from stoker.errors import DuplicateRuleError as DuplicateRuleError
from stoker.lint.rule import Profile, Rule
from stoker.lint.rules import internal

#: the linter's own machinery, in every profile
INTERNAL_RULES: tuple[type[Rule], ...] = (
    internal.InternalError,
    internal.PackageUnreadable,
    internal.BlueprintNotLinted,
)


def rule_classes(profiles: Iterable[Profile] | None = None) -> tuple[type[Rule], ...]:
    """The rule classes of ``profiles`` (default: every profile), in listing order."""
    wanted = set(Profile) if profiles is None else set(profiles)
    found = list(INTERNAL_RULES)
    if Profile.DEFAULT in wanted:
        from stoker.lint.rules.default import DEFAULT_RULES

        found += DEFAULT_RULES
    if Profile.ONAP in wanted:
        # ONAP's requirements a static check can decide, by requirement id
        from stoker.lint.onap.rules import ONAP_RULES

        found += ONAP_RULES
    return tuple(found)


if TYPE_CHECKING:
    #: every rule class of every profile (`rule_classes()`)
    RULES: tuple[type[Rule], ...]


def __getattr__(name: str) -> Any:
    if name == "RULES":  # built when asked for: it imports every profile's rules
        return rule_classes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class RuleRegistry:
    """Rules by id, in registration order."""

    def __init__(self) -> None:
        self._rules: dict[str, Rule] = {}

    def register(self, rule_class: type[Rule]) -> None:
        rule_id = getattr(rule_class, "id", None)
        if not isinstance(rule_id, str) or not rule_id:
            raise DuplicateRuleError(f"{rule_class.__name__} declares no id")
        if rule_id in self._rules:
            existing = type(self._rules[rule_id]).__name__
            raise DuplicateRuleError(f"rule id {rule_id} is taken (by {existing})")
        self._rules[rule_id] = rule_class()

    def rules(self) -> list[Rule]:
        return list(self._rules.values())

    def get(self, rule_id: str) -> Rule | None:
        return self._rules.get(rule_id)

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self._rules

    def __len__(self) -> int:
        return len(self._rules)


def default_registry(profiles: Iterable[Profile] | None = None) -> RuleRegistry:
    """A registry holding every rule of ``profiles`` (default: of every profile)."""
    registry = RuleRegistry()
    for rule_class in rule_classes(profiles):
        registry.register(rule_class)
    return registry
