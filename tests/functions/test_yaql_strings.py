"""yaql's string functions (`stoker.functions.yaql_strings`) against yaql itself, and
TripleO's expressions that used to need yaql, evaluated natively as yaql does.

``str``, ``toLower``, ``replace`` (of a string or a ``regex``), ``split``, ``join`` and the
yaql function's ``format`` give yaql's value of the same types (``split`` a list) or are
declined, under Heat's limits, TripleO's and tight ones.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stoker.limits import Limits

from .test_yaql_queries import LIMITS, VALUES, check
from .test_yaql_subset import created

pytestmark = pytest.mark.heavy

FAST = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))

TEXT = st.text(alphabet=st.sampled_from(list("aB/_.{}0 \n-é")), max_size=8)
FAMILIES = [
    "str($.data.a)",
    "str($.data.a).toLower()",
    "$.data.a.toLower()",
    "$.data.a.replace('a', 'X')",
    "$.data.a.replace($.data.b, '')",
    "regex(`([a-z0-9])([A-Z])`).replace($.data.a, '\\\\1_\\\\2').toLower()",
    "regex($.data.b).replace($.data.a, 'x')",
    "dict($.data.m.items().select([regex(`([a-z0-9])([A-Z])`).replace($[0], '\\\\1_\\\\2')"
    ".toLower(), $[1]]))",
    "$.data.a.split('/')",
    "$.data.a.split('/')[-1]",
    "$.data.a.split('/') = [$.data.a]",  # a list is never equal to a tuple
    "str('{0}'.format($.data.a).split('/')[-1])",
    "$.data.a.split($.data.b)",
    "'{0}.client.{1}.keyring'.format($.data.a, $.data.b)",
    "$.data.a.format($.data.b)",
    '$.data.l.join("\\n")',
    "$.data.l.where($ != null).join(', ')",
    "$.data.l.select($.replace('a', 'b'))",
    "$.data.m.get($.data.a, $.data.a).toLower()",
    "let(u => $.data.b) -> $.data.m.values().select('{0}.{1}'.format($, $u))",
]
DATA = st.fixed_dictionaries(
    {
        "a": TEXT | st.sampled_from(["aBcD/xY", "{0}", "{}", "{0.x}", "{1}"]) | VALUES,
        "b": TEXT | st.sampled_from(["", "(", "[a-z]", "/"]) | VALUES,
        "l": st.lists(TEXT | st.none() | st.integers(0, 2) | st.booleans(), max_size=4) | VALUES,
        "m": st.dictionaries(TEXT, TEXT | VALUES, max_size=3) | VALUES,
    }
)


@FAST
@given(st.sampled_from(FAMILIES), DATA, st.sampled_from(LIMITS))
def test_string_functions_agree_with_yaql(expression: str, data: Any, limits: Limits) -> None:
    check(expression, data, limits, arithmetic=True)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(FAMILIES), DATA, st.sampled_from(LIMITS))
def test_many_more_string_functions_agree_with_yaql(
    expression: str, data: Any, limits: Limits
) -> None:
    check(expression, data, limits, arithmetic=True)


# TripleO's expressions (tripleo-heat-templates) that yaql used to evaluate, with data of
# the shape its templates give them
TRIPLEO: list[tuple[str, Any]] = [
    (
        "dict($.data.map.items().select([ regex(`([a-z0-9])([A-Z])`).replace($[0], "
        "'\\\\1_\\\\2').toLower(), $[1]]))",
        {"map": {"NovaComputeCpuDedicatedSet": "1-3", "KernelArgs": "", "isolCPUs": [1]}},
    ),
    ('$.data.values().any($.get("GlanceBackend", "") = "cinder")', {"a": {}, "b": {}}),
    (
        '$.data.values().any($.get("GlanceBackend", "") = "rbd")',
        {"default": {"GlanceBackend": "swift"}, "ceph": {"GlanceBackend": "rbd"}},
    ),
    (
        "coalesce($.data.service_names, []).zip(coalesce($.data.step_config, []), "
        "coalesce($.data.docker_config, [])).where($[2] = null).where($[1] != null)"
        '.select($[1]).join("\\n")',
        {
            "service_names": ["ntp", "nova", "heat"],
            "step_config": ["include ntp", "include nova", None],
            "docker_config": [None, {"step_1": {}}, None],
        },
    ),
    (
        "let(root => $) -> $.data.map.items().where($[0] in coalesce($root.data.services, []))"
        ".select($[1]).reduce($1.mergeWith($2), {})",
        {
            "map": {"nova": {"a": [1], "b": {"x": 1}}, "heat": {"a": [2]}, "x": {"c": 3}},
            "services": ["nova", "heat"],
        },
    ),
    (
        "let(root => $) -> $.data.extra_services.items().where($[0] in "
        "$root.data.enabled_services).select($[1]).flatten() + $root.data.enabled_services",
        {"extra_services": {"nova": ["libvirt"], "x": ["y"]}, "enabled_services": ["nova"]},
    ),
    (
        "let(root => $) -> distinct($.data.extra_services.items().where($[0] in "
        "coalesce($root.data.enabled_services, [])).select($[1]).flatten() + "
        "coalesce($root.data.enabled_services, []))",
        {"extra_services": {"nova": ["libvirt", "nova"]}, "enabled_services": ["nova", "heat"]},
    ),
    (
        "let(servers=>switch(isDict($.data.servers) => $.data.servers, true => {})) -> "
        "$servers.deleteAll($servers.keys().where($servers[$] = null))",
        {"servers": {"Controller": ["c-0"], "Compute": None, "Storage": []}},
    ),
    (
        "let(root => $) -> dict($.data.net_ip_map.items().where($[0] in $root.data.role_networks))",
        {
            "net_ip_map": {"ctlplane": ["192.0.2.5"], "storage": ["172.16.1.5"]},
            "role_networks": ["ctlplane", "internal_api"],
        },
    ),
    (
        "$.data.vols.select($.replace('puppet-generated/glance_api', "
        "'puppet-generated/glance_api_internal'))",
        {"vols": ["/var/lib/config-data/puppet-generated/glance_api:/x:ro", "/dev:/dev"]},
    ),
    (
        "$.data.hostname_map.get($.data.hostname, $.data.hostname).toLower()",
        {"hostname_map": {"Overcloud-Controller-0": "CTRL-0"}, "hostname": "Overcloud-X"},
    ),
    (
        'let(u => $.data.user) -> $.data.multistore.values().where($.get("CephClusterName"))'
        '.select("{0}.client.{1}.keyring".format($.CephClusterName, '
        '$.get("CephClientUserName", $u)))',
        {
            "user": "openstack",
            "multistore": {
                "a": {"CephClusterName": "ceph"},
                "b": {"CephClusterName": "dcn", "CephClientUserName": "glance"},
                "c": {"GlanceBackend": "file"},
            },
        },
    ),
    ("$.data.items().first().last().ip_version", {"ctlplane-subnet": {"ip_version": 4}}),
    ('str("{0}".format($.data).split("/")[-1])', "192.168.24.0/24"),
    ("coalesce($.data, []).first(null)", []),
    ("coalesce($.data, []).first(null)", ["compute-0", "compute-1"]),
    (
        'switch($.data = {} => "no_bootstrap_server", $.data != {} => '
        "$.data.items().orderBy($[0]).first()[1])",
        {"overcloud-controller-1": "192.0.2.7", "overcloud-controller-0": "192.0.2.6"},
    ),
    ("list($.data.where($ != null and len($) > 0)).flatten()", [["a"], None, [], ["b", "c"]]),
    ("str($.data.port)", {"port": 8080}),
    ("str($.data.debug)", {"debug": False}),
]


@pytest.mark.parametrize("expression,data", TRIPLEO)
@pytest.mark.parametrize("limits", LIMITS[:2], ids=["heat", "tripleo"])
def test_tripleo_expressions_are_native(expression: str, data: Any, limits: Limits) -> None:
    assert check(expression, data, limits, arithmetic=True), f"{expression!r} was left to yaql"


def test_a_stack_of_tripleo_expressions_never_imports_yaql(tmp_path: Path) -> None:
    """Validating and creating a stack of each of these expressions costs no yaql import."""
    lines = ["heat_template_version: wallaby", "resources:"]
    for number, (expression, data) in enumerate(TRIPLEO):
        lines += [
            f"  v{number}:",
            "    type: OS::Heat::Value",
            "    properties:",
            f"      value: {{yaql: {{expression: {expression!r}, data: {data!r}}}}}",
        ]
    lines += ["outputs:", "  out: {value: {get_attr: [v9, value]}}"]
    imported, output = created(tmp_path, "\n".join(lines).replace("None", "null") + "\n")
    assert "stoker.functions.yaql_strings" in imported
    assert not [name for name in imported if name.split(".")[0] == "yaql"]
    assert re.findall(r"puppet-generated/glance_api\w*", output) == [
        "puppet-generated/glance_api_internal"
    ]
