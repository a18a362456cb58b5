"""The cloud a command works against, chosen one way for every command that needs one.

``--os-cloud NAME`` is taken where ``openstack`` users type it: after the subcommand
(``stoker stack create s1 -t t.yaml --os-cloud sandbox``) as well as on the ``stack``
group, and ``$OS_CLOUD`` (or the ``OS_*`` variables) when neither is given. With a cloud
chosen, the custom constraints (``nova.flavor``, ``glance.image``, ...) and
``Fn::GetAZs`` are answered by it (`check_against`) instead of being reported as not
checked offline.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from stoker.cloud import Cloud

OS_CLOUD_HELP = (
    "The cloud to use: an entry of clouds.yaml (default: $OS_CLOUD; without either, the "
    "OS_* variables describe the cloud). Accepted before or after the subcommand."
)


Callback = Callable[[click.Context, click.Parameter, Any], Any]


def os_cloud_option(
    help: str = OS_CLOUD_HELP, callback: Callback | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The ``--os-cloud`` option (``$OS_CLOUD``), with ``help`` and an optional
    ``callback`` (then it is handed to the callback, not to the command)."""
    return click.option(
        "--os-cloud",
        envvar="OS_CLOUD",
        metavar="NAME",
        help=help,
        callback=callback,
        expose_value=callback is None,
    )


def check_against(ctx: click.Context, cloud: Cloud) -> None:
    """For the rest of the command (``ctx``): the cloud's custom constraints checked
    against ``cloud`` (with the nearest names when a value is not found), and
    ``Fn::GetAZs`` answered by its Nova."""
    from stoker.cloud.constraints import CloudNames, cloud_constraints
    from stoker.definition import zones_from
    from stoker.parameters import cloud_checks

    names = CloudNames(cloud)
    ctx.with_resource(cloud_checks(cloud_constraints(cloud, names)))
    ctx.with_resource(zones_from(names.zones))


def open_chosen(ctx: click.Context, os_cloud: str | None, workers: int = 8) -> Cloud | None:
    """The cloud ``os_cloud`` (or the environment) chooses, closed with ``ctx``; None when
    none is chosen."""
    from stoker.cloud.choice import choose_cloud

    choice = choose_cloud(os_cloud)
    if choice is None:
        return None
    from stoker.cloud import Cloud

    cloud = Cloud(choice, workers=workers)
    ctx.call_on_close(cloud.close)
    return cloud
