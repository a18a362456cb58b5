"""The same requests, sent without the per-call work that changes nothing in them.

A request through openstacksdk's adapter passes keystoneauth's session (headers, token,
endpoint, JSON, retries, redirects, logging) and then requests' session (merging session
settings, cookies, hooks, a prepared request, a response object) before urllib3 sends
it: ~1.3 ms of the client's CPU per request (cProfile, 300 GETs on the sandbox), where
urllib3's own part is ~0.4 ms. A create of a hundred servers makes a hundred such
requests in a row, and each of them waits on that CPU under one GIL.

Where that work cannot change what is sent or what comes back, `Direct` does only what
is left of it: the same URL (the endpoint the adapter is pinned to, the query encoded by
requests), the same headers in the same order (requests' session headers, the token
keystoneauth's auth plugin gives now, the user agent keystoneauth makes, the JSON body's
type and length), the same body, through the same urllib3 pool with the same TLS
settings, retries and timeout. "Cannot change" is checked, not assumed: for each adapter
once (no microversion, extra headers, retries, rate limit, metrics or cache configured;
the endpoint pinned; see `_route`) and on every request (no cookies, no proxies, no other
hooks, no debug logging of keystoneauth's; see `_plain`). Anything else is keystoneauth's
as before (`send` answers None), and so is whatever a response asks for beyond reading
it: a 401 (the token is refreshed once and the request asked again, as keystoneauth
does) and a redirect (followed from its location, as keystoneauth follows one).
Connection failures become keystoneauth's exceptions with keystoneauth's messages.
"""

from __future__ import annotations

import json
import logging
import re
import weakref
from collections.abc import Callable, Mapping
from typing import Any

#: keystoneauth's loggers of requests and responses (it logs only where DEBUG is on)
_LOGGERS = tuple(
    logging.getLogger(name)
    for name in (
        "keystoneauth.session",
        "keystoneauth.session.request",
        "keystoneauth.session.response",
        "keystoneauth.session.body",
        "keystoneauth.session.request-id",
    )
)
#: a URL requests' `prepare_url` gives back as it is (its path as the path to send): an
#: http(s) URL of a lower-case host name or IPv4 address, a port without a leading zero,
#: and a path of unreserved characters with no dot segment; without a query
_PLAIN_URL = re.compile(
    r"(?P<origin>https?://[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?"
    r"(?::(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?)"
    r"(?P<path>(?:/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+/?|/)"
)
#: the mounts requests' session has of itself: an adapter for each scheme
_SCHEME_MOUNTS = frozenset({"http://", "https://"})
#: the statuses keystoneauth follows (`Session._REDIRECT_STATUSES`)
_REDIRECTS = frozenset({301, 302, 303, 305, 307, 308})


class Answer:
    """A response as `rest` reads one: status, headers, body (requests' names), and what
    was sent for it."""

    __slots__ = ("content", "headers", "sent_body", "sent_headers", "status_code", "url")

    def __init__(
        self,
        status_code: int,
        headers: Any,
        content: bytes,
        url: str,
        sent_headers: dict[str, str],
        sent_body: bytes | None,
    ) -> None:
        self.status_code = status_code
        self.headers = headers
        self.content = content
        self.url = url
        self.sent_headers = sent_headers
        self.sent_body = sent_body

    def json(self) -> Any:
        return json.loads(self.content)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")


class _Route:
    """What one adapter's requests share: the endpoint and the headers before the token."""

    __slots__ = ("base", "headers", "timeout")

    def __init__(self, base: str, headers: dict[str, str], timeout: Any) -> None:
        self.base = base
        self.headers = headers
        self.timeout = timeout


