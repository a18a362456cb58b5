"""``make_url``: build a correctly escaped URL from its parts (heat-semantics §2)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any
from urllib import parse

from stoker.diagnostics import Diagnostic
from stoker.functions.base import Function
from stoker.functions.strings import PureFunction

KEYS = ("scheme", "username", "password", "host", "port", "path", "query", "fragment")


class MakeUrl(PureFunction):
    """Build an escaped URL: ``make_url: {scheme: https, host: {get_attr: [lb, ip]}, port: 443}``.

    User info is fully percent-encoded, IPv6 hosts are bracketed, the path keeps its
    slashes and ``query`` is a map; so values from parameters cannot break the URL apart.
    """

    checked_when_parsed = True

    def _argument_problems(self, args: Mapping[str, Any]) -> Iterator[str]:
        """Heat's ``_check_args``; calls are accepted anywhere (checked once resolved)."""
        for key in KEYS:
            if key not in args or isinstance(args[key], Function):
                continue
            value = args[key]
            if key == "query":
                if not isinstance(value, Mapping):
                    yield f'The "query" argument to "{self.name}" must be a map'
            elif key == "port":
                problem = self._port_problem(value, args)
                if problem:
                    yield problem
            elif not isinstance(value, str):
                yield f'The "{key}" argument to "{self.name}" must be a string'

    def _port_problem(self, port: Any, args: Mapping[str, Any]) -> str | None:
        if not isinstance(port, int):
            try:
                port = int(port)
            except (TypeError, ValueError):
                return f'Invalid URL port "{port}" for {self.name} called with {dict(args)}'
        if not 0 < port <= 65535:
            return f"Invalid URL port {port}, must be in range 1-65535"
        return None

    def _shape_problems(self, args: Any) -> Iterator[str]:
        if not isinstance(args, Mapping):
            yield f'The arguments to "{self.name}" must be a map'
            return
        unknown = [str(key) for key in args if key not in KEYS]
        if unknown:
            yield f'Invalid arguments to "{self.name}": {", ".join(unknown)}'
            return
        yield from self._argument_problems(args)

    def check_arguments(self) -> Iterator[Diagnostic]:
        for problem in self._shape_problems(self.args):
            yield self.invalid(problem)

    def compute(self, args: Any) -> Any:
        for problem in self._shape_problems(args):
            raise self.error(problem)
        scheme = args.get("scheme", "")
        if ":" in scheme:
            raise self.error("URL \"scheme\" should not contain ':'")

        netloc = ""
        username = parse.quote(args.get("username", ""), safe="")
        password = parse.quote(args.get("password", ""), safe="")
        if username or password:
            netloc = username + (f":{password}" if password else "") + "@"
        host = args.get("host", "")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        host = parse.quote(host, safe=":")
        netloc += f"[{host}]" if ":" in host else host
        port = args.get("port", "")
        if port:
            netloc += f":{port}"

        path = parse.quote(args.get("path", ""))
        query = parse.urlencode(args.get("query", {})).replace("%2F", "/")
        fragment = parse.quote(args.get("fragment", ""))
        return parse.urlunsplit((scheme, netloc, path, query, fragment))
