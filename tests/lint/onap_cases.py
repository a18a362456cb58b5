"""More cases for the onap profile, written from the wording of ONAP's requirements (the
seed 001): how a package is read, R-26124, R-03324's structure, R-86285's pairing, and
R-92635 meaning what ``stoker template validate`` says."""

from __future__ import annotations

from .cases import ONAP_ENV, ONAP_OK, ONAP_PACKAGE, Case, onap

NO_VERSION = ONAP_OK.replace("heat_template_version: 2015-04-30\n", "")

#: a module using cloud types (Nova, Neutron) and custom constraints: Heat's validate
#: accepts it, and so must R-92635
CLOUD = """\
heat_template_version: 2015-04-30
description: base module with cloud types
parameters:
  vnf_name:
    type: string
    description: the VNF's name
  oam_image_name:
    type: string
    description: image
    constraints:
      - custom_constraint: glance.image
  oam_flavor_name:
    type: string
    description: flavor
  oam_net_id:
    type: string
    description: network
resources:
  oam_port_0:
    type: OS::Neutron::Port
    properties:
      network: {get_param: oam_net_id}
  oam_server_0:
    type: OS::Nova::Server
    properties:
      image: {get_param: oam_image_name}
      flavor: {get_param: oam_flavor_name}
      networks:
        - port: {get_resource: oam_port_0}
      metadata:
        vnf_name: {get_param: vnf_name}
"""
CLOUD_ENV = "parameters:\n  oam_image_name: img\n  oam_flavor_name: m1.small\n  oam_net_id: n\n"

VOLUME = """\
heat_template_version: 2015-04-30
description: volume module
parameters:
  oam_volume_size_0:
    type: number
    description: size in GB
resources:
  oam_volume_0:
    type: OS::Cinder::Volume
    properties:
      size: {get_param: oam_volume_size_0}
outputs:
  oam_volume_id_0:
    value: {get_resource: oam_volume_0}
"""
VOLUME_ENV = "parameters:\n  oam_volume_size_0: 10\n"

DEFAULTED = ONAP_OK.replace(
    "    description: the VNF's name\n", "    description: the VNF's name\n    default: demo\n"
)

MORE_ONAP_CASES: list[Case] = [
    # R-92635: a template Heat accepts (cloud types, custom constraints) is not flagged;
    # one whose environment Heat rejects is, at the environment's section
    Case(
        "R-92635",
        {"base_cloud.yaml": CLOUD, "base_cloud.env": CLOUD_ENV + "parameterz: {}\n"},
        [("base_cloud.env", 5, 1)],
        ok={"base_cloud.yaml": CLOUD, "base_cloud.env": CLOUD_ENV},
        profiles=("onap",),
        name="cloud-types",
    ),
    # R-92635 on a .yaml without a version: Heat's answer is the version error alone
    Case(
        "R-92635",
        onap(NO_VERSION.replace("{get_attr: [vnf_value, value]}", "{get_attr: [nope, value]}")),
        [("base_mod.yaml", 1, 1)],
        ok=ONAP_PACKAGE,
        profiles=("onap",),
        name="no-version",
    ),
    # R-26124: a default is enumerated in the environment file
    Case(
        "R-26124",
        onap(DEFAULTED, **{"base_mod.env": "parameters: {}\n"}),
        [("base_mod.yaml", 4, 3)],
        ok=onap(DEFAULTED),
        profiles=("onap",),
    ),
    Case(
        "R-26124",
        onap(DEFAULTED, **{"base_mod.env": "parameters:\n  other: 1\n"}),
        [("base_mod.yaml", 4, 3)],
        ok=onap(DEFAULTED, **{"base_mod.env": "parameter_defaults:\n  vnf_name: d\n"}),
        profiles=("onap",),
        name="defaults-section",
    ),
    # R-03324: an environment file is a mapping of the sections the requirements list,
    # parameters among them, whatever else it holds
    Case(
        "R-03324",
        onap(ONAP_OK, **{"base_mod.env": ""}),
        [("base_mod.env", 1, 1)],
        ok=onap(ONAP_OK, **{"base_mod.env": "parameters:\n"}),
        profiles=("onap",),
        name="empty-file",
    ),
    Case(
        "R-03324",
        onap(ONAP_OK, **{"base_mod.env": ONAP_ENV + "resources: {}\n"}),
        [("base_mod.env", 3, 1)],
        ok=onap(ONAP_OK, **{"base_mod.env": ONAP_ENV + "event_sinks: []\n"}),
        profiles=("onap",),
        name="unknown-section",
    ),
    Case(
        "R-03324",
        onap(ONAP_OK, **{"base_mod.env": "heat_template_version: 2015-04-30\n"}),
        [("base_mod.env", 1, 1), ("base_mod.env", 1, 1)],  # no parameters; a foreign key
        ok=ONAP_PACKAGE,
        profiles=("onap",),
        name="template-in-env",
    ),
    Case(
        "R-03324",
        onap(ONAP_OK, **{"base_mod.env": "parameters: [a, b]\n"}),
        [("base_mod.env", 1, 13)],
        ok=ONAP_PACKAGE,
        profiles=("onap",),
        name="parameters-not-a-map",
    ),
    # ... and a file that cannot be parsed has none: reported where the parser stopped
    Case(
        "R-03324",
        onap(ONAP_OK, **{"base_mod.env": "parameters:\n  a: [1, 2\n  b: 3\n"}),
        [("base_mod.env", 3, 4)],
        ok=onap(ONAP_OK, **{"base_mod.env": "parameters:\n  a: [1, 2]\n  b: 3\n"}),
        profiles=("onap",),
        name="unparsable",
    ),
    # R-86285: each module, volume modules too, has its own .env; nested files need none
    Case(
        "R-86285",
        {**ONAP_PACKAGE, "base_mod_volume.yaml": VOLUME},
        [("base_mod_volume.yaml", 1, 1)],
        ok={**ONAP_PACKAGE, "base_mod_volume.yaml": VOLUME, "base_mod_volume.env": VOLUME_ENV},
        profiles=("onap",),
        name="volume",
    ),
    Case(
        "R-86285",
        {**ONAP_PACKAGE, "module_1.yaml": CLOUD, "module_1.env.txt": CLOUD_ENV},
        [("module_1.yaml", 1, 1)],
        ok={**ONAP_PACKAGE, "module_1.yaml": CLOUD, "module_1.env": ""},
        profiles=("onap",),
        name="empty-env-still-pairs",
    ),
]

