"""One open connection to the chosen cloud, and the calls made through it.

openstacksdk is synchronous; stoker's engine is not. Every call runs on this cloud's own
thread pool (sized for the engine's concurrency, not the event loop's default of a few
threads), so a hundred servers being polled do not queue behind one another. The
connection is opened on first use, with openstacksdk imported then and not before.

Every failure of a call becomes a `CloudError` naming the call and quoting the cloud;
refusals that say "not now" (409 Conflict, 429, 503) are retried with backoff first.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from stoker.cloud.acting import ACTING, Acting
from stoker.cloud.backoff import RETRIES, RETRY
from stoker.cloud.choice import HOW_TO_CHOOSE, CloudChoice
from stoker.errors import CloudError, NoCloud

if TYPE_CHECKING:
    from stoker.cloud.batch import Coalescer

T = TypeVar("T")

#: statuses that mean "try again later"
TRANSIENT = frozenset({409, 429, 503})
#: the connections of identities other than the cloud's own kept open (least recently
#: used dropped beyond; a dropped one is opened again when next needed)
KEPT_IDENTITIES = 256


class NotFoundError(CloudError):
    """The cloud answered 404: the thing is not there (deletes treat this as done)."""


class _Opened:
    """One identity's connection and the calls its resources coalesce."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.coalescers: dict[str, Coalescer[Any, Any]] = {}


class Cloud:
    """The chosen cloud, opened on first use; shared by every resource of a process.

    Each identity the calls act as (`stoker.cloud.acting`) has a connection of its own;
    with no identity set, the cloud's own credentials act, unless the cloud is not
    ``shared`` (``stoker serve`` with each stack's owner acting): such a call is
    refused, never made as the server."""

    def __init__(self, choice: CloudChoice, *, workers: int = 64, shared: bool = True) -> None:
        self.choice = choice
        self.shared = shared
        self._workers = workers
        self._lock = threading.Lock()
        self._own: _Opened | None = None
        self._others: OrderedDict[str, _Opened] = OrderedDict()
        self._executor: ThreadPoolExecutor | None = None

    def _opened(self) -> _Opened:
        acting = ACTING.get()
        with self._lock:
            if acting is None:
                if not self.shared:
                    raise CloudError(
                        "no owner's credentials to act with: this server makes each "
                        "stack's cloud calls as the stack's owner"
                    )
                if self._own is None:
                    self._own = _Opened(self._open())
                return self._own
            found = self._others.get(acting.key)
            if found is not None:
                self._others.move_to_end(acting.key)
                return found
        opened = _Opened(self._open_as(acting))  # outside the lock: it logs in
        with self._lock:
            found = self._others.setdefault(acting.key, opened)
            while len(self._others) > KEPT_IDENTITIES:
                self._others.popitem(last=False)
            return found

    def view_key(self) -> str:
        """What the cloud shows depends on: the current identity's project ("" for the
        cloud's own identity). A cache of listings is kept per key: one project never
        reads another's names, and a project's callers share one (bounded by projects,
        not tokens)."""
        acting = ACTING.get()
        return "" if acting is None else f"project:{acting.project_id}"

    def coalescer(self, name: str, make: Callable[[], Coalescer[Any, Any]]) -> Coalescer[Any, Any]:
        """The current identity's one `Coalescer` called ``name`` (made by ``make`` on
        first use): every resource that polls the same way as the same identity shares
        its calls."""
        opened = self._opened()
        with self._lock:
            found = opened.coalescers.get(name)
            if found is None:
                found = opened.coalescers[name] = make()
            return found

    def connection(self) -> Any:
        """The current identity's openstacksdk ``Connection`` (opened and authenticated
        on first use)."""
        return self._opened().connection

    def _open(self) -> Any:
        import openstack
        from keystoneauth1 import exceptions as ksa

        _quiet()
        try:
            connection = openstack.connect(cloud=self.choice.name)  # None: the OS_* variables
            connection.authorize()
        except openstack.exceptions.ConfigException as error:
            reason = str(error).rstrip(".")
            raise NoCloud(
                f"{self.choice.describe()} cannot be used: {reason}; {HOW_TO_CHOOSE}"
            ) from None
        except (openstack.exceptions.SDKException, ksa.ClientException) as error:
            raise NoCloud(
                f"{self.choice.describe()} cannot be reached: {_message(error)}"
            ) from None
        return self._prepared(connection)

    def _open_as(self, acting: Acting) -> Any:
        """A connection to the chosen cloud (its region, interface and TLS settings)
        logged in as ``acting``, not with the cloud's own credentials."""
        import openstack
        from keystoneauth1 import exceptions as ksa
        from keystoneauth1 import session as sessions
        from openstack import config as os_config

        _quiet()
        try:
            region = os_config.OpenStackConfig().get_one(cloud=self.choice.name)
            verify, cert = region.get_requests_verify_args()
            session = sessions.Session(auth=acting.plugin(), verify=verify, cert=cert)
            connection = openstack.connection.Connection(
                session=session,
                region_name=region.region_name,
                interface=region.config.get("interface"),
            )
            connection.authorize()
        except (openstack.exceptions.SDKException, ksa.ClientException) as error:
            raise CloudError(
                f"{acting.describe} cannot act in {self.choice.describe()}: {_message(error)}",
                getattr(error, "http_status", None),
            ) from None
        return self._prepared(connection)

    def _prepared(self, connection: Any) -> Any:
        for service in ("compute", "network", "block_storage", "image", "load_balancer", "dns"):
            # Discover each service's endpoint and versions once, now: a hundred threads'
            # first calls would otherwise each discover it at the same time.
            with contextlib.suppress(Exception):  # a service the cloud lacks fails when used
                _pin_endpoint(getattr(connection, service))
        session = getattr(connection.session, "session", None)
        if session is not None:  # keystoneauth's requests.Session
            _pool_for(session, self._workers)
        return connection

    def run(self, what: str, call: Callable[[Any], T]) -> T:
        """Make ``call(connection)`` now, in this thread; failures become `CloudError`."""
        import openstack
        from keystoneauth1 import exceptions as ksa

        connection = self.connection()
        try:
            return call(connection)
        except (openstack.exceptions.NotFoundException, ksa.http.NotFound) as error:
            raise NotFoundError(f"{what} failed (HTTP 404): {_message(error)}", 404) from None
        except (openstack.exceptions.SDKException, ksa.ClientException) as error:
            raise _failure(what, error) from None

    async def call(self, what: str, call: Callable[[Any], T], *, retry: bool = True) -> T:
        """``call(connection)`` on the cloud's thread pool; transient refusals retried
        with backoff (unless ``retry`` is false: a create is not repeated blindly)."""
        delays = RETRY.delays()
        attempt = 0
        while True:
            try:
                return await self._in_thread(functools.partial(self.run, what, call))
            except CloudError as error:
                status = error.status
                attempt += 1
                if not retry or status not in TRANSIENT or attempt > RETRIES:
                    raise
                await asyncio.sleep(next(delays))

    async def _in_thread(self, job: Callable[[], T]) -> T:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self._workers, thread_name_prefix="stoker-cloud")
        # in the caller's context: the identity it acts as (`stoker.cloud.acting`)
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(
            self._executor, functools.partial(context.run, job)
        )

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


