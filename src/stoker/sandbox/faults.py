"""Faults on request: latency, errors at a rate, quotas, servers that go to ERROR.

For tests and chaos runs. A fault plan is a mapping (``--faults FILE``, YAML or JSON, or
``PUT /sandbox/faults`` with the same document)::

    seed: 7                  # the error draws repeat run after run
    rules:                   # each matching rule applies, in order
      - service: compute     # catalog type; omitted: every service
        operation: servers.create   # operation name (docs/sandbox.md); omitted: all
        latency: 0.2         # seconds added before the answer
        error_rate: 0.1      # share of matching requests answered with ``status``
        status: 503
    quotas:                  # per project, by service type then resource
      compute: {instances: 10, cores: 20, ram: 51200, key_pairs: 100}
    error_servers: ["bad-*"] # servers whose name matches go to ERROR, not ACTIVE

A plan that does not fit this shape is refused with the key that is wrong.
"""

from __future__ import annotations

import fnmatch
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from stoker.errors import UsageError


@dataclass(frozen=True)
class FaultRule:
    service: str | None = None
    operation: str | None = None
    latency: float = 0.0
    error_rate: float = 0.0
    status: int = 503

    def matches(self, service: str, operation: str) -> bool:
        return self.service in (None, service) and (
            self.operation is None or fnmatch.fnmatchcase(operation, self.operation)
        )


@dataclass
class Faults:
    rules: list[FaultRule] = field(default_factory=list)
    quotas: dict[str, dict[str, int]] = field(default_factory=dict)
    error_servers: list[str] = field(default_factory=list)
    seed: int | None = None
    _random: random.Random = field(default_factory=random.Random, repr=False)

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)

    def latency(self, service: str, operation: str) -> float:
        return sum(r.latency for r in self.rules if r.matches(service, operation))

    def error_status(self, service: str, operation: str) -> int | None:
        """The status to fail this request with, drawn at each matching rule's rate."""
        for rule in self.rules:
            matching = rule.error_rate and rule.matches(service, operation)
            if matching and self._random.random() < rule.error_rate:
                return rule.status
        return None

    def quota(self, service: str, resource: str) -> int | None:
        return self.quotas.get(service, {}).get(resource)

    def server_fails(self, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.error_servers)

    def to_document(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "rules": [
                {k: v for k, v in vars(rule).items() if v is not None} for rule in self.rules
            ],
            "quotas": self.quotas,
            "error_servers": self.error_servers,
        }


def _number(value: Any, where: str, *, low: float, high: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UsageError(f"{where}: expected a number, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise UsageError(f"{where}: expected a number {bound}, got {value!r}")
    return float(value)


def parse_faults(document: Any, source: str = "faults") -> Faults:
    """A `Faults` from its mapping; a `UsageError` naming the wrong key otherwise."""
    if document is None:
        return Faults()
    if not isinstance(document, Mapping):
        raise UsageError(f"{source}: expected a mapping of seed, rules, quotas, error_servers")
    unknown = sorted(set(document) - {"seed", "rules", "quotas", "error_servers"})
    if unknown:
        raise UsageError(f"{source}: unknown key {unknown[0]!r}")
    rules = []
    for index, raw in enumerate(document.get("rules") or []):
        where = f"{source}: rules[{index}]"
        if not isinstance(raw, Mapping):
            raise UsageError(f"{where}: expected a mapping")
        extra = sorted(set(raw) - {"service", "operation", "latency", "error_rate", "status"})
        if extra:
            raise UsageError(f"{where}: unknown key {extra[0]!r}")
        status = raw.get("status", 503)
        if not isinstance(status, int) or not 400 <= status <= 599:
            raise UsageError(f"{where}.status: expected an HTTP error status, got {status!r}")
        rules.append(
            FaultRule(
                service=_optional_text(raw.get("service"), f"{where}.service"),
                operation=_optional_text(raw.get("operation"), f"{where}.operation"),
                latency=_number(raw.get("latency", 0), f"{where}.latency", low=0, high=60),
                error_rate=_number(raw.get("error_rate", 0), f"{where}.error_rate", low=0, high=1),
                status=status,
            )
        )
    quotas: dict[str, dict[str, int]] = {}
    for service, limits in (document.get("quotas") or {}).items():
        if not isinstance(limits, Mapping):
            raise UsageError(f"{source}: quotas.{service}: expected a mapping")
        for resource, limit in limits.items():
            where = f"{source}: quotas.{service}.{resource}"
            quotas.setdefault(str(service), {})[str(resource)] = int(_number(limit, where, low=-1))
    patterns = document.get("error_servers") or []
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise UsageError(f"{source}: error_servers: expected a list of name patterns")
    seed = document.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise UsageError(f"{source}: seed: expected an integer, got {seed!r}")
    return Faults(rules=rules, quotas=quotas, error_servers=list(patterns), seed=seed)


def _optional_text(value: Any, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise UsageError(f"{where}: expected a string, got {value!r}")


def load_faults(path: Path) -> Faults:
    """The plan in a YAML or JSON file (JSON is YAML)."""
    text = path.read_text(encoding="utf-8")
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise UsageError(f"{where}: not YAML or JSON: {getattr(error, 'problem', error)}") from None
    return parse_faults(document, str(path))
