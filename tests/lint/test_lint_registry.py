"""The registry: every rule listed once, documented, with the severity its id or keyword
gives, and tested; every validation code and every static ONAP requirement has its rule."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import stoker.lint.onap
import stoker.lint.rules
from stoker import codes
from stoker.diagnostics import Severity
from stoker.lint.onap.requirements import BEYOND_SEED, KEYWORD_SEVERITY, REQUIREMENTS
from stoker.lint.registry import RULES, DuplicateRuleError, RuleRegistry, default_registry
from stoker.lint.rule import Profile, Rule, Source

from .cases import DEFAULT_CASES, ONAP_CASES

#: the ONAP requirements' ids, keywords and validation modes (see the file's header)
SEED = Path(__file__).resolve().parent / "data" / "onap-template-format-requirements.txt"
#: rules whose failing and passing cases are tests of their own
TESTED_ELSEWHERE = {
    "E0100": "test_lint_runner.py::test_a_crashing_rule_becomes_one_internal_error",
    "I0102": "test_lint_stack_package.py::"
    "test_blueprints_in_a_directory_are_recognised_by_their_content",
}


def _rule_classes() -> set[type[Rule]]:
    found: set[type[Rule]] = set()
    for package in (stoker.lint.rules, stoker.lint.onap):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for _, cls in inspect.getmembers(module, inspect.isclass):
                own = cls.__module__ == module.__name__ and "id" in vars(cls)
                if issubclass(cls, Rule) and own:
                    found.add(cls)
    return found


def test_every_rule_class_is_registered():
    assert _rule_classes() - set(RULES) == set()


def test_ids_are_unique_and_the_registry_refuses_a_second_one():
    assert len({rule.id for rule in RULES}) == len(RULES)
    registry = RuleRegistry()
    registry.register(RULES[0])
    with pytest.raises(DuplicateRuleError):
        registry.register(RULES[0])


@pytest.mark.parametrize("rule", default_registry().rules(), ids=lambda r: r.id)
def test_rule_is_documented(rule):
    assert rule.summary and "\n" not in rule.summary and len(rule.summary) <= 100
    assert len(rule.explanation) >= 60
    assert isinstance(rule.source, Source) and rule.source.reference
    assert rule.profiles and rule.profiles <= set(Profile)


#: the severity a ``<E|W|I>nnnn`` id stands for
SEVERITY_OF_LETTER = {"E": Severity.ERROR, "W": Severity.WARNING, "I": Severity.INFO}


@pytest.mark.parametrize("rule", default_registry().rules(), ids=lambda r: r.id)
def test_severity_follows_the_id_or_the_keyword(rule):
    if Profile.ONAP in rule.profiles and rule.id.startswith("R-"):
        requirement = next(r for r in (*REQUIREMENTS, *BEYOND_SEED) if r.id == rule.id)
        assert rule.severity is KEYWORD_SEVERITY[requirement.keyword]
    else:
        assert re.fullmatch(r"[EWI]\d{4}", rule.id)
        assert rule.severity is SEVERITY_OF_LETTER[rule.id[0]]


def test_every_validation_code_has_a_default_rule():
    registry = default_registry()
    declared = {
        value
        for name, value in vars(codes).items()
        if name.isupper() and isinstance(value, str) and re.fullmatch(r"[EWI]\d{4}", value)
    }
    missing = {code for code in declared if code not in registry}
    assert missing == set()
    assert all(Profile.DEFAULT in registry.get(code).profiles for code in declared)


def test_static_requirements_are_rules_and_the_others_say_why_not():
    registry = default_registry()
    for requirement in REQUIREMENTS:
        if requirement.static:
            assert requirement.checked, requirement.id
        if requirement.checked:
            assert requirement.id in registry, requirement.id
            assert registry.get(requirement.id).profiles == {Profile.ONAP}
            assert requirement.not_checked is None
        else:
            assert requirement.id not in registry
            assert requirement.not_checked, requirement.id
    for requirement in BEYOND_SEED:  # ONAP marks some "static" that no check can decide
        if requirement.checked:
            assert requirement.id in registry, requirement.id
        else:
            assert requirement.id not in registry
            assert requirement.not_checked, requirement.id
    onap_rules = {r.id for r in registry.rules() if r.id.startswith("R-")}
    assert onap_rules == {r.id for r in (*REQUIREMENTS, *BEYOND_SEED) if r.checked}
    assert not {r.id for r in REQUIREMENTS} & {r.id for r in BEYOND_SEED}


def test_every_rule_has_a_failing_and_a_passing_case():
    tested = {case.rule for case in DEFAULT_CASES + ONAP_CASES} | set(TESTED_ELSEWHERE)
    assert {rule.id for rule in default_registry().rules()} - tested == set()


def _requirement_fields(text: str) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in text.splitlines():
        match = re.match(r"Requirement: (R-\d+)", line)
        if match:
            current = found.setdefault(match.group(1), {})
            continue
        field = re.match(r"(keyword|validation_mode): (.+)", line.strip())
        if current is not None and field and field.group(1) not in current:
            current[field.group(1)] = field.group(2).strip()
    return found


def test_requirements_match_the_onap_document():
    found = _requirement_fields(SEED.read_text(encoding="utf-8"))
    assert set(found) == {r.id for r in REQUIREMENTS}
    for requirement in REQUIREMENTS:
        document = found[requirement.id]
        assert document["keyword"] == requirement.keyword, requirement.id
        assert document.get("validation_mode") == requirement.validation_mode, requirement.id