class Direct:
    """Sends requests for one keystoneauth session (see the module's docstring); ``sdk``
    is the openstacksdk connection of it, if any (its cache and request id are checked)."""

    def __init__(self, keystone: Any, count: Callable[[Any], Any], sdk: Any = None) -> None:
        self.keystone = keystone
        self.session = keystone.session  # requests'
        self.sdk = sdk
        #: told of each response, as requests' response hooks are
        self.count = count
        self._hooks = [list(hooks) for hooks in self.session.hooks.values()]
        #: each adapter's route (None: keystoneauth sends its requests), by its id (the
        #: adapter is kept with it: an id is another object's once the first is gone)
        self._routes: dict[int, tuple[Any, _Route | None]] = {}
        #: requests' adapter and urllib3's pool for an origin (with the TLS settings they
        #: were got with), until the pool is closed (urllib3 1.x closes the pools its
        #: manager stops keeping; 2.x leaves them open, and usable)
        self._pools: dict[tuple[str, Any, Any], tuple[Any, Any]] = {}

    def send(
        self,
        adapter: Any,
        method: str,
        path: str,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        """``method path`` on ``adapter``'s service as keystoneauth would send it, and the
        response (an `Answer`, or keystoneauth's where it took over: a new token, a
        redirect); None where keystoneauth's own handling could differ (it sends then)."""
        known = self._routes.get(id(adapter))
        if known is not None and known[0] is adapter:
            route = known[1]
        else:
            route = self._route(adapter)
            self._routes[id(adapter)] = (adapter, route)
        if route is None or not self._plain():
            return None
        answer = self._send(route, method.upper(), path, body, params)
        if answer is None:
            return None
        if answer.status_code == 401:
            # keystoneauth's one new token and one more try (this was the first)
            if not self.keystone.invalidate():
                return answer
            kwargs: dict[str, Any] = {"params": params} if params is not None else {}
            return adapter.request(
                path, method, json=body, raise_exc=False, allow_reauth=False, **kwargs
            )
        if answer.status_code in _REDIRECTS and "location" in answer.headers:
            return self._redirected(answer, method.upper(), body)
        return answer

    def _send(
        self, route: _Route, method: str, path: str, body: Any, params: Mapping[str, Any] | None
    ) -> Answer | None:
        import requests
        from keystoneauth1 import exceptions as ksa
        from urllib3.exceptions import HTTPError, LocationValueError

        token = self.keystone.get_auth_headers()
        if not token:
            return None  # keystoneauth raises its own error for this
        url = f"{route.base}/{path.lstrip('/')}"
        headers = dict(route.headers)
        headers.update(token)
        data: bytes | None = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = self.keystone._json.encode(body).encode("utf-8")
            headers["Content-Length"] = str(len(data))
        elif method not in ("GET", "HEAD"):
            headers["Content-Length"] = "0"
        verify = self.keystone.verify if self.keystone.verify is not None else self.session.verify
        cert = self.keystone.cert or self.session.cert
        plain = None if params else _PLAIN_URL.fullmatch(url)
        prepared = requests.PreparedRequest()
        if plain is not None:  # what prepare_url would make of it, without its parsing
            prepared.url, path_url = url, plain["path"]
            key = (plain["origin"], verify, cert)
        else:
            prepared.prepare_url(url, params)
            path_url, key = prepared.path_url, None
        known = self._pools.get(key) if key is not None else None
        if known is not None and known[1].pool is not None:  # still open
            adapter, pool = known
        else:
            adapter = self.session.get_adapter(prepared.url)
            try:
                pool = adapter.get_connection_with_tls_context(
                    prepared, verify, proxies={}, cert=cert
                )
            except LocationValueError as error:  # requests' InvalidURL, to keystoneauth
                message = f"Unexpected exception for {url}: {error}"
                raise ksa.UnknownConnectionError(message, error) from None
            adapter.cert_verify(pool, prepared.url, verify, cert)
            if key is not None and set(self.session.adapters) <= _SCHEME_MOUNTS:
                self._pools[key] = (adapter, pool)  # no mount of a path's own to miss
        try:
            response = pool.urlopen(
                method=method,
                url=path_url,
                body=data,
                headers=headers,
                redirect=False,
                assert_same_host=False,
                preload_content=True,
                decode_content=True,
                retries=adapter.max_retries,
                timeout=route.timeout,
                chunked=False,
            )
        except (HTTPError, OSError) as error:
            raise _failure(url, error) from None
        answer = Answer(
            response.status, response.headers, response.data, str(prepared.url), headers, data
        )
        if "set-cookie" in response.headers:  # kept as requests keeps it (then: keystoneauth)
            from requests.cookies import extract_cookies_to_jar

            prepared.headers = requests.structures.CaseInsensitiveDict(headers)
            extract_cookies_to_jar(self.session.cookies, prepared, response)
        self.count(answer)
        return answer

    def _redirected(self, answer: Answer, method: str, body: Any) -> Any:
        """The rest of a redirect, keystoneauth's: from the location, the same method,
        body and headers, with its redirect count less this one."""
        allowed = self.keystone.redirect
        if not isinstance(allowed, bool):
            allowed -= 1
            if allowed < 0:
                return answer
        elif not allowed:
            return answer
        headers = {}
        if "x-openstack-request-id" in answer.headers:
            headers["x-openstack-request-id"] = answer.headers["x-openstack-request-id"]
        return self.keystone.request(
            answer.headers["location"],
            method,
            json=body,
            headers=headers,
            redirect=allowed,
            raise_exc=False,
        )

    def _plain(self) -> bool:
        """Whether nothing about requests' or keystoneauth's state now would add to a
        request: no cookie to send, no proxy, no hook but the counter, no debug log."""
        session = self.session
        return (
            not session.cookies
            and not session.proxies
            and session.trust_env is False
            and session.auth is None
            and not session.params
            and [list(hooks) for hooks in session.hooks.values()] == self._hooks
            and not any(logger.isEnabledFor(logging.DEBUG) for logger in _LOGGERS)
        )

    def _route(self, adapter: Any) -> _Route | None:
        """The adapter's route, or None where keystoneauth or openstacksdk would do more
        than send the request: anything configured that adds headers, retries, waits,
        caches or reports."""
        import keystoneauth1.session as ksa_session
        import requests

        keystone = self.keystone
        if (
            type(keystone) is not ksa_session.Session
            or type(self.session) is not requests.Session
            or keystone.auth is None
            or keystone.user_agent
            or keystone.original_ip
            or keystone.additional_headers
            or keystone._connect_retries
            or keystone._collect_timing
            or keystone.get_auth_connection_params()
            or getattr(ksa_session, "osprofiler_web", None) is not None
            or getattr(self.sdk, "cache_enabled", False)
            or getattr(self.sdk, "_global_request_id", None) is not None
        ):
            return None
        pinned = getattr(adapter, "endpoint_override", None)
        semaphore = getattr(adapter, "_rate_semaphore", None)
        if (
            not pinned
            or getattr(adapter, "auth", None) is not None
            or getattr(adapter, "user_agent", None)
            or getattr(adapter, "client_name", None)
            or getattr(adapter, "client_version", None)
            or getattr(adapter, "logger", None) is not None
            or getattr(adapter, "default_microversion", None) is not None
            or getattr(adapter, "additional_headers", None)
            or getattr(adapter, "global_request_id", None) is not None
            or getattr(adapter, "connect_retries", None)
            or getattr(adapter, "status_code_retries", None)
            or (semaphore is not None and (semaphore._concurrency or semaphore._rate_delay))
            or any(
                getattr(adapter, name, None) is not None
                for name in (
                    "_statsd_client",
                    "_prometheus_counter",
                    "_prometheus_histogram",
                    "_influxdb_client",
                )
            )
        ):
            return None
        agent = _user_agent(keystone)
        if agent is None:
            return None
        base = (pinned % ksa_session._StringFormatter(keystone, None)).rstrip("/")
        mounted = type(self.session.get_adapter(base))
        if mounted not in (requests.adapters.HTTPAdapter, ksa_session.TCPKeepAliveAdapter):
            return None  # an adapter of someone's own: its send is not HTTPAdapter's
        headers = {str(k): str(v) for k, v in self.session.headers.items() if v is not None}
        headers["User-Agent"] = agent  # keystoneauth's replaces requests' in place
        return _Route(base, headers, _timeout(keystone.timeout))


def _user_agent(keystone: Any) -> str | None:
    """The User-Agent keystoneauth sends (`Session.request`), where it does not have to
    look at the process for one (None then: keystoneauth is left to)."""
    from keystoneauth1.session import DEFAULT_USER_AGENT

    agent = []
    if keystone.app_name and keystone.app_version:
        agent.append(f"{keystone.app_name}/{keystone.app_version}")
    elif keystone.app_name:
        agent.append(keystone.app_name)
    for additional in keystone.additional_user_agent:
        agent.append("{}/{}".format(*additional))
    if not agent:
        return None
    agent.append(DEFAULT_USER_AGENT)
    return " ".join(agent)


def _timeout(seconds: Any) -> Any:
    """requests' timeout of a request given ``seconds`` (connect and read alike)."""
    from urllib3.util import Timeout

    if isinstance(seconds, tuple):
        connect, read = seconds
        return Timeout(connect=connect, read=read)
    return Timeout(connect=seconds, read=seconds)


def _failure(url: str, error: Exception) -> Exception:
    """keystoneauth's exception, and message, for what urllib3 raised: requests'
    translation of it (`HTTPAdapter.send`), then keystoneauth's of that
    (`Session._send_request`)."""
    from keystoneauth1 import exceptions as ksa
    from urllib3.exceptions import (
        ClosedPoolError,
        ConnectTimeoutError,
        MaxRetryError,
        NewConnectionError,
        ProtocolError,
        ProxyError,
        ReadTimeoutError,
        ResponseError,
        SSLError,
    )

    connection = ksa.ConnectFailure(f"Unable to establish connection to {url}: {error}")
    timeout = ksa.ConnectTimeout(f"Request to {url} timed out")
    tls = ksa.SSLError(f"SSL exception connecting to {url}: {error}")
    other = ksa.UnknownConnectionError(f"Unexpected exception for {url}: {error}", error)
    if isinstance(error, ProtocolError | OSError | ClosedPoolError | ProxyError):
        return connection
    if isinstance(error, MaxRetryError):
        reason = error.reason
        if isinstance(reason, ConnectTimeoutError) and not isinstance(reason, NewConnectionError):
            return timeout
        if isinstance(reason, ResponseError):
            return other
        if isinstance(reason, SSLError):
            return tls
        return connection  # a proxy's error among them: there is no proxy here
    if isinstance(error, SSLError):
        return tls
    if isinstance(error, ReadTimeoutError):
        return timeout
    return other  # an invalid header, say


_ATTACHED: weakref.WeakKeyDictionary[Any, Direct] = weakref.WeakKeyDictionary()


def attach(connection: Any, count: Callable[[Any], Any]) -> None:
    """Send ``connection``'s plain requests directly from now on (`rest.send`)."""
    _ATTACHED[connection] = Direct(connection.session, count, connection)


def of(connection: Any) -> Direct | None:
    """The `Direct` of ``connection``, if it has one."""
    return _ATTACHED.get(connection)
