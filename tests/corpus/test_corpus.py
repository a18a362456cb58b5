"""Every template of the corpus (vendored in ``data/``, see its NOTICE) loads and validates, except a listed few.

Each exception says why it fails; an exception that starts passing fails the test too, so
the list stays true.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stoker.definition.loading import load_definition

CORPUS = Path(__file__).resolve().parent / "data"

_HEAT_AGENTS = (
    "get_file paths reach ../../../../../heat-agents/, outside the template's tree and "
    "not in the corpus (see REFERENCED_FILES.txt)"
)

# path (relative to the corpus) -> why it is expected to be rejected
KNOWN_INVALID: dict[str, str] = {
    "openstack__heat-templates/cfn/F17/invalid/AutoScalingMultiAZSample.template": "intentionally invalid upstream: dependency cycle",
    "openstack__heat-templates/cfn/F17/invalid/AutoScalingMultiAZSample.yaml": "intentionally invalid upstream: dependency cycle",
    "openstack__heat-templates/cfn/F17/invalid/WordPress_Single_Instance_With_HA.template": "intentionally invalid upstream: dependency cycle",
    "openstack__heat-templates/cfn/F17/invalid/WordPress_Single_Instance_With_HA_AccessPolicy.template": "intentionally invalid upstream: dependency cycle",
    "openstack__heat-templates/cfn/F17/invalid/WordPress_Single_Instance_With_IHA.template": "intentionally invalid upstream: dependency cycle",
    "openstack__heat-templates/hot/software-config/boot-config/templates/install_config_agent_centos7_rdo.yaml": _HEAT_AGENTS,
    "openstack__heat-templates/hot/software-config/boot-config/templates/install_config_agent_fedora_pip.yaml": _HEAT_AGENTS,
    "openstack__heat-templates/hot/software-config/boot-config/templates/install_config_agent_fedora_yum.yaml": _HEAT_AGENTS,
    "openstack__heat-templates/hot/software-config/boot-config/templates/install_config_agent_test_image.yaml": _HEAT_AGENTS,
    "openstack__heat-templates/hot/software-config/boot-config/templates/install_config_agent_ubuntu_pip.yaml": _HEAT_AGENTS,
    "openstack__heat/_extracted/rst/doc/source/template_guide/multi-clouds.rst/L131.yaml": "doc snippet: get_file of remote-app.yaml, which the doc does not include",
    "openstack__heat/_extracted/rst/doc/source/template_guide/multi-clouds.rst/L171.yaml": "doc snippet: get_file of remote-app.yaml, which the doc does not include",
    "openstack__heat/_extracted/rst/doc/source/template_guide/hot_spec.rst/L44.yaml": "doc snippet with an empty conditions section, which Heat refuses: 'Condition definitions must be a map. Found a NoneType instead'",
    "openstack__heat/api-ref/source/v1/samples/resource-type-template-hot-response.json": "an empty constraint {} (Heat's resource-type template API emits it; its own parser rejects it: 'No constraint expressed')",
}


def corpus_templates() -> list[tuple[str, list[str]]]:
    records = json.loads((CORPUS / "index.json").read_text())
    found = []
    for record in records:
        if record["kind"] not in ("hot", "cfn"):
            continue
        path = CORPUS / record["path"]
        env = path.with_name(path.stem + "_env.yaml")
        found.append((record["path"], [str(env)] if env.exists() else []))
    return found


TEMPLATES = corpus_templates()


def test_corpus_is_present():
    assert len(TEMPLATES) > 150, "the vendored corpus (tests/corpus/data) is incomplete"


@pytest.mark.parametrize(("path", "environments"), TEMPLATES, ids=[t[0] for t in TEMPLATES])
def test_corpus_template_validates(path, environments):
    result = load_definition(str(CORPUS / path), environments)
    errors = [d.render() for d in result.diagnostics if d.is_error]
    if path in KNOWN_INVALID:
        assert errors, f"listed as invalid ({KNOWN_INVALID[path]}) but validates now"
    else:
        assert errors == []
