"""Where clients reach this server: the root of every URL the API writes (links, the
``Location`` of a create, the name lookup's 302, version discovery).

Never the request's ``Host`` header: a client that sends ``Host: evil.example.com``
would get a redirect to that host, and a link in a body that a proxy or another client
then follows. The root is the public URL ``stoker serve --public-url`` names (Heat's
``public_endpoint`` and oslo's proxy settings do the same job), by default the address
the server listens on, as the server's socket reports it (``--port 0`` included). Light
on purpose: version discovery uses it without importing the engine
(`tests/api/test_idle_imports.py`).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request

from stoker.errors import UsageError

_DEFAULT_PORTS = {"http": 80, "https": 443}


def root_url(request: Request) -> str:
    """``http://HOST:PORT`` (or the public URL), without a trailing slash."""
    public: str | None = getattr(request.app.state, "public_url", None)
    if public:
        return public
    scheme = request.url.scheme
    server = request.scope.get("server")
    if not server:  # a transport that reports no socket (a Unix socket)
        return f"{scheme}://localhost"
    host, port = str(server[0]), server[1]
    if ":" in host:
        host = f"[{host}]"
    if port is None or _DEFAULT_PORTS.get(scheme) == port:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def public_url(text: str) -> str:
    """``--public-url``'s value checked: an absolute http(s) URL with a host, no query or
    fragment; returned without its trailing slash."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--public-url {text!r}: use an http:// or https:// URL with a host")
    if parts.query or parts.fragment:
        raise UsageError(f"--public-url {text!r}: a URL without a query or fragment")
    return text.strip().rstrip("/")
