"""``stoker sandbox``: run the local OpenStack, and point clients at it.

Starlette and uvicorn are imported only when ``serve`` runs (``stoker --help`` stays fast).
"""

from __future__ import annotations

import contextlib
import socket
from pathlib import Path

import click

from stoker.errors import UsageError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8788
DEFAULT_PASSWORD = "sandbox"


@click.group()
def sandbox() -> None:
    """Run a local OpenStack (Keystone, Nova, Glance ...) that the real clients accept.

    Start it with ``stoker sandbox serve``, write its clouds.yaml entry with ``stoker
    sandbox clouds-yaml > clouds.yaml``, then ``openstack --os-cloud sandbox server list``.
    """


@sandbox.command()
@click.option("--host", default=DEFAULT_HOST, show_default=True, help="Address to listen on.")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--db",
    "db_url",
    metavar="URL",
    help="The sandbox's database (SQLAlchemy URL or SQLite file path; default: sandbox.db "
    "in stoker's data directory; sqlite:// keeps it in memory).",
)
@click.option(
    "--build-delay",
    default=1.0,
    show_default=True,
    type=click.FloatRange(0, 3600),
    help="Seconds a server stays in BUILD before it is ACTIVE.",
)
@click.option(
    "--password",
    default=DEFAULT_PASSWORD,
    show_default=True,
    help="Password of the seeded admin and demo users (used when the database is new).",
)
@click.option(
    "--faults",
    "faults_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A fault plan (YAML or JSON: latency, error rates, quotas, servers that fail); "
    "see docs/sandbox.md.",
)
@click.option(
    "--import-allow",
    "import_allow",
    metavar="HOST",
    multiple=True,
    help="A host Glance's web-download import may fetch images from (repeat it for "
    "more; none by default).",
)
@click.option("--access-log/--no-access-log", default=True, show_default=True)
def serve(
    host: str,
    port: int,
    db_url: str | None,
    build_delay: float,
    password: str,
    faults_file: Path | None,
    import_allow: tuple[str, ...],
    access_log: bool,
) -> None:
    """Serve the sandbox until interrupted."""
    import uvicorn

    from stoker.sandbox.app import create_app
    from stoker.sandbox.faults import load_faults
    from stoker.sandbox.service import SandboxConfig
    from stoker.sandbox.store import default_url
    from stoker.sandbox.threaded import KEEP_ALIVE

    faults = load_faults(faults_file) if faults_file is not None else None
    config = SandboxConfig(
        build_delay=build_delay,
        password=password,
        faults=faults,
        import_allow=tuple(host.strip().lower() for host in import_allow),
    )
    app = create_app(db_url or default_url(), config)
    # bound here, so the port in use is known (``--port 0`` picks a free one) and a port
    # that is taken is one clear error before anything is served
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
    bound = listener.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    click.echo(f"stoker sandbox: http://{shown}:{bound}/identity/v3 (Ctrl-C stops it)", err=True)
    server_config = uvicorn.Config(
        app,
        access_log=access_log,
        log_level="info",
        lifespan="off",
        timeout_keep_alive=KEEP_ALIVE,
    )
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn stopped, then passed Ctrl-C on
        uvicorn.Server(server_config).run(sockets=[listener])


@sandbox.command("clouds-yaml")
@click.option("--host", default=DEFAULT_HOST, show_default=True)
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(1, 65535))
@click.option("--user", default="admin", show_default=True, help="admin or demo (or one made).")
@click.option("--project", default=None, help="The project to scope to (default: the user's).")
@click.option("--password", default=DEFAULT_PASSWORD, show_default=True)
def clouds_yaml_command(
    host: str, port: int, user: str, project: str | None, password: str
) -> None:
    """Print a clouds.yaml entry named ``sandbox`` for a sandbox at HOST:PORT."""
    from stoker.sandbox.clouds import clouds_yaml

    click.echo(clouds_yaml(host, port, user=user, project=project, password=password), nl=False)
