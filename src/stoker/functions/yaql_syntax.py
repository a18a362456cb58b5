"""A parser for the part of YAQL's grammar that template queries use, giving yaql's own tree.

TripleO's templates fold their role data with method chains such as
``coalesce($.data, []).where($ != null).select($.get('host_prep_tasks')).flatten()``. yaql
spends most of its time on such chains resolving overloads, and needs its parser tables
(built on first use) to read them. This module reads the chains' grammar directly: ``$``
variables, ``.name`` and ``.method(args)`` steps, function calls, indexers, ``[...]`` and
``{}`` literals, numbers, quoted strings without escapes, ``null``/``true``/``false``,
parentheses and the binary operators ``!= = + - * /``.

**It accepts only what yaql parses to the same tree.** Every other token (unary
operators, ``=>``, ``->``, ``and``, escapes, non-ASCII names, ...) makes `parse` answer
``None`` and yaql reads the expression. The tree mirrors yaql's expression classes node for
node (`render` prints both in one notation), which ``tests/functions/test_yaql_queries.py``
compares on generated expressions.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from stoker.patterns import LazyPattern

Tree = tuple[Any, ...]

# yaql's lexer (ply) tries its token rules in this order: ``$name``, numbers, ``name(``,
# names, quoted strings; then its operators, longest first. Names are ASCII here (yaql's
# ``\w`` also takes Unicode letters), quoted strings have no backslash (yaql decodes escapes).
_TOKEN = LazyPattern(
    r"(?P<space>[ \t\r\n]+)"
    r"|(?P<dollar>\$[A-Za-z0-9_]*)"
    r"|(?P<number>\b[0-9]+(?:\.?[0-9]+)?\b)"
    r"|(?P<func>\b[A-Za-z_][A-Za-z0-9_]*\()"
    r"|(?P<name>\b[A-Za-z_][A-Za-z0-9_]*\b)"
    r"|(?P<string>'[^'\\]*'|\"[^\"\\]*\")"
    r"|(?P<op>!=|=|[-+*/.,()\[\]{}])"
)
#: characters after which yaql reads a longer operator than the one matched
_LONGER = {"=": "=>~", "-": ">", ".": "", "!=": ""}
_CONSTANTS = {"null": None, "true": True, "false": False}
#: names yaql's lexer reads as operators
_OPERATOR_WORDS = frozenset({"and", "or", "not", "in", "mod"})
#: the binary operators and yaql's function name for each, by precedence level
_LEVELS: tuple[dict[str, str], ...] = (
    {"!=": "*not_equal", "=": "*equal"},
    {"+": "#operator_+", "-": "#operator_-"},
    {"*": "#operator_*", "/": "#operator_/"},
)


def _tokens(expression: str) -> list[tuple[str, Any]] | None:
    tokens: list[tuple[str, Any]] = []
    position = 0
    while position < len(expression):
        match = _TOKEN.match(expression, position)
        if match is None:
            return None
        kind, text = match.lastgroup, match.group()
        position = match.end()
        following = expression[position : position + 1]
        if kind == "space":
            continue
        if kind == "op" and following and following in _LONGER.get(text, ""):
            return None  # ``=>``, ``=~``, ``->``
        if kind == "number":
            if following and (following.isalnum() or following in "._"):
                return None
            tokens.append(("const", float(text) if "." in text else int(text)))
        elif kind == "string":
            tokens.append(("const", text[1:-1]))
        elif kind in ("func", "name", "dollar"):
            word = text.rstrip("(")
            if word.startswith("__") or word in _OPERATOR_WORDS:
                return None
            if kind == "name" and word in _CONSTANTS:
                tokens.append(("const", _CONSTANTS[word]))
            else:
                tokens.append((str(kind), word))
        else:
            tokens.append(("op", text))
    return tokens


class _Parser:
    """Recursive descent over the tokens; anything outside the grammar is ``None``."""

    def __init__(self, tokens: list[tuple[str, Any]]) -> None:
        self.tokens = tokens
        self.index = 0

    def peek(self) -> tuple[str, Any] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self, kind: str, value: Any = None) -> tuple[str, Any] | None:
        token = self.peek()
        if token is None or token[0] != kind or (value is not None and token[1] != value):
            return None
        self.index += 1
        return token

    def expression(self, level: int = 0) -> Tree | None:
        if level == len(_LEVELS):
            return self.postfix()
        left = self.expression(level + 1)
        while left is not None:
            token = self.peek()
            if token is None or token[0] != "op" or token[1] not in _LEVELS[level]:
                break
            self.index += 1
            right = self.expression(level + 1)
            if right is None:
                return None
            left = ("binop", _LEVELS[level][token[1]], left, right)
        return left

    def arguments(self, closing: str) -> list[Tree] | None:
        """Comma-separated expressions up to ``closing`` (consumed)."""
        items: list[Tree] = []
        if self.take("op", closing):
            return items
        while True:
            item = self.expression()
            if item is None:
                return None
            items.append(item)
            if self.take("op", closing):
                return items
            if not self.take("op", ","):
                return None

    def postfix(self) -> Tree | None:
        tree = self.primary()
        while tree is not None:
            if self.take("op", "."):
                token = self.peek()
                if token is None or token[0] not in ("name", "func"):
                    return None
                self.index += 1
                if token[0] == "name":
                    tree = ("binop", "#operator_.", tree, ("key", token[1]))
                else:
                    arguments = self.arguments(")")
                    if arguments is None:
                        return None
                    tree = ("binop", "#operator_.", tree, ("call", token[1], tuple(arguments)))
            elif self.take("op", "["):
                arguments = self.arguments("]")
                if not arguments:
                    return None
                tree = ("index", tree, tuple(arguments))
            else:
                break
        return tree

    def primary(self) -> Tree | None:
        token = self.peek()
        if token is None:
            return None
        self.index += 1
        kind, value = token
        if kind == "const":
            return ("const", value)
        if kind == "dollar":
            return ("get", value)
        if kind == "func":
            arguments = self.arguments(")")
            return None if arguments is None else ("call", value, tuple(arguments))
        if token == ("op", "["):
            arguments = self.arguments("]")
            return None if arguments is None else ("list", tuple(arguments))
        if token == ("op", "{"):
            return ("map",) if self.take("op", "}") else None
        if token == ("op", "("):
            inner = self.expression()
            if inner is None or not self.take("op", ")"):
                return None
            return ("wrap", inner)
        return None


@lru_cache(maxsize=512)
def parse(expression: str) -> Tree | None:
    """yaql's tree for ``expression`` if it lies in the grammar, else ``None``."""
    parser = _Parser(_tokens(expression) or [])
    tree = parser.expression()
    return tree if parser.index == len(parser.tokens) else None  # all of it, or yaql's


_SHOWN: dict[str, Callable[[Tree], str]] = {
    "const": lambda tree: f"Constant({tree[1]!r})",
    "key": lambda tree: f"KeywordConstant({tree[1]!r})",
    "get": lambda tree: f"Get({tree[1]!r})",
    "wrap": lambda tree: f"Wrap({render(tree[1])})",
    "binop": lambda tree: f"BinaryOperator:{tree[1]}({render(tree[2])}, {render(tree[3])})",
    "call": lambda tree: f"Function:{tree[1]}({_listed(tree[2])})",
    "index": lambda tree: f"IndexExpression:#indexer({_listed((tree[1], *tree[2]))})",
    "list": lambda tree: f"ListExpression:#list({_listed(tree[1])})",
    "map": lambda tree: "MapExpression:#map()",
}


def _listed(trees: tuple[Tree, ...]) -> str:
    return ", ".join(render(tree) for tree in trees)


def render(tree: Tree) -> str:
    """The tree in the notation the tests print yaql's expression objects in."""
    return _SHOWN[tree[0]](tree)