#: base_mod takes base_mod_volume's output as its parameter oam_volume_id_0
WITH_VOLUME_PARAMETER = ONAP_OK.replace(
    "resources:\n",
    "  oam_volume_id_0:\n    type: string\n    description: from the volume module\nresources:\n",
).replace("outputs:\n", "outputs:\n  volume_out:\n    value: {get_param: oam_volume_id_0}\n")
VOLUME_PACKAGE = {
    "base_mod.yaml": WITH_VOLUME_PARAMETER,
    "base_mod.env": ONAP_ENV,
    "base_mod_volume.yaml": VOLUME,
    "base_mod_volume.env": VOLUME_ENV,
}

VOLUME_CASES: list[Case] = [
    Case(
        "R-82732",
        {**ONAP_PACKAGE, "lonely_volume.yaml": VOLUME, "lonely_volume.env": VOLUME_ENV},
        [("lonely_volume.yaml", 1, 1)],
        ok=VOLUME_PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-89913",
        {
            **VOLUME_PACKAGE,
            "base_mod_volume.yaml": VOLUME.replace(
                "{get_resource: oam_volume_0}", "{get_param: oam_volume_size_0}"
            ),
        },
        [("base_mod_volume.yaml", 8, 3)],
        ok=VOLUME_PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-07443",
        {**VOLUME_PACKAGE, "base_mod.yaml": ONAP_OK},
        [("base_mod_volume.yaml", 13, 3)],
        ok=VOLUME_PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-07443",
        {
            **VOLUME_PACKAGE,
            "base_mod.yaml": WITH_VOLUME_PARAMETER.replace(
                "  oam_volume_id_0:\n    type: string", "  oam_volume_id_0:\n    type: json"
            ),
        },
        [("base_mod_volume.yaml", 13, 3)],
        ok=VOLUME_PACKAGE,
        profiles=("onap",),
        name="type",
    ),
    Case(
        "R-20547",
        {
            **VOLUME_PACKAGE,
            "base_mod.yaml": WITH_VOLUME_PARAMETER.replace(
                "    description: from the volume module\n",
                "    description: from the volume module\n"
                "    constraints:\n      - length: {min: 36}\n",
            ),
        },
        [("base_mod.yaml", 13, 5)],
        ok=VOLUME_PACKAGE,
        profiles=("onap",),
    ),
]
MORE_ONAP_CASES += VOLUME_CASES