def _quiet() -> None:
    for name in ("keystoneauth", "openstack"):
        # Their warnings would reach stderr through logging's last resort; what goes
        # wrong reaches the user once, as the error below or a resource's failure.
        logging.getLogger(name).addHandler(logging.NullHandler())


def _pin_endpoint(adapter: Any) -> None:
    """Discover the service's endpoint now and have every later call use it as its
    ``endpoint_override``. Without one, keystoneauth finds each call's endpoint in the
    token's catalog again, normalising a deep copy of the whole catalog every time:
    a large part of the client's CPU per request (in a profile of a 100-server create). The
    endpoint is the one discovery just chose (openstacksdk pins discovered endpoints the
    same way for services it cannot discover twice); one the cloud's configuration
    overrides already is left as it is."""
    endpoint = adapter.get_endpoint()
    if endpoint and getattr(adapter, "endpoint_override", None) is None:
        # keystoneauth formats an override with %(project_id)s and the like
        adapter.endpoint_override = str(endpoint).replace("%", "%%")


def _pool_for(session: Any, workers: int) -> None:
    """Keep a kept-alive connection per worker thread. requests keeps 10 per host by
    default: with more calls in flight than that, each call past the tenth opened a
    connection and closed it after one request (a TCP handshake per poll on both sides).
    keystoneauth's adapter is mounted again with a pool of that size and the same TLS
    settings; an adapter of another kind (a session the caller made) is left alone."""
    from keystoneauth1.session import TCPKeepAliveAdapter
    from requests.adapters import DEFAULT_POOLSIZE

    if workers <= DEFAULT_POOLSIZE:
        return
    for scheme, adapter in list(session.adapters.items()):
        if type(adapter) is TCPKeepAliveAdapter:
            session.mount(
                scheme,
                TCPKeepAliveAdapter(
                    tls_ciphers=adapter.tls_ciphers,
                    tls_min_version=adapter.tls_min_version,
                    pool_maxsize=workers,
                ),
            )


def _message(error: BaseException) -> str:
    """The cloud's own words: the error body's message where the SDK kept it."""
    details = getattr(error, "details", None)
    message = getattr(error, "message", None) or str(error)
    if isinstance(details, str) and details and details not in message:
        return f"{message}: {details}"
    return str(message)


def _failure(what: str, error: BaseException) -> CloudError:
    status = getattr(error, "status_code", None) or getattr(error, "http_status", None)
    code = f" (HTTP {status})" if status else ""
    return CloudError(f"{what} failed{code}: {_message(error)}", status)
