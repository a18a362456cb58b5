"""Heat's API policy for ``--auth keystone``: its rule names, its default check strings
(Heat 24's "secure RBAC" defaults, heat/policies/), the route each rule guards, and
overrides from a ``policy.yaml`` in oslo.policy's format.

The check strings are evaluated by a small reader of oslo.policy's language (``role:``,
``rule:``, ``KEY:VALUE`` against the token or ``%(project_id)s`` of the target, ``@``,
``!``, ``and``, ``or``, ``not``, parentheses), which is all Heat's defaults use and what
operators' overrides of them usually need; oslo.policy itself (with oslo.config) would
cost the server more memory than the rest of its imports. A check kind outside that
subset (``http:``) is refused when the file is read, never silently allowed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.routing import Match

from stoker.api.app import BY_BODY as BY_BODY
from stoker.api.app import PROJECT_ROUTES
from stoker.errors import PolicyError

PROJECT_READER = "role:reader and project_id:%(project_id)s"
PROJECT_MEMBER = "role:member and project_id:%(project_id)s"
PROJECT_ADMIN = "role:admin and project_id:%(project_id)s"
STACK_USER = "role:heat_stack_user and project_id:%(project_id)s"
READER_OR_STACK_USER = f"({PROJECT_READER}) or ({STACK_USER})"

#: Heat 24.1.2's default rules (name -> check string), as its policy-in-code registers
#: them; only the rules of the routes stoker serves (and the base rules they name)
DEFAULTS: dict[str, str] = {
    "context_is_admin": "(role:admin and is_admin_project:True) or "
    "(role:admin and system_scope:all)",
    "project_admin": "role:admin",
    "deny_stack_user": "not role:heat_stack_user",
    "deny_everybody": "!",
    "allow_everybody": "",
    "actions:action": PROJECT_MEMBER,
    "actions:snapshot": PROJECT_MEMBER,
    "actions:suspend": PROJECT_MEMBER,
    "actions:resume": PROJECT_MEMBER,
    "actions:check": PROJECT_READER,
    "actions:cancel_update": PROJECT_MEMBER,
    "actions:cancel_without_rollback": PROJECT_MEMBER,
    "build_info:build_info": PROJECT_READER,
    "events:index": PROJECT_READER,
    "events:show": PROJECT_READER,
    "resource:index": PROJECT_READER,
    "resource:metadata": READER_OR_STACK_USER,
    "resource:signal": READER_OR_STACK_USER,
    "resource:mark_unhealthy": PROJECT_MEMBER,
    "resource:show": PROJECT_READER,
    "service:index": PROJECT_ADMIN,
    "software_configs:global_index": "rule:deny_everybody",
    "software_configs:index": PROJECT_READER,
    "software_configs:create": PROJECT_MEMBER,
    "software_configs:show": PROJECT_READER,
    "software_configs:delete": PROJECT_MEMBER,
    "software_deployments:index": PROJECT_READER,
    "software_deployments:create": PROJECT_MEMBER,
    "software_deployments:show": PROJECT_READER,
    "software_deployments:update": PROJECT_MEMBER,
    "software_deployments:delete": PROJECT_MEMBER,
    "software_deployments:metadata": READER_OR_STACK_USER,
    "stacks:abandon": PROJECT_MEMBER,
    "stacks:create": PROJECT_MEMBER,
    "stacks:delete": PROJECT_MEMBER,
    "stacks:detail": PROJECT_READER,
    "stacks:export": PROJECT_MEMBER,
    "stacks:generate_template": PROJECT_MEMBER,
    "stacks:global_index": "rule:deny_everybody",
    "stacks:index": PROJECT_READER,
    "stacks:list_resource_types": PROJECT_READER,
    "stacks:list_template_versions": PROJECT_READER,
    "stacks:list_template_functions": PROJECT_READER,
    "stacks:lookup": READER_OR_STACK_USER,
    "stacks:preview": PROJECT_READER,
    "stacks:resource_schema": PROJECT_READER,
    "stacks:show": PROJECT_READER,
    "stacks:template": PROJECT_READER,
    "stacks:environment": PROJECT_READER,
    "stacks:files": PROJECT_READER,
    "stacks:update": PROJECT_MEMBER,
    "stacks:update_patch": PROJECT_MEMBER,
    "stacks:preview_update": PROJECT_MEMBER,
    "stacks:preview_update_patch": PROJECT_MEMBER,
    "stacks:validate_template": PROJECT_MEMBER,
    "stacks:snapshot": PROJECT_MEMBER,
    "stacks:show_snapshot": PROJECT_READER,
    "stacks:delete_snapshot": PROJECT_MEMBER,
    "stacks:list_snapshots": PROJECT_READER,
    "stacks:restore_snapshot": PROJECT_MEMBER,
    "stacks:list_outputs": PROJECT_READER,
    "stacks:show_output": PROJECT_READER,
    # stoker's extension (Heat has no such route): a read of the stack and its cloud
    "stacks:drift": PROJECT_READER,
    # and taking the cloud's values into the stack (a change of the stack)
    "stacks:drift_accept": PROJECT_MEMBER,
}


def rule_for(method: str, route: list[str]) -> str | None:
    """The name of the rule that guards ``method`` on ``route`` (the path's parts after
    ``/v1/{project}``), as Heat's controllers name theirs (``scope:action``): the one its
    route in `PROJECT_ROUTES` carries, ``_patch`` added for a PATCH on a route that takes PUT
    too (Heat names that rule apart); None for a path and method no route answers (the
    router's 404 or 405 follows)."""
    scope = {"type": "http", "method": method, "path": "/" + "/".join(route)}
    for candidate in PROJECT_ROUTES:
        if candidate.matches(scope)[0] is Match.FULL:
            if method == "PATCH" and "PUT" in (candidate.methods or ()):
                return f"{candidate.name}_patch"
            return candidate.name
    return None


# ------------------------------------------------------------------ check strings
@dataclass(frozen=True, slots=True)
class Credentials:
    """What a rule may test about the caller (oslo.policy's ``creds``)."""

    user_id: str
    project_id: str
    roles: frozenset[str]
    is_admin_project: bool = True
    system_scope: str | None = None
    values: Mapping[str, Any] = field(default_factory=dict)

    def value(self, key: str) -> Any:
        known: dict[str, Any] = {
            "user_id": self.user_id,
            "project_id": self.project_id,
            "tenant": self.project_id,
            "is_admin_project": self.is_admin_project,
            "system_scope": self.system_scope,
        }
        return known[key] if key in known else self.values.get(key)


Check = Callable[["Policy", Credentials, Mapping[str, Any]], bool]
_SUBSTITUTION = re.compile(r"%\((\w+)\)s")


def _atom(text: str) -> Check:
    if text == "@":
        return lambda policy, creds, target: True
    if text == "!":
        return lambda policy, creds, target: False
    kind, sep, match = text.partition(":")
    if not sep or not kind:
        raise PolicyError(f"{text!r} is not a check (KIND:VALUE, @ or !)")
    if kind in ("http", "https"):
        raise PolicyError(f"{text!r}: remote (http) checks are not supported")
    if kind == "rule":
        return lambda policy, creds, target: policy.check(match, creds, target)
    if kind == "role":
        wanted = match.lower()
        return lambda policy, creds, target: wanted in creds.roles
    return _generic(kind, match)


def _generic(kind: str, match: str) -> Check:
    """``KEY:VALUE``: the caller's KEY equals VALUE, where VALUE may name the target's
    fields (``%(project_id)s``); ``True``/``False`` compare as booleans."""

    def check(policy: Policy, creds: Credentials, target: Mapping[str, Any]) -> bool:
        try:
            wanted = _SUBSTITUTION.sub(lambda m: str(target[m.group(1)]), match)
        except KeyError:
            return False
        actual = creds.value(kind)
        if actual is None:
            return False
        if isinstance(actual, bool):
            return wanted.lower() == str(actual).lower()
        return wanted == str(actual)

    return check


def _tokens(text: str) -> list[str]:
    """oslo.policy's tokens: words split on blanks, with leading ``(`` and trailing ``)``
    peeled off as their own tokens (so ``%(project_id)s`` stays whole)."""
    found: list[str] = []
    for word in text.split():
        lead = len(word) - len(word.lstrip("("))
        found.extend("(" * lead)
        word = word[lead:]
        trail = 0
        while word.endswith(")") and word.count("(") < word.count(")"):
            word, trail = word[:-1], trail + 1
        if word:
            found.append(word)
        found.extend(")" * trail)
    return found


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise PolicyError("the check string ends too early")
        self.at += 1
        return token

    def parse(self) -> Check:
        if not self.tokens:
            return lambda policy, creds, target: True  # "": everybody
        check = self.either()
        if self.peek() is not None:
            raise PolicyError(f"unexpected {self.peek()!r}")
        return check

    def either(self) -> Check:
        return self.joined("or", self.both, any)

    def both(self) -> Check:
        return self.joined("and", self.negation, all)

    def joined(
        self, word: str, part: Callable[[], Check], combine: Callable[[Iterable[bool]], bool]
    ) -> Check:
        """``part`` [``word`` ``part``]...: one check that ``combine``s the parts'."""
        parts = [part()]
        while (self.peek() or "").lower() == word:
            self.take()
            parts.append(part())
        if len(parts) == 1:
            return parts[0]
        return lambda policy, creds, target: combine(p(policy, creds, target) for p in parts)

    def negation(self) -> Check:
        token = self.take()
        if token.lower() == "not":
            inner = self.negation()
            return lambda policy, creds, target: not inner(policy, creds, target)
        if token == "(":
            inner = self.either()
            if self.peek() != ")":
                raise PolicyError("a '(' is not closed")
            self.take()
            return inner
        if token == ")" or token.lower() in ("and", "or"):
            raise PolicyError(f"unexpected {token!r}")
        return _atom(token)


def parse_check(text: str) -> Check:
    """A check string as a callable, or a `PolicyError` saying what is wrong."""
    return _Parser(text).parse()


class Policy:
    """Heat's rules, with an operator's overrides over its defaults."""

    def __init__(
        self,
        overrides: Mapping[str, str] | None = None,
        source: str = "",
        places: Mapping[str, str] | None = None,
    ) -> None:
        """``places``: where each override is written (``line:column``), for messages."""
        self.texts = {**DEFAULTS, **(overrides or {})}
        self.rules: dict[str, Check] = {}
        for name, text in self.texts.items():
            try:
                self.rules[name] = parse_check(text)
            except PolicyError as error:
                place = (places or {}).get(name)
                where = f"{source}:{place}: " if place else f"{source}: " if source else ""
                raise PolicyError(f"{where}rule {name!r} ({text!r}): {error}") from None
        loop = _loop(self.texts)
        if loop:
            where = f"{source}: " if source else ""
            raise PolicyError(f"{where}the rules refer to each other in a loop: {loop}")

    def check(self, name: str, creds: Credentials, target: Mapping[str, Any]) -> bool:
        """Whether rule ``name`` admits ``creds`` on ``target``; an unknown rule admits
        nobody (as oslo.policy's ``rule:`` of a missing name)."""
        rule = self.rules.get(name)
        return rule is not None and rule(self, creds, target)

    def is_admin(self, creds: Credentials) -> bool:
        """Heat's ``context_is_admin`` (an admin reaches every project's URL)."""
        return self.check("context_is_admin", creds, {})


def _loop(texts: Mapping[str, str]) -> str:
    """A chain of ``rule:`` references that comes back to its start (``a -> b -> a``),
    or "" when there is none: such a rule could never be decided."""
    refers = {
        name: [t[5:] for t in _tokens(text) if t.startswith("rule:") and t[5:] in texts]
        for name, text in texts.items()
    }
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> str:
        if name in path:
            return " -> ".join([*path[path.index(name) :], name])
        if name in done:
            return ""
        for other in refers[name]:
            found = visit(other, [*path, name])
            if found:
                return found
        done.add(name)
        return ""

    for name in texts:
        found = visit(name, [])
        if found:
            return found
    return ""


def load_policy(path: str) -> Policy:
    """The rules of a ``policy.yaml`` (or ``.json``: oslo.policy's format, a mapping of
    rule name to check string) over Heat's defaults; a clear `PolicyError` naming the
    file (and line) for a file that cannot be read or a rule that cannot be parsed."""
    import yaml

    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except (OSError, UnicodeDecodeError) as error:
        raise PolicyError(f"{path}: cannot read the policy file: {error}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else path
        problem = getattr(error, "problem", None) or "not YAML"
        raise PolicyError(f"{where}: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise PolicyError(f"{path}: a policy file maps rule names to check strings")
    places = {
        str(key.value): f"{value.start_mark.line + 1}:{value.start_mark.column + 1}"
        for key, value in (node.value if isinstance(node, yaml.MappingNode) else [])
    }
    return Policy(data, source=path, places=places)
