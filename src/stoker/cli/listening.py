"""How the two servers (``stoker serve``, ``stoker sandbox serve``) start: one way.

The socket is bound here, before uvicorn runs, so the port in use is known (``--port 0``
picks a free one) and printed on the start line, and a port that is taken is one clear
error before anything is served. uvicorn then serves on that socket, in this process or
(``--workers N``) in N processes that share it, with its access log at the ``info``
level, as heat-api logs each request.
"""

from __future__ import annotations

import contextlib
import socket
from typing import TYPE_CHECKING

import click

from stoker.errors import UsageError

if TYPE_CHECKING:
    import uvicorn

#: uvicorn's log levels, quietest last; the access log is at ``info``
LOG_LEVELS = ("critical", "error", "warning", "info", "debug")

log_level_option = click.option(
    "--log-level",
    type=click.Choice(LOG_LEVELS),
    default="info",
    show_default=True,
    help="What the server logs on stderr: info logs each request (the access log), as "
    "heat-api does; warning and above only problems.",
)


def listen(host: str, port: int) -> tuple[socket.socket, str]:
    """A TCP socket bound to ``host``:``port``, and the server's base URL
    (``http://HOST:PORT`` with the port actually bound)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, so asyncio turns Nagle off on each connection (it does only for
    # sockets that say they are TCP): else a kept-alive request waits 40 ms for an ACK
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        raise UsageError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    listener.set_inheritable(True)  # the workers of --workers N share it
    bound = listener.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    return listener, f"http://{shown}:{bound}"


def serve_on(listener: socket.socket, config: uvicorn.Config) -> None:
    """Serve ``config``'s app on ``listener`` until interrupted: in this process, or in
    ``config.workers`` processes (uvicorn's supervisor, as ``uvicorn.run`` starts it)."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    with contextlib.suppress(KeyboardInterrupt):  # uvicorn stopped, then passed Ctrl-C on
        if config.workers > 1:
            Multiprocess(config, sockets=[listener]).run()
        else:
            uvicorn.Server(config).run(sockets=[listener])
